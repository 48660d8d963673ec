import Synchronization

/// One labelled series of a ``MetricsRegistry`` family: a counter's or a
/// gauge's value, or a histogram's buckets, sum and count. Each has a lock
/// of its own, so updating one never waits on the registry or on another.
public final class MetricsSeries: Sendable {
    private let buckets: [Double]
    private let state: Mutex<MetricsRegistry.Series>

    init(buckets: [Double]) {
        self.buckets = buckets
        state = Mutex(MetricsRegistry.Series(bucketCounts: Array(repeating: 0, count: buckets.count)))
    }

    /// Adds to a counter (or a gauge).
    public func increment(by amount: Double = 1) {
        state.withLock { $0.value += amount }
    }

    /// Sets a gauge.
    public func set(to value: Double) {
        state.withLock { $0.value = value }
    }

    /// Records one observation in a histogram.
    public func observe(_ value: Double) {
        state.withLock { $0.record(value, in: buckets) }
    }

    /// The values now.
    var current: MetricsRegistry.Series { state.withLock { $0 } }
}

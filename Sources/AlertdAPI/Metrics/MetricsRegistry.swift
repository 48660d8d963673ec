import FoundationEssentials
import Synchronization
import AlertModel

/// Counters, gauges and histograms with labels, rendered in the Prometheus
/// text exposition format (version 0.0.4). Small and lock-based: alertd has
/// a few dozen series, updated at most once per request or delivery.
public final class MetricsRegistry: Sendable {
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    package struct Family: Sendable {
        package let name: String
        package let help: String
        package let kind: Kind
        package let buckets: [Double]
        package var series: [[String: String]: MetricsSeries] = [:]

        /// The series with these labels, made if it is new.
        mutating func series(_ labels: [String: String]) -> MetricsSeries {
            if let found = series[labels] { return found }
            let made = MetricsSeries(buckets: buckets)
            series[labels] = made
            return made
        }
    }

    package struct Series: Sendable {
        package var value: Double = 0
        package var bucketCounts: [UInt64] = []
        package var sum: Double = 0
        package var count: UInt64 = 0

        mutating func record(_ observation: Double, in buckets: [Double]) {
            for (i, bound) in buckets.enumerated() where observation <= bound { bucketCounts[i] += 1 }
            sum += observation
            count += 1
        }
    }

    private let families = Mutex<[String: Family]>([:])
    private let order = Mutex<[String]>([])

    public init() {}

    /// Declares a metric; declaring the same name twice keeps the first.
    public func register(_ name: String, _ kind: Kind, help: String, buckets: [Double] = []) {
        precondition(Self.isValidName(name), "invalid metric name \(name)")
        let added = families.withLock { f -> Bool in
            guard f[name] == nil else { return false }
            f[name] = Family(name: name, help: help, kind: kind, buckets: buckets.sorted())
            return true
        }
        if added { order.withLock { $0.append(name) } }
    }

    /// The series of a registered metric with these labels, made if it is
    /// new; nil for a name never registered. A hot path keeps it and updates
    /// it directly, without finding it by name and labels each time. Not for
    /// gauges ``replace(_:with:)`` sets: that drops their series.
    public func series(_ name: String, _ labels: [String: String] = [:]) -> MetricsSeries? {
        families.withLock { f in f[name]?.series(labels) }
    }

    /// Adds to a counter (or a gauge).
    public func increment(_ name: String, _ labels: [String: String] = [:], by amount: Double = 1) {
        series(name, labels)?.increment(by: amount)
    }

    /// Sets a gauge.
    public func set(_ name: String, _ labels: [String: String] = [:], to value: Double) {
        series(name, labels)?.set(to: value)
    }

    /// Sets a gauge family to exactly these series, dropping the others: for
    /// gauges read whole from the store, whose label values come and go.
    public func replace(_ name: String, with values: [[String: String]: Double]) {
        let made = values.mapValues { value in
            let s = MetricsSeries(buckets: [])
            s.set(to: value)
            return s
        }
        families.withLock { f in f[name]?.series = made }
    }

    /// Records one observation in a histogram.
    public func observe(_ name: String, _ labels: [String: String] = [:], _ value: Double) {
        series(name, labels)?.observe(value)
    }

    /// The exposition text: every family with HELP and TYPE, series sorted.
    public func render() -> String {
        let names = order.withLock { $0 }
        let snapshot = families.withLock { $0 }
        var out = ""
        for name in names {
            guard let family = snapshot[name] else { continue }
            out += "# HELP \(name) \(Self.escapeHelp(family.help))\n# TYPE \(name) \(family.kind.rawValue)\n"
            for (labels, s) in family.series.mapValues({ $0.current }).sorted(by: { Self.key($0.key) < Self.key($1.key) }) {
                switch family.kind {
                case .counter, .gauge:
                    out += "\(name)\(Self.labelText(labels)) \(Self.number(s.value))\n"
                case .histogram:
                    for (i, bound) in family.buckets.enumerated() {
                        out += "\(name)_bucket\(Self.labelText(labels.merging(["le": Self.number(bound)]) { a, _ in a })) \(s.bucketCounts[i])\n"
                    }
                    out += "\(name)_bucket\(Self.labelText(labels.merging(["le": "+Inf"]) { a, _ in a })) \(s.count)\n"
                    out += "\(name)_sum\(Self.labelText(labels)) \(Self.number(s.sum))\n"
                    out += "\(name)_count\(Self.labelText(labels)) \(s.count)\n"
                }
            }
        }
        return out
    }

    /// Prometheus's rule, `[a-zA-Z_:][a-zA-Z0-9_:]*`, checked on the bytes:
    /// Unicode's letter tables are large, and a start-up that reads them keeps them resident.
    package static func isValidName(_ name: String) -> Bool {
        func allowed(_ byte: UInt8, digits: Bool) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"), UInt8(ascii: ":"): true
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits
            default: false
            }
        }
        guard let first = name.utf8.first, allowed(first, digits: false) else { return false }
        return name.utf8.allSatisfy { allowed($0, digits: true) }
    }

    package static func key(_ labels: [String: String]) -> String {
        labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    }

    package static func labelText(_ labels: [String: String]) -> String {
        guard !labels.isEmpty else { return "" }
        return "{" + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\(escapeLabel($0.value))\"" }.joined(separator: ",") + "}"
    }

    /// Label values escape backslash, double quote and newline.
    package static func escapeLabel(_ v: String) -> String {
        v.replacingScalars(["\\": "\\\\", "\"": "\\\"", "\n": "\\n"])
    }

    /// HELP text escapes backslash and newline.
    package static func escapeHelp(_ v: String) -> String {
        v.replacingScalars(["\\": "\\\\", "\n": "\\n"])
    }

    package static func number(_ v: Double) -> String {
        if v.isInfinite { return v > 0 ? "+Inf" : "-Inf" }
        if v.isNaN { return "NaN" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(v)
    }
}

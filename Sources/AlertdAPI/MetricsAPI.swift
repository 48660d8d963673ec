import AlertdHTTP
import AlertdStore

/// `GET /metrics`: Prometheus text exposition.
public struct MetricsAPI: Sendable {
    package let metrics: DaemonMetrics
    package let probe: StoreProbe
    package let writeFailure: @Sendable () -> StoreError?

    /// `writeFailure` says why the store's writes fail, while they do.
    public init(metrics: DaemonMetrics, probe: StoreProbe, writeFailure: @escaping @Sendable () -> StoreError? = { nil }) {
        self.metrics = metrics
        self.probe = probe
        self.writeFailure = writeFailure
    }

    public func register(in router: inout APIRouter) {
        router.add("GET", "/metrics", access: .token(.read)) { _ in
            // Deliberately not a 503: the process's own counters are worth
            // scraping while the store is down; only the store gauges keep
            // their last values.
            let counts = try? await probe.counts().get()
            return HTTPResponse(status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                                body: .init(metrics.render(counts: counts, storeWritable: writeFailure() == nil).utf8))
        }
    }
}

import AlertdHTTP
import AlertdStore

/// `GET /metrics`: Prometheus text exposition.
public struct MetricsAPI: Sendable {
    package let metrics: DaemonMetrics
    package let store: any AlertStore

    public init(metrics: DaemonMetrics, store: any AlertStore) {
        self.metrics = metrics
        self.store = store
    }

    public func register(in router: inout APIRouter) {
        router.add("GET", "/metrics", access: .token) { _ in
            // Deliberately not a 503: the process's own counters are worth
            // scraping while the store is down; only the store gauges keep
            // their last values.
            let counts = try? await store.counts()
            return HTTPResponse(status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                                body: .init(metrics.render(counts: counts).utf8))
        }
    }
}

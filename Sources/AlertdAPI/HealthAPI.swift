import AlertdHTTP
import AlertdStore

/// `GET /v1/health`: 200 while the store answers and the dispatcher runs,
/// 503 otherwise, so a load balancer or systemd check can act on it.
public struct HealthAPI: Sendable {
    package let store: any AlertStore
    package let dispatcherRunning: @Sendable () async -> Bool

    public init(store: any AlertStore, dispatcherRunning: @escaping @Sendable () async -> Bool) {
        self.store = store
        self.dispatcherRunning = dispatcherRunning
    }

    public func register(in router: inout APIRouter) {
        // Probes and load balancers hold no token; the answer reveals no secret.
        router.add("GET", "/v1/health", access: .public) { _ in await health() }
    }

    package struct Health: Codable, Equatable {
        package var status: String
        package var store: String
        package var dispatcher: String
        package var openAlerts: Int?
        package var pendingDeliveries: Int?
        package var deadDeliveries: Int?

        package enum CodingKeys: String, CodingKey {
            case status, store, dispatcher
            case openAlerts = "open_alerts"
            case pendingDeliveries = "pending_deliveries"
            case deadDeliveries = "dead_deliveries"
        }
    }

    package func health() async -> HTTPResponse {
        // A store that fails is what this route reports, in its own shape
        // (`"store": "unavailable"`, still a 503), not an error.
        let counts = try? await store.counts()
        let running = await dispatcherRunning()
        let ok = counts != nil && running
        return APIRepresentation.json(Health(
            status: ok ? "ok" : "unavailable", store: counts == nil ? "unavailable" : "ok",
            dispatcher: running ? "running" : "stopped", openAlerts: counts?.openAlerts,
            pendingDeliveries: counts.map { $0.pending + $0.inFlight }, deadDeliveries: counts?.dead), status: ok ? 200 : 503)
    }
}

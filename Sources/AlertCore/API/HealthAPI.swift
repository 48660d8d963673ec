/// `GET /v1/health`: 200 while the store answers and the dispatcher runs,
/// 503 otherwise, so a load balancer or systemd check can act on it.
public struct HealthAPI: Sendable {
    let store: any AlertStore
    let dispatcherRunning: @Sendable () async -> Bool

    public init(store: any AlertStore, dispatcherRunning: @escaping @Sendable () async -> Bool) {
        self.store = store
        self.dispatcherRunning = dispatcherRunning
    }

    public func register(in router: inout APIRouter) {
        router.add("GET", "/v1/health") { _, _ in await health() }
    }

    struct Health: Codable, Equatable {
        var status: String
        var store: String
        var dispatcher: String
        var openAlerts: Int?
        var pendingDeliveries: Int?
        var deadDeliveries: Int?

        enum CodingKeys: String, CodingKey {
            case status, store, dispatcher
            case openAlerts = "open_alerts"
            case pendingDeliveries = "pending_deliveries"
            case deadDeliveries = "dead_deliveries"
        }
    }

    func health() async -> HTTPResponse {
        let counts = try? await store.counts()
        let running = await dispatcherRunning()
        let ok = counts != nil && running
        return APIRepresentation.json(Health(
            status: ok ? "ok" : "unavailable", store: counts == nil ? "unavailable" : "ok",
            dispatcher: running ? "running" : "stopped", openAlerts: counts?.openAlerts,
            pendingDeliveries: counts.map { $0.pending + $0.inFlight }, deadDeliveries: counts?.dead), status: ok ? 200 : 503)
    }
}

import AlertModel
import AlertdHTTP
import AlertdStore

/// `GET /v1/health`: 200 only while alertd can do its work: the store
/// answers and takes writes, and the dispatcher runs. Otherwise 503 with
/// the reason, so a load balancer or systemd check can act on it: a store
/// that reads but cannot be written (a read-only or full disk) is
/// `degraded`, since every submission would fail.
public struct HealthAPI: Sendable {
    package let probe: StoreProbe
    package let dispatcherRunning: @Sendable () async -> Bool
    package let writeFailure: @Sendable () -> StoreError?
    package let reloadFailed: @Sendable () -> Bool

    /// `writeFailure` says why the store's writes fail, while they do;
    /// `reloadFailed`, whether the last reload of the configuration failed.
    public init(probe: StoreProbe, dispatcherRunning: @escaping @Sendable () async -> Bool,
                writeFailure: @escaping @Sendable () -> StoreError? = { nil }, reloadFailed: @escaping @Sendable () -> Bool = { false }) {
        self.probe = probe
        self.dispatcherRunning = dispatcherRunning
        self.writeFailure = writeFailure
        self.reloadFailed = reloadFailed
    }

    public func register(in router: inout APIRouter) {
        // Probes and load balancers hold no token; the answer reveals no secret.
        router.add("GET", "/v1/health", access: .public) { req in await health(detailed: req.caller.scopes.allows(.read)) }
    }

    package struct Health: Codable, Equatable {
        /// `ok`, `degraded` (reads work, writes do not) or `unavailable`.
        package var status: String
        /// `ok`, `unwritable`, `damaged` (the database file; until a restart on a repaired one) or `unavailable`.
        package var store: String
        package var dispatcher: String
        /// What is wrong, in sentences; absent when all is well.
        package var reason: String?
        package var openAlerts: Int?
        package var pendingDeliveries: Int?
        package var deadDeliveries: Int?
        /// `reload_failed` while the last reload failed: alertd still works,
        /// on the configuration before it, so the status stays; absent otherwise.
        package var configuration: String?

        /// What ``APIRepresentation/encoder`` writes, by hand: probes ask
        /// every few seconds, and an idle daemon need not page in `JSONEncoder`.
        package var jsonObject: JSONObject {
            var o = JSONObject()
            o.string("configuration", configuration)
            o.int("dead_deliveries", deadDeliveries.map(Int64.init))
            o.string("dispatcher", dispatcher)
            o.int("open_alerts", openAlerts.map(Int64.init))
            o.int("pending_deliveries", pendingDeliveries.map(Int64.init))
            o.string("reason", reason)
            o.string("status", status)
            o.string("store", store)
            return o
        }

        package enum CodingKeys: String, CodingKey {
            case status, store, dispatcher, reason, configuration
            case openAlerts = "open_alerts"
            case pendingDeliveries = "pending_deliveries"
            case deadDeliveries = "dead_deliveries"
        }
    }

    /// `detailed` (a caller on the Unix socket) gets the store's own error
    /// text; anyone else, on TCP without a token, a sentence that names no
    /// path or server (a PostgreSQL error quotes its host and port).
    package func health(detailed: Bool = true) async -> HTTPResponse {
        // A store that fails is what this route reports, in its own shape,
        // still a 503, not an error.
        var counts: StoreCounts?
        var reasons: [String] = []
        switch await probe.counts() {
        case .success(let read): counts = read
        case .failure(let error) where error.code == .unresponsive: reasons.append(error.message)
        case .failure(let error): reasons.append(detailed ? error.message : "The store does not answer; alertd's log says why.")
        }
        let unwritable = counts == nil ? nil : writeFailure()
        let damaged = unwritable?.code == .corrupt
        if let unwritable {
            reasons.append(detailed ? unwritable.message
                : damaged ? "The store's database file is damaged; alertd's log says why."
                : "The store cannot be written (a full or failing disk, a database that takes no writes); alertd's log says why.")
        }
        let running = await dispatcherRunning()
        if !running { reasons.append("The dispatcher has stopped; nothing is delivered. Restart alertd.") }
        let status = counts == nil || !running ? "unavailable" : unwritable != nil ? "degraded" : "ok"
        let health = Health(
            status: status, store: Self.storeState(readable: counts != nil, writeFailure: unwritable),
            dispatcher: running ? "running" : "stopped", reason: reasons.isEmpty ? nil : reasons.joined(separator: " "),
            openAlerts: counts?.openAlerts, pendingDeliveries: counts.map { $0.pending + $0.inFlight },
            deadDeliveries: counts?.dead, configuration: reloadFailed() ? "reload_failed" : nil)
        return .json(status: status == "ok" ? 200 : 503, body: health.jsonObject.jsonData)
    }

    /// The store's word in health and readiness: `unavailable` (it does not
    /// answer), `damaged`, `unwritable` or `ok`.
    package static func storeState(readable: Bool, writeFailure: StoreError?) -> String {
        !readable ? "unavailable" : writeFailure?.code == .corrupt ? "damaged" : writeFailure != nil ? "unwritable" : "ok"
    }
}

import FoundationEssentials
import AlertModel
import AlertdDelivery
import AlertdHTTP
import AlertdStore

/// `POST /v1/ingest/alertmanager`: an Alertmanager webhook receiver
/// (payload version 4). Firing alerts open (folded by fingerprint into the
/// open alert), resolved ones resolve. alertd's own route, so its errors are
/// alertd's.
public struct AlertmanagerWebhookAPI: Sendable {
    package let intake: AlertIntake
    package let store: any AlertStore
    package let metrics: DaemonMetrics

    public init(intake: AlertIntake, store: any AlertStore, metrics: DaemonMetrics) {
        self.intake = intake
        self.store = store
        self.metrics = metrics
    }

    public func register(in router: inout APIRouter) {
        router.add("POST", "/v1/ingest/alertmanager", access: .token(.send), onRefusal: { metrics.rejected($0, count: $1) }) { req throws(APIError) in
            try await ingest(req.http)
        }
    }

    /// What a webhook call came to.
    package struct Result: Codable, Sendable, Equatable {
        package var created: Int
        package var deduplicated: Int
        package var resolved: Int
    }

    package func ingest(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        // The alerts are read as the body is; whether they count is decided after.
        let read = try APIRequestBody.read(request) { reader throws(StrictJSON.Failure) -> (version: Any?, alerts: [AlertmanagerAlertItem]?)? in
            guard try reader.peek() == UInt8(ascii: "{") else {
                _ = try reader.value()
                return nil
            }
            var payload: (version: Any?, alerts: [AlertmanagerAlertItem]?) = (nil, nil)
            try reader.uniqueMembers { key, r throws(StrictJSON.Failure) in
                switch key {
                case "version": payload.version = try r.value()
                case "alerts": payload.alerts = try AlertmanagerIntake.read(&r, withStatus: true)?.items
                default: _ = try r.value()
                }
            }
            return payload
        }
        guard let payload = read else {
            throw .invalidBody("The body must be an Alertmanager webhook payload: an object with `version` \"4\" and `alerts`.")
        }
        guard let version = payload.version as? String, version == "4" else {
            throw APIError(status: 400, code: "unsupported_webhook_version",
                           message: "Only Alertmanager's webhook payload version \"4\" is understood; got \(payload.version.map { "`\($0)`" } ?? "none").")
        }
        guard let alerts = payload.alerts else { throw .invalidBody("`alerts` must be an array of alerts.") }
        // No `max_batch` here, only the body's limit: Alertmanager sends a
        // group's alerts in one call however many, and retries a refused
        // call as it was, so a refusal would lose the group for good.
        let outcome = try await AlertmanagerIntake(intake: intake, store: store, metrics: metrics, door: .alertmanagerWebhook).take(read: alerts)
        return APIRepresentation.json(Result(created: outcome.created, deduplicated: outcome.deduplicated, resolved: outcome.resolved))
    }
}

/// Where an alert came into alertd: the `front_door` label of the received
/// and deduplicated counters.
public enum FrontDoor: String, Sendable, CaseIterable {
    /// `POST /v1/alerts`: alertd's own API, alertctl included.
    case api
    /// `POST /api/v2/alerts`: Alertmanager's API, as Prometheus sends to it.
    case alertmanagerAPI = "alertmanager_api"
    /// `POST /v1/ingest/alertmanager`: an Alertmanager webhook receiver.
    case alertmanagerWebhook = "alertmanager_webhook"

    /// The actor recorded when an alert is resolved through this door.
    public var actor: String {
        switch self {
        case .api: "api"
        case .alertmanagerAPI: "alertmanager-api"
        case .alertmanagerWebhook: "alertmanager-webhook"
        }
    }
}

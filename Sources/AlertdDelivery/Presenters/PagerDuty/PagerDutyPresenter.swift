import FoundationEssentials
import AlertModel

/// PagerDuty through the Events API v2: a `trigger` event per alert with
/// the alert's id as `dedup_key`, so retries and repeats land on one
/// PagerDuty alert, the severity mapped one to one, and the action links
/// as links.
///
/// When the alert closes in alertd (resolved, confirmed, cancelled or
/// expired), its follow-up is a `resolve` event with the same `dedup_key`,
/// which resolves the PagerDuty alert and, with it, the incident.
///
/// A group is one PagerDuty alert too: its id is the `dedup_key`, every
/// notification but the last a `trigger` (PagerDuty folds them into the
/// alert's log), and the group's resolution a `resolve`.
public typealias PagerDutyPresenter = HTTPServicePresenter<PagerDutyPresenterConfiguration>

/// Settings for a `pagerduty` presenter.
///
/// ```json
/// "pagerduty": {"type": "pagerduty", "routing_key_file": "/etc/alertd/pagerduty-routing-key"}
/// ```
public struct PagerDutyPresenterConfiguration: HTTPServiceConfiguration {
    public static let typeName = "pagerduty"
    public static let keys = PresenterSecret.keys("routing_key") + ["source", "api_url"] + HTTPServiceSettings.keys
    public static var example: [String: Any] { ["routing_key_file": "/etc/alertd/pagerduty-routing-key"] }

    /// https://developer.pagerduty.com/docs/events-api-v2/trigger-events/
    enum Limit {
        /// An Events API v2 integration key, the `routing_key`.
        static let routingKey = 32
        static let summary = 1_024
        static let dedupKey = 255
        static let source = 255
        /// PagerDuty takes events of at most 512 KB; the message, as written
        /// in the JSON, gets half of that, the labels and the rest the other
        /// half. With `limits.max_message_length` raised, a message of 200,000
        /// euro signs made a 600 kB event.
        static let messageJSONBytes = 256 * 1_024
        /// The labels, as written in the JSON, get 192 KB of the other
        /// half: with `limits.max_labels` raised, 64 labels of 1,024 emoji
        /// each made an event of 525 kB beside the capped message.
        static let labelsJSONBytes = 192 * 1_024
    }

    /// The integration's routing key (Events API v2).
    public var routingKey: PresenterSecret?
    /// What the event is about; by default the alert's `host` label, else `alertd`.
    public var source: String?
    public var apiURL = "https://events.pagerduty.com"
    public var http = HTTPServiceSettings()

    public init(routingKey: PresenterSecret?, apiURL: String = "https://events.pagerduty.com") {
        self.routingKey = routingKey
        self.apiURL = apiURL
    }

    public init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader) {
        // A key of another length is refused by PagerDuty at every event (400 "Invalid routing key").
        routingKey = PresenterSecret.readKey("routing_key", length: Limit.routingKey, from: object, at: path, reader, required: true,
                                             need: "the integration key of an Events API v2 integration")
        source = reader.string(object, "source", at: path)
        apiURL = reader.baseURL(object, "api_url", at: path, appends: "/v2/enqueue", required: false) ?? apiURL
        http = HTTPServiceSettings(reading: object, at: path, reader)
    }

    public var secrets: [PresenterSecret] { routingKey.map { [$0] } ?? [] }

    public static var followUps: FollowUpSupport { .onByDefault }

    /// `{"status": "invalid event", "message": "Event object is invalid", "errors": ["…"]}`.
    public static var answers: HTTPServiceAnswers {
        HTTPServiceAnswers(retryHint: .header, errorPaths: [["errors"], ["message"]], pathIsAllCredential: false)
    }

    public func request(for alert: Alert, delivery: DeliveryContext, secrets: PresenterSecrets) -> HTTPServiceRequest {
        let d = AlertDigest(alert, delivery: delivery)
        let dedupKey = TextLimit.truncate(d.id, to: Limit.dedupKey, marker: "")
        if d.followUp != nil { return resolve(dedupKey, secrets: secrets) }
        var details: [String: Any] = ["alert_id": d.id]
        let (labels, omitted) = Self.labels(alert.spec.labels, within: Limit.labelsJSONBytes)
        details["labels"] = labels
        if omitted > 0 { details["labels_omitted"] = omitted }
        if let message = d.message {
            details["message"] = TextLimit.truncate(message, to: Limit.messageJSONBytes, in: .json, marker: TextLimit.bodyMarker)
        }
        return trigger(dedupKey, summary: d.title, source: alert.spec.labels["host"], severity: d.severity, timestamp: d.createdAt,
                       details: details, links: d.linkedActions.map { ["href": $0.link, "text": $0.label] }, secrets: secrets)
    }

    /// A group notification: a `trigger` keyed by the group's id (summary
    /// `[FIRING:N] …`, the listed alerts and counts in the details, the
    /// console and the listed alerts' action links as links), or, once
    /// nothing it told of fires (``AlertGroupNotification/nothingFires``), a
    /// `resolve` of that key.
    public func request(for notification: AlertGroupNotification, delivery: DeliveryContext, secrets: PresenterSecrets) -> HTTPServiceRequest {
        let g = AlertGroupDigest(notification)
        let dedupKey = notification.groupID.rawValue
        if notification.nothingFires { return resolve(dedupKey, secrets: secrets) }
        var details: [String: Any] = [
            "group_id": dedupKey, "route": notification.route, "reason": notification.reason.rawValue, "counts": g.counts,
            "firing": g.shown.map { AlertGroupDigest.line($0) } + [g.moreLine].compactMap { $0 },
            "labels": Dictionary(notification.groupLabels.map { ($0.name, $0.value) }) { a, _ in a },
        ]
        if !g.closed.isEmpty { details["closed"] = g.closed.map { AlertGroupDigest.line($0) } + [g.closedMoreLine].compactMap { $0 } }
        var links: [[String: Any]] = notification.consoleURL.map { [["href": $0, "text": "All alerts of the group in alertd"]] } ?? []
        for entry in g.shown {
            links += entry.digest.linkedActions.map { ["href": $0.link, "text": TextLimit.truncate("\($0.label): \(entry.digest.title)", to: 200)] }
        }
        // A group spans hosts unless it is grouped by one.
        let host = notification.groupLabels.first { $0.name == "host" }?.value
        return trigger(dedupKey, summary: g.title, source: host, severity: notification.severity,
                       timestamp: UTCTimestamp.iso8601(notification.firing.first?.createdAt ?? Date()), details: details, links: links,
                       secrets: secrets)
    }

    /// The labels in name order while their JSON fits in `budget` bytes,
    /// and how many did not fit.
    static func labels(_ labels: [String: String], within budget: Int) -> (kept: [String: String], omitted: Int) {
        var kept: [String: String] = [:], used = 0
        for (name, value) in labels.sorted(by: { $0.key < $1.key }) {
            // `"name":"value",`
            used += JSONObject.escapedLength(name) + JSONObject.escapedLength(value) + 6
            guard used <= budget else { break }
            kept[name] = value
        }
        return (kept, labels.count - kept.count)
    }

    /// https://developer.pagerduty.com/docs/events-api-v2/trigger-events/.
    private func trigger(
        _ dedupKey: String, summary: String, source fallback: String?, severity: Severity, timestamp: String, details: [String: Any],
        links: [[String: Any]], secrets: PresenterSecrets
    ) -> HTTPServiceRequest {
        let json: [String: Any] = [
            "routing_key": secrets["routing_key"] ?? "",
            "event_action": "trigger",
            "dedup_key": dedupKey,
            "client": "alertd",
            "payload": [
                "summary": TextLimit.truncate(summary, to: Limit.summary),
                // PagerDuty refuses a blank source (400, for good): an empty
                // `host` label, as a group by host gives alerts without one, is no host.
                "source": TextLimit.truncate(source ?? fallback.flatMap { $0.contains { !$0.isWhitespace } ? $0 : nil } ?? "alertd",
                                             to: Limit.source),
                // alertd's severities are PagerDuty's, name for name.
                "severity": severity.on(info: "info", warning: "warning", error: "error", critical: "critical"),
                "timestamp": timestamp,
                "custom_details": details,
            ] as [String: Any],
            "links": links,
        ]
        return HTTPServiceRequest(url: HTTPServiceRequest.url(apiURL, "/v2/enqueue"), json: json)
    }

    /// https://developer.pagerduty.com/docs/events-api-v2/resolve-events/: the key and the action alone.
    private func resolve(_ dedupKey: String, secrets: PresenterSecrets) -> HTTPServiceRequest {
        let json: [String: Any] = ["routing_key": secrets["routing_key"] ?? "", "event_action": "resolve", "dedup_key": dedupKey]
        return HTTPServiceRequest(url: HTTPServiceRequest.url(apiURL, "/v2/enqueue"), json: json)
    }
}

import FoundationEssentials
import AlertModel

/// One event of alertd's `/v1/events`, its JSON data read: what happened
/// (`alert.created`, `delivery.failed`, `alert.confirmed`, …), to which
/// alert, when, and the event's own fields (`actor`, `comment`, `error`, …).
public struct AlertdEvent: Sendable, Equatable {
    /// The event log's sequence number: resume after it with `--since`.
    public var sequence: Int64?
    /// As the daemon named it; a newer daemon may send kinds this alertctl
    /// does not know, which ``kind`` leaves nil.
    public var type: String
    public var alertID: AlertID
    /// `at` as alertd wrote it (RFC 3339, UTC).
    public var at: String
    /// Every other string field of the data.
    public var fields: [String: String]
    /// The data as it came.
    public var data: String

    /// Reads an event from the stream; nil for one that is not alertd's
    /// shape (no JSON object, no `alert_id`).
    public init?(_ event: ServerSentEvent) {
        guard let object = (try? StrictJSON.parse(event.data)) as? [String: Any],
              let rawID = object["alert_id"] as? String, let id = AlertID(rawID) else { return nil }
        sequence = event.id.flatMap { Int64($0) }
        type = object["type"] as? String ?? event.type
        alertID = id
        at = object["at"] as? String ?? ""
        fields = object.compactMapValues { $0 as? String }.filter { !["alert_id", "type", "at"].contains($0.key) }
        data = event.data
    }

    /// What happened, if it is a kind this alertctl knows.
    public var kind: EventKind? { EventKind(rawValue: type) }

    /// When it happened, if `at` reads as a time.
    public var date: Date? {
        RFC3339.parse(at)
    }

    /// For `alert.confirmed`, `alert.cancelled`, `alert.expired` and
    /// `alert.resolved`: the decision the event records.
    public var decision: AlertDecision? {
        guard let outcome = kind?.closedState else { return nil }
        return AlertDecision(outcome: outcome, actor: fields["actor"] ?? "alertd", at: date ?? Date(), comment: fields["comment"],
                             recipient: fields["recipient"])
    }

    /// One JSON object per line for `watch --json`: the data with the
    /// sequence number added as `id`.
    package var jsonLine: String {
        var object = ((try? StrictJSON.parse(data)) as? [String: Any]) ?? [:]
        if let sequence { object["id"] = Int(sequence) }
        return JSONObject.text(of: object)
    }
}

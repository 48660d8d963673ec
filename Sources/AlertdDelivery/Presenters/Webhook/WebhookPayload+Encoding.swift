import FoundationEssentials
import AlertModel

extension WebhookPayload {
    /// The JSON bytes, keys sorted so equal payloads give equal bytes. By
    /// hand, through the one JSON writer: it runs for every delivery. A test
    /// holds it to the `Encodable` conformance, which stays the reference.
    public func encoded() throws -> Data {
        var o = JSONObject()
        o.object("alert", Self.json(alert))
        o.object("closed", closed.map(Self.json))
        o.object("decision", decision.map(Self.json))
        var d = JSONObject()
        d.int("attempt", Int64(delivery.attempt))
        d.string("id", delivery.id)
        o.object("delivery", d)
        o.string("type", type.rawValue)
        o.int("version", Int64(version))
        return o.jsonData
    }

    static func json(_ a: AlertBody) -> JSONObject {
        // Absent values are written as null, so every alert has the same keys.
        // In key order, which spares the writer a sort.
        var o = JSONObject(absent: .null)
        o.object("cancel", a.cancel.map { AlertAction(label: $0.label, url: $0.url, method: $0.method).json(link: $0.link) })
        o.object("confirm", a.confirm.map { AlertAction(label: $0.label, url: $0.url, method: $0.method).json(link: $0.link) })
        o.string("created_at", timestamp(a.createdAt))
        o.string("dedup_key", a.dedupKey)
        o.int("expires_after", a.expiresAfter)
        o.string("id", a.id)
        o.strings("labels", a.labels)
        o.string("message", a.message)
        o.string("severity", a.severity.rawValue)
        o.string("state", a.state.rawValue)
        o.string("title", a.title)
        return o
    }

    private static func json(_ c: Closed) -> JSONObject {
        var o = JSONObject()
        o.string("at", c.at)
        o.string("by", c.by)
        o.string("comment", c.comment)
        o.string("follows_up", c.followsUp)
        o.string("outcome", c.outcome.rawValue)
        o.string("recipient", c.recipient)
        return o
    }

    private static func json(_ d: Decision) -> JSONObject {
        var o = JSONObject()
        o.string("action", d.action.rawValue)
        o.string("at", d.at)
        o.string("by", d.by)
        o.string("comment", d.comment)
        o.string("outcome", d.outcome.rawValue)
        o.string("reason", d.reason)
        o.string("recipient", d.recipient)
        return o
    }
}

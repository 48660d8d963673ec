import FoundationEssentials
import AlertModel

extension WebhookPayload {
    /// The JSON bytes, keys sorted so equal payloads give equal bytes. By
    /// hand, through the one JSON writer: it runs for every delivery. A test
    /// holds it to the `Encodable` conformance, which stays the reference.
    public func encoded() throws -> Data {
        // One buffer for the whole body, sized for a typical alert's.
        var o = JSONObject(capacity: 1_024)
        o.object("alert", absent: .null) { Self.write(alert, to: &$0) }
        // `if let`, not `object(_:_:_:)`: its generic code runs unspecialized here.
        if let closed { o.object("closed") { Self.write(closed, to: &$0) } } else { o.absent("closed") }
        if let decision { o.object("decision") { Self.write(decision, to: &$0) } } else { o.absent("decision") }
        o.object("delivery") { d in
            d.int("attempt", Int64(delivery.attempt))
            d.string("id", delivery.id)
        }
        o.string("type", type.rawValue)
        o.int("version", Int64(version))
        return o.jsonData
    }

    /// Writes the alert's fields into `o`, whose absent values are written
    /// as null, so every alert has the same keys. In key order, which spares
    /// the writer a sort: `listed` adds the fields a group's listing gives
    /// each alert, whose keys fall between `message` and `severity`.
    static func write(_ a: AlertBody, to o: inout JSONObject, listed: (inout JSONObject) -> Void = { _ in }) {
        write("cancel", a.cancel, to: &o)
        write("confirm", a.confirm, to: &o)
        o.string("created_at", timestamp(a.createdAt))
        o.string("dedup_key", a.dedupKey)
        o.int("expires_after", a.expiresAfter)
        o.string("id", a.id)
        o.strings("labels", a.labels)
        o.string("message", a.message)
        listed(&o)
        o.string("severity", a.severity.rawValue)
        o.string("state", a.state.rawValue)
        o.string("title", a.title)
    }

    private static func write(_ key: String, _ action: Action?, to o: inout JSONObject) {
        guard let action else { return o.absent(key) }
        o.object(key) { AlertAction(label: action.label, url: action.url, method: action.method).write(to: &$0, link: action.link) }
    }

    private static func write(_ c: Closed, to o: inout JSONObject) {
        o.string("at", c.at)
        o.string("by", c.by)
        o.string("comment", c.comment)
        o.string("follows_up", c.followsUp)
        o.string("outcome", c.outcome.rawValue)
        o.string("recipient", c.recipient)
    }

    private static func write(_ d: Decision, to o: inout JSONObject) {
        o.string("action", d.action.rawValue)
        o.string("at", d.at)
        o.string("by", d.by)
        o.string("comment", d.comment)
        o.string("outcome", d.outcome.rawValue)
        o.string("reason", d.reason)
        o.string("recipient", d.recipient)
    }
}

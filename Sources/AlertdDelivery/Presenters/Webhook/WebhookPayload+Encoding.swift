import Foundation
import AlertModel

extension WebhookPayload {
    /// The JSON bytes, keys sorted so equal payloads give equal bytes.
    /// Written by hand: it runs for every delivery, and `JSONEncoder` was
    /// the largest single cost of a webhook delivery in profiles. A test
    /// holds it to the `Encodable` conformance, which stays the reference.
    public func encoded() throws -> Data {
        var out = "{\"alert\":" + Self.json(alert)
        if let decision { out += ",\"decision\":" + Self.json(decision) }
        out += ",\"delivery\":{\"attempt\":\(delivery.attempt),\"id\":\(AlertSpec.quoted(delivery.id))}"
        out += ",\"type\":\(AlertSpec.quoted(type.rawValue)),\"version\":\(version)}"
        return Data(out.utf8)
    }

    private static func json(_ a: AlertBody) -> String {
        func optional(_ s: String?) -> String { s.map(AlertSpec.quoted) ?? "null" }
        let labels = a.labels.sorted { $0.key < $1.key }.map { "\(AlertSpec.quoted($0.key)):\(AlertSpec.quoted($0.value))" }
        return "{\"cancel\":\(a.cancel.map(json) ?? "null"),\"confirm\":\(a.confirm.map(json) ?? "null")"
            + ",\"created_at\":\(AlertSpec.quoted(timestamp(a.createdAt))),\"dedup_key\":\(optional(a.dedupKey))"
            + ",\"expires_after\":\(a.expiresAfter.map(String.init) ?? "null"),\"id\":\(AlertSpec.quoted(a.id))"
            + ",\"labels\":{\(labels.joined(separator: ","))},\"message\":\(optional(a.message))"
            + ",\"severity\":\"\(a.severity.rawValue)\",\"state\":\"\(a.state.rawValue)\",\"title\":\(AlertSpec.quoted(a.title))}"
    }

    private static func json(_ a: Action) -> String {
        "{\"label\":\(AlertSpec.quoted(a.label))" + (a.link.map { ",\"link\":\(AlertSpec.quoted($0))" } ?? "")
            + ",\"method\":\"\(a.method.rawValue)\",\"url\":\(AlertSpec.quoted(a.url))}"
    }

    private static func json(_ d: Decision) -> String {
        "{\"action\":\"\(d.action.rawValue)\",\"at\":\(AlertSpec.quoted(d.at)),\"by\":\(AlertSpec.quoted(d.by))"
            + (d.comment.map { ",\"comment\":\(AlertSpec.quoted($0))" } ?? "")
            + ",\"outcome\":\"\(d.outcome.rawValue)\"" + (d.reason.map { ",\"reason\":\(AlertSpec.quoted($0))" } ?? "") + "}"
    }
}

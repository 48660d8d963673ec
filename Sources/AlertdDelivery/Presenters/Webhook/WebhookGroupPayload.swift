import FoundationEssentials
import AlertModel

/// The JSON body of a group notification to a webhook: `"type": "group"`
/// and a `group` object in place of `alert`. Every firing alert is listed
/// (a receiver is a program, not a person scrolling), each with its action
/// links, repeats and whether it is new; a published contract like
/// ``WebhookPayload``, to which it adds a type.
///
/// ```json
/// {
///   "version": 1,
///   "type": "group",
///   "group": {
///     "id": "g-3f9a0c1b2d4e5f60", "route": "rack", "labels": {"rack": "7"},
///     "reason": "first", "sequence": 1, "console_url": "https://alertd.example/ui/#/groups/g-3f9a0c1b2d4e5f60",
///     "counts": {"firing": 200, "new": 200, "closed": 0},
///     "firing": [{"id": "…", "title": "NodeDown", "new": true, "repeats": null, "confirm": {"link": "https://…", …}, …}],
///     "new_alert_ids": ["…"],
///     "closed": []
///   },
///   "delivery": {"id": "…", "attempt": 1}
/// }
/// ```
public struct WebhookGroupPayload: Sendable {
    public static let type = WebhookPayload.EventType(rawValue: "group")

    public var notification: AlertGroupNotification
    public var delivery: WebhookPayload.Delivery

    public init(_ notification: AlertGroupNotification, delivery: DeliveryContext) {
        self.notification = notification
        self.delivery = WebhookPayload.Delivery(id: delivery.deliveryID.rawValue, attempt: delivery.attempt)
    }

    /// The JSON bytes, keys sorted, through the one JSON writer.
    public func encoded() -> Data {
        let n = notification
        var counts = JSONObject()
        counts.int("firing", Int64(n.firing.count))
        counts.int("new", Int64(n.newAlertIDs.count))
        counts.int("closed", Int64(n.closed.count))
        var g = JSONObject(absent: .null)
        g.string("id", n.groupID.rawValue)
        g.string("route", n.route)
        g.strings("labels", Dictionary(n.groupLabels.map { ($0.name, $0.value) }) { a, _ in a })
        g.string("reason", n.reason.rawValue)
        g.int("sequence", Int64(n.sequence))
        g.string("console_url", n.consoleURL)
        g.object("counts", counts)
        g.raw("firing", Self.array(n.firing.map { alert in
            var o = JSONObject(absent: .null)
            WebhookPayload.write(WebhookPayload.AlertBody(alert, links: n.actionLinks[alert.id] ?? [:]), to: &o)
            o.raw("new", n.newAlertIDs.contains(alert.id) ? "true" : "false")
            o.object("repeats", Self.json(alert.repeats))
            return o.json
        }))
        // Oldest first, as `firing` lists them.
        g.raw("new_alert_ids", Self.array(n.firing.filter { n.newAlertIDs.contains($0.id) }.map { JSONObject.quoted($0.id.rawValue) }))
        g.raw("closed", Self.array(n.closed.map { alert in
            var o = JSONObject(absent: .null)
            WebhookPayload.write(WebhookPayload.AlertBody(alert), to: &o)
            o.object("repeats", Self.json(alert.repeats))
            return o.json
        }))
        var d = JSONObject()
        d.int("attempt", Int64(delivery.attempt))
        d.string("id", delivery.id)
        var o = JSONObject()
        o.object("group", g)
        o.object("delivery", d)
        o.string("type", Self.type.rawValue)
        o.int("version", Int64(WebhookPayload.currentVersion))
        return o.jsonData
    }

    private static func array(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }

    /// `{"count": 3, "last_seen_at": "…"}`, or nil (written as null).
    private static func json(_ repeats: AlertRepeats?) -> JSONObject? {
        repeats.map { r in
            var o = JSONObject()
            o.int("count", Int64(r.count))
            o.string("last_seen_at", WebhookPayload.timestamp(r.lastSeenAt))
            return o
        }
    }
}

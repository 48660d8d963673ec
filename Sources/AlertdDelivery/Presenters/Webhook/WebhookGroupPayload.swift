import FoundationEssentials
import AlertModel

/// The JSON body of a group notification to a webhook: `"type": "group"`
/// and a `group` object in place of `alert`. Every firing alert is listed
/// (a receiver is a program, not a person scrolling), up to the presenter's
/// `max_alerts`, each with its action links, repeats and whether it is new;
/// a published contract like ``WebhookPayload``, to which it adds a type.
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
///     "closed": [],
///     "truncated": 0
///   },
///   "delivery": {"id": "…", "attempt": 1}
/// }
/// ```
public struct WebhookGroupPayload: Sendable {
    public static let type = WebhookPayload.EventType(rawValue: "group")

    public var notification: AlertGroupNotification
    public var delivery: WebhookPayload.Delivery
    /// The most alerts listed, firing first, then closed (0: all); the
    /// rest are counted in `truncated`, while `counts` stay whole.
    public var maxAlerts: Int

    public init(_ notification: AlertGroupNotification, delivery: DeliveryContext, maxAlerts: Int = 0) {
        self.notification = notification
        self.delivery = WebhookPayload.Delivery(id: delivery.deliveryID.rawValue, attempt: delivery.attempt)
        self.maxAlerts = maxAlerts
    }

    /// The JSON bytes, keys sorted, through the one JSON writer: every
    /// object written in key order, straight into one buffer, since a big
    /// group's payload lists hundreds of alerts and each notification is
    /// written again for every attempt.
    public func encoded() -> Data {
        let n = notification
        let listed = n.listed(atMost: maxAlerts)
        var o = JSONObject(capacity: 1_024 + 768 * (listed.firing.count + listed.closed.count))
        o.object("delivery") { d in
            d.int("attempt", Int64(delivery.attempt))
            d.string("id", delivery.id)
        }
        o.object("group", absent: .null) { g in
            g.objects("closed", listed.closed, absent: .null) { o, alert in
                WebhookPayload.write(WebhookPayload.AlertBody(alert), to: &o) { Self.write(alert.repeats, to: &$0) }
            }
            g.string("console_url", n.consoleURL)
            g.object("counts") { c in
                c.int("closed", Int64(n.closed.count))
                c.int("firing", Int64(n.firing.count))
                c.int("new", Int64(n.newAlertIDs.count))
            }
            g.objects("firing", listed.firing, absent: .null) { o, alert in
                WebhookPayload.write(WebhookPayload.AlertBody(alert, links: n.actionLinks[alert.id] ?? [:]), to: &o) {
                    $0.raw("new", n.newAlertIDs.contains(alert.id) ? "true" : "false")
                    Self.write(alert.repeats, to: &$0)
                }
            }
            g.string("id", n.groupID.rawValue)
            g.strings("labels", Dictionary(n.groupLabels.map { ($0.name, $0.value) }) { a, _ in a })
            // Oldest first, as `firing` lists them.
            g.list("new_alert_ids", n.firing.lazy.filter { n.newAlertIDs.contains($0.id) }.map(\.id.rawValue))
            g.string("reason", n.reason.rawValue)
            g.string("route", n.route)
            g.int("sequence", Int64(n.sequence))
            g.int("truncated", Int64(listed.leftOut))
        }
        o.string("type", Self.type.rawValue)
        o.int("version", Int64(WebhookPayload.currentVersion))
        return o.jsonData
    }

    /// `"repeats": {"count": 3, "last_seen_at": "…"}`, or null.
    private static func write(_ repeats: AlertRepeats?, to o: inout JSONObject) {
        guard let repeats else { return o.absent("repeats") }
        o.object("repeats") { r in
            r.int("count", Int64(repeats.count))
            r.string("last_seen_at", WebhookPayload.timestamp(repeats.lastSeenAt))
        }
    }
}

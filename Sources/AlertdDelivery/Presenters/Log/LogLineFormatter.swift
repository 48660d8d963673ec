import FoundationEssentials
import AlertModel
import AlertdLogging

/// Turns an alert into one log line (without the newline). Pure, so tests
/// pin lines exactly; the same alert and time always give the same bytes.
public enum LogLineFormatter {
    /// The line for `alert`, stamped `timestamp` (when it is logged).
    public static func line(
        _ alert: Alert, delivery: DeliveryContext, format: LogPresenterConfiguration.Format, timestamp: Date
    ) -> String {
        switch format {
        case .jsonLines: json(alert, delivery: delivery, timestamp: timestamp)
        case .logfmt: logfmt(alert, delivery: delivery, timestamp: timestamp)
        }
    }

    /// The line's fields in reading order: time and identity first, then
    /// content, then delivery. JSON sorts them; logfmt keeps this order.
    private static func fields(_ alert: Alert, _ delivery: DeliveryContext, _ timestamp: Date) -> [(String, String)] {
        let spec = alert.spec
        if let f = delivery.followUp {
            // A follow-up says what happened to an alert already logged.
            var pairs = [("ts", UTCTimestamp.iso8601(timestamp)), ("id", alert.id.rawValue), ("event", "closed"),
                         ("outcome", f.outcome.rawValue), ("by", f.decision.actor)]
            if let comment = f.decision.comment { pairs.append(("comment", comment)) }
            pairs += [("title", spec.title), ("follows_up", f.original.rawValue), ("delivery_id", delivery.deliveryID.rawValue),
                      ("attempt", String(delivery.attempt)), ("closed_at", UTCTimestamp.iso8601(f.decision.at))]
            return pairs
        }
        var pairs = [("ts", UTCTimestamp.iso8601(timestamp)), ("id", alert.id.rawValue), ("severity", spec.severity.rawValue),
                     ("title", spec.title)]
        if let message = spec.message { pairs.append(("message", message)) }
        for (name, value) in spec.labels.sorted(by: { $0.key < $1.key }) { pairs.append(("labels.\(name)", value)) }
        // Invisible characters a dedup key may keep, marked as alertctl shows them: the log is read by people too.
        if let key = spec.dedupKey { pairs.append(("dedup_key", TextPolicy.replacingRefused(in: key, .line))) }
        // Each action's label and, when alertd offers a signed link for it,
        // that there is one, with its token redacted: the token decides the
        // alert for whoever reads it, and log lines travel far and last.
        for kind in ActionKind.allCases {
            guard let action = spec.action(kind) else { continue }
            pairs.append((kind.rawValue, action.label))
            if let link = delivery.actionLinks[kind] { pairs.append(("\(kind.rawValue)_link", ActionLinkSigner.redacted(link))) }
        }
        pairs += [("delivery_id", delivery.deliveryID.rawValue), ("attempt", String(delivery.attempt)),
                  ("created_at", UTCTimestamp.iso8601(alert.createdAt))]
        return pairs
    }

    private static func json(_ alert: Alert, delivery: DeliveryContext, timestamp: Date) -> String {
        var o = JSONObject()
        for (key, value) in fields(alert, delivery, timestamp) where !key.hasPrefix("labels.") && key != "attempt" {
            o.string(key, value)
        }
        if delivery.followUp == nil { o.strings("labels", alert.spec.labels) }
        o.int("attempt", Int64(delivery.attempt))
        return o.json
    }

    private static func logfmt(_ alert: Alert, delivery: DeliveryContext, timestamp: Date) -> String {
        fields(alert, delivery, timestamp).map { "\($0.0)=\(Logfmt.value($0.1))" }.joined(separator: " ")
    }
}

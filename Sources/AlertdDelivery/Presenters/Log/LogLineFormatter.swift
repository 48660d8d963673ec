import Foundation
import AlertModel

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

    /// The fields, named as in the JSON line.
    private struct Record: Encodable {
        package let ts: String
        package let id: String
        package let severity: String
        package let title: String
        package let message: String?
        package let labels: [String: String]
        package let dedupKey: String?
        package let deliveryID: String
        package let attempt: Int
        package let createdAt: String
        /// Each action's label, and the signed link that decides it when alertd offers one.
        package let confirm: String?
        package let confirmLink: String?
        package let cancel: String?
        package let cancelLink: String?

        package enum CodingKeys: String, CodingKey {
            case ts, id, severity, title, message, labels, attempt, confirm, cancel
            case confirmLink = "confirm_link"
            case cancelLink = "cancel_link"
            case dedupKey = "dedup_key"
            case deliveryID = "delivery_id"
            case createdAt = "created_at"
        }

        package init(_ alert: Alert, _ delivery: DeliveryContext, _ timestamp: Date) {
            ts = UTCTimestamp.iso8601(timestamp)
            id = alert.id.rawValue
            severity = alert.spec.severity.rawValue
            title = alert.spec.title
            message = alert.spec.message
            labels = alert.spec.labels
            dedupKey = alert.spec.dedupKey
            deliveryID = delivery.deliveryID.rawValue
            attempt = delivery.attempt
            createdAt = UTCTimestamp.iso8601(alert.createdAt)
            confirm = alert.spec.confirm?.label
            confirmLink = alert.spec.confirm == nil ? nil : delivery.actionLinks[.confirm]
            cancel = alert.spec.cancel?.label
            cancelLink = alert.spec.cancel == nil ? nil : delivery.actionLinks[.cancel]
        }
    }

    private static func json(_ alert: Alert, delivery: DeliveryContext, timestamp: Date) -> String {
        let encoder = JSONEncoder()
        // Sorted keys make lines stable; the encoder escapes newlines, so the record stays on one line.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(Record(alert, delivery, timestamp)) else {
            // Encoding strings and integers cannot fail; keep a line anyway rather than lose the alert.
            return #"{"error":"unencodable alert","id":"\#(alert.id.rawValue)"}"#
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Fields in reading order: time and identity first, then content, then delivery.
    private static func logfmt(_ alert: Alert, delivery: DeliveryContext, timestamp: Date) -> String {
        let r = Record(alert, delivery, timestamp)
        var pairs: [(String, String)] = [("ts", r.ts), ("id", r.id), ("severity", r.severity), ("title", r.title)]
        if let message = r.message { pairs.append(("message", message)) }
        for (name, value) in r.labels.sorted(by: { $0.key < $1.key }) { pairs.append(("labels.\(name)", value)) }
        if let key = r.dedupKey { pairs.append(("dedup_key", key)) }
        for (name, value) in [("confirm", r.confirm), ("confirm_link", r.confirmLink), ("cancel", r.cancel), ("cancel_link", r.cancelLink)] {
            if let value { pairs.append((name, value)) }
        }
        pairs += [("delivery_id", r.deliveryID), ("attempt", String(r.attempt)), ("created_at", r.createdAt)]
        return pairs.map { "\($0.0)=\(logfmtValue($0.1))" }.joined(separator: " ")
    }

    /// Quotes a value when it is empty or holds a space, `=`, `"`, `\` or a
    /// control character, escaping inside the quotes so the line stays one line.
    package static func logfmtValue(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.unicodeScalars.contains {
            $0 == " " || $0 == "=" || $0 == "\"" || $0 == "\\" || $0.properties.generalCategory == .control
        }
        guard needsQuotes else { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.properties.generalCategory == .control {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

import Foundation

/// How alertd writes times: RFC 3339 in UTC with milliseconds,
/// `2024-07-01T12:00:00.123Z`, in the API, webhooks, logs and events alike.
enum Timestamp {
    /// Rounds to the nearest millisecond: the format style alone would
    /// truncate, and a `Date` read back from milliseconds is often a hair
    /// below its value, so the same instant would print two ways.
    static func rfc3339(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, fraction) = millis.quotientAndRemainder(dividingBy: 1000)
        let whole = seconds - (fraction < 0 ? 1 : 0)
        let ms = (fraction + 1000) % 1000
        let base = Date.ISO8601FormatStyle().format(Date(timeIntervalSince1970: TimeInterval(whole)))
        return base.dropLast() + "." + String(repeating: "0", count: ms < 10 ? 2 : ms < 100 ? 1 : 0) + String(ms) + "Z"
    }
}

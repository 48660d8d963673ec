import FoundationEssentials
import AlertModel

extension HTTPHeaders {
    /// The `Retry-After` hint (RFC 9110 §10.2.3): a number of seconds, or an
    /// HTTP date, turned into a wait from `now`. A date in the past means
    /// "now" (zero); anything unreadable is no hint.
    public func retryAfter(relativeTo now: Date = Date()) -> Duration? {
        guard let raw = self["Retry-After"]?.trimmingSpaces(), !raw.isEmpty else { return nil }
        if raw.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // More digits than Int64 holds still mean "not soon", not "no hint".
            return Double(raw).flatMap(Duration.peerHint(seconds:))
        }
        guard let date = Self.httpDate(raw, now: now) else { return nil }
        return Duration.peerHint(seconds: date.timeIntervalSince(now).rounded(.up))
    }

    /// Reads IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), and the obsolete
    /// RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
    /// (`Sun Nov  6 08:49:37 1994`) forms that RFC 9110 §5.6.7 says
    /// recipients must accept. The weekday is not checked.
    package static func httpDate(_ text: String, now: Date = Date()) -> Date? {
        let parts = text.split(separator: " ")
        let day: Substring, month: Substring, year: Substring, time: Substring
        switch parts.count {
        case 6 where parts[0].hasSuffix(",") && parts[5] == "GMT":
            (day, month, year, time) = (parts[1], parts[2], parts[3], parts[4])
        case 4 where parts[0].hasSuffix(",") && parts[3] == "GMT":
            let date = parts[1].split(separator: "-", omittingEmptySubsequences: false)
            guard date.count == 3 else { return nil }
            (day, month, year, time) = (date[0], date[1], date[2], parts[2])
        case 5:
            (day, month, year, time) = (parts[2], parts[1], parts[4], parts[3])
        default:
            return nil
        }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let monthIndex = months.firstIndex(where: { $0 == month }), day.count <= 2, let d = Int(day), (1...31).contains(d),
              year.count == 2 || year.count == 4, var y = Int(year), clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
              let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
              hour < 24, minute < 60, second < 61 else { return nil }
        if year.count == 2 {
            // RFC 9110: a two-digit year more than 50 years ahead is in the past century.
            let thisYear = Int(UTCTimestamp.civil(daysSinceEpoch: Int64((now.timeIntervalSince1970 / 86_400).rounded(.down))).year)
            y += thisYear / 100 * 100
            if y > thisYear + 50 { y -= 100 }
        }
        let days = UTCTimestamp.daysSinceEpoch(year: y, month: monthIndex + 1, day: d)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }
}

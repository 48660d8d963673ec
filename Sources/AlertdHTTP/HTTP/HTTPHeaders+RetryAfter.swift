import Foundation

extension HTTPHeaders {
    /// The `Retry-After` hint (RFC 9110 §10.2.3): a number of seconds, or an
    /// HTTP date, turned into a wait from `now`. A date in the past means
    /// "now" (zero); anything unreadable is no hint.
    public func retryAfter(relativeTo now: Date = Date()) -> Duration? {
        guard let raw = self["Retry-After"]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        if raw.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return Int64(raw).map { .seconds($0) }
        }
        guard let date = Self.httpDate(raw) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds > 0 ? .seconds(Int64(seconds.rounded(.up))) : .zero
    }

    /// Reads IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), and the obsolete
    /// RFC 850 and asctime forms that RFC 9110 says recipients must accept.
    package static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}

import FoundationEssentials

/// Dates as UTC text, computed by arithmetic rather than a `DateFormatter`,
/// so output never depends on the machine's locale or time zone.
package enum UTCTimestamp {
    /// `2025-06-01T12:00:00.000Z` (RFC 3339, UTC, milliseconds): how alertd
    /// writes times everywhere, in the API, webhooks, logs and events alike.
    package static func iso8601(_ date: Date) -> String {
        let (days, millisOfDay) = floorDivide(millis(date), 86_400_000)
        let (year, month, day) = civil(daysSinceEpoch: days)
        guard (0...9999).contains(year) else {
            let c = components(date)
            return "\(c.date)T\(c.time).\(pad(c.millis, 3))Z"
        }
        // Digit by digit into the string's own storage: this runs for every
        // webhook body and API answer, where interpolating padded pieces
        // made a dozen small strings per call.
        let seconds = Int(millisOfDay / 1000)
        let fields: [(value: Int, width: Int, after: UInt8)] = [
            (Int(year), 4, UInt8(ascii: "-")), (Int(month), 2, UInt8(ascii: "-")), (Int(day), 2, UInt8(ascii: "T")),
            (seconds / 3600, 2, UInt8(ascii: ":")), (seconds / 60 % 60, 2, UInt8(ascii: ":")), (seconds % 60, 2, UInt8(ascii: ".")),
            (Int(millisOfDay % 1000), 3, UInt8(ascii: "Z")),
        ]
        return String(unsafeUninitializedCapacity: 24) { buffer in
            var at = 0
            for field in fields {
                var value = field.value
                for i in stride(from: field.width - 1, through: 0, by: -1) {
                    buffer[at + i] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                buffer[at + field.width] = field.after
                at += field.width + 1
            }
            return at
        }
    }

    /// `2025-06-01 12:00:00 UTC`, for people.
    package static func readable(_ date: Date) -> String {
        dateTime(date) + " UTC"
    }

    /// `2025-06-01 12:00:00`, for columns whose header already says UTC.
    package static func dateTime(_ date: Date) -> String {
        let c = components(date)
        return "\(c.date) \(c.time)"
    }

    /// Milliseconds since 1970, held at Int64's ends: a date past them (an
    /// expiry of a hostile server's making, added to its alert's creation)
    /// prints there, where converting it trapped.
    package static func millis(_ date: Date) -> Int64 {
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        return Int64(exactly: millis) ?? (millis > 0 ? .max : .min)
    }

    private static func components(_ date: Date) -> (date: String, time: String, millis: Int) {
        // Rounded, not truncated: a `Date` read back from milliseconds is often
        // a hair below its value, and the same instant must print one way.
        let (days, millisOfDay) = floorDivide(millis(date), 86_400_000)
        let seconds = Int(millisOfDay / 1000)
        let (year, month, day) = civil(daysSinceEpoch: days)
        let dateText = "\(pad(Int(year), 4))-\(pad(Int(month), 2))-\(pad(Int(day), 2))"
        let timeText = "\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2))"
        return (dateText, timeText, Int(millisOfDay % 1000))
    }

    /// The calendar date `days` after 1970-01-01: Howard Hinnant's
    /// days-to-civil algorithm (proleptic Gregorian calendar), so no output
    /// of alertd depends on the machine's locale or time zone.
    package static func civil(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date: the inverse of
    /// ``civil(daysSinceEpoch:)`` (H. Hinnant's days-from-civil).
    package static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    private static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}

import FoundationEssentials

/// RFC 3339 times as Go writes them, which is how Prometheus and
/// Alertmanager send them: `2026-05-05T12:00:00Z`, with any number of
/// fractional digits and `Z` or a `±hh:mm` offset.
package enum RFC3339 {
    /// Go's zero time, which Alertmanager sends for "no end yet".
    package static let goZero = Date(timeIntervalSince1970: -62_135_596_800)

    /// The time, or nil when `text` is not RFC 3339.
    package static func parse(_ text: String) -> Date? {
        let b = Array(text.utf8)
        func digits(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= b.count else { return nil }
            var n = 0
            for c in b[at..<(at + count)] {
                guard (48...57).contains(c) else { return nil }
                n = n * 10 + Int(c - 48)
            }
            return n
        }
        guard b.count >= 20, let year = digits(0, 4), b[4] == 45, let month = digits(5, 2), b[7] == 45, let day = digits(8, 2),
              [84, 116, 32].contains(b[10]), let hour = digits(11, 2), b[13] == 58, let minute = digits(14, 2), b[16] == 58,
              let second = digits(17, 2), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var i = 19
        var fraction = 0.0
        if b[i] == 46 {
            i += 1
            var scale = 0.1
            let start = i
            while i < b.count, (48...57).contains(b[i]) {
                fraction += Double(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        guard i < b.count else { return nil }
        var offset = 0
        if b[i] == 90 || b[i] == 122 {
            i += 1
        } else if b[i] == 43 || b[i] == 45, let h = digits(i + 1, 2), i + 3 < b.count, b[i + 3] == 58, let m = digits(i + 4, 2),
                  h < 24, m < 60 {
            offset = (h * 3600 + m * 60) * (b[i] == 45 ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = UTCTimestamp.daysSinceEpoch(year: year, month: month, day: day)
        // A day past its month's end (`02-30`) would be read as a day of the next.
        guard UTCTimestamp.civil(daysSinceEpoch: Int64(days)).month == Int64(month) else { return nil }
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
        // Past the last millisecond of 9999 (after an offset, a leap second
        // or rounding to the millisecond alertd keeps) the year has five
        // digits when written back, which Go and amtool cannot read.
        guard (seconds * 1000).rounded() <= lastMillisecond else { return nil }
        // Before year 0 (`0000-01-01T00:00:00+01:00`) it has no four-digit year either.
        guard seconds >= firstSecond else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// 9999-12-31T23:59:59.999Z, in milliseconds since 1970.
    private static let lastMillisecond = 253_402_300_799_999.0
    /// 0000-01-01T00:00:00Z, in seconds since 1970.
    private static let firstSecond = -62_167_219_200.0

    /// Whether `date` is Go's zero time (or earlier): no time at all.
    package static func isUnset(_ date: Date) -> Bool { date <= goZero }
}

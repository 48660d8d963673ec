/// A length of time with whole-second resolution, written as `90s`, `30m`,
/// `1h30m`, `2d` or a bare number of seconds.
public struct AlertDuration: Sendable, Equatable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The length in whole seconds.
    public let seconds: Int64

    public static func seconds(_ s: Int64) -> AlertDuration { AlertDuration(seconds: s) }
    public static func minutes(_ m: Int64) -> AlertDuration { AlertDuration(seconds: m * 60) }
    public static func hours(_ h: Int64) -> AlertDuration { AlertDuration(seconds: h * 3600) }

    public init(seconds: Int64) {
        self.seconds = seconds
    }

    /// Parses `30m`, `1h30m`, `45s`, `2d`, `1w` or a bare number of seconds.
    /// Returns nil for anything else, including an empty string or an overflow.
    public init?(parsing text: String) {
        let trimmed = text.trimmingSpaces()
        guard !trimmed.isEmpty else { return nil }
        if let whole = Int64(trimmed) {
            guard whole >= 0 else { return nil }
            self.seconds = whole
            return
        }
        var total: Int64 = 0
        var number: Int64? = nil
        // Units from largest to smallest, each once: "30m1h" and "1h1h" are
        // slips more likely than sums.
        var previousUnit = Int64.max
        for ch in trimmed {
            if let digit = ch.wholeNumberValue, ch.isASCII {
                let (m, o1) = (number ?? 0).multipliedReportingOverflow(by: 10)
                let (s, o2) = m.addingReportingOverflow(Int64(digit))
                if o1 || o2 { return nil }
                number = s
                continue
            }
            guard let n = number else { return nil }
            let unit: Int64
            switch ch {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3_600
            case "d": unit = 86_400
            case "w": unit = 604_800
            default: return nil
            }
            guard unit < previousUnit else { return nil }
            previousUnit = unit
            let (p, o1) = n.multipliedReportingOverflow(by: unit)
            let (s, o2) = total.addingReportingOverflow(p)
            if o1 || o2 { return nil }
            total = s
            number = nil
        }
        // A trailing number without a unit ("1h30") is ambiguous: reject it.
        guard number == nil else { return nil }
        self.seconds = total
    }

    /// How a duration is written: the sentence after a problem's.
    public static let spellingHint = "Write a number with a unit, units from largest to smallest, e.g. 90s, 30m, 1h30m, 1d (a bare number is seconds)."

    /// The canonical short form: `1h30m`, `45s`, `0s`.
    public var description: String {
        if seconds == 0 { return "0s" }
        var rest = seconds
        var out = ""
        for (unit, name) in [(Int64(86_400), "d"), (3_600, "h"), (60, "m"), (1, "s")] where rest >= unit {
            out += "\(rest / unit)\(name)"
            rest %= unit
        }
        return out
    }

    /// As a Swift `Duration`, for sleeping and deadlines.
    public var duration: Duration { .seconds(seconds) }

    public static func < (lhs: AlertDuration, rhs: AlertDuration) -> Bool { lhs.seconds < rhs.seconds }

    /// Encoded as a number of seconds; decoded from a number or a duration string.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(seconds)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(Int64.self) {
            guard s >= 0 else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "a duration cannot be negative")
            }
            self.seconds = s
        } else {
            let text = try c.decode(String.self)
            guard let parsed = AlertDuration(parsing: text) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a duration: \(text)")
            }
            self = parsed
        }
    }
}

import FoundationEssentials

import FoundationEssentials
import AlertModel

/// How fast one presenter may be sent to: `rate` deliveries per second on
/// average, with up to `burst` at once after a quiet spell. Deliveries over
/// the limit stay pending in the store's queue until a token frees up.
public struct RateLimit: Sendable, Equatable {
    /// Deliveries per second, on average.
    public var perSecond: Double
    /// Deliveries that may go out back to back (the bucket's size).
    public var burst: Int

    public init(perSecond: Double, burst: Int) {
        self.perSecond = perSecond
        self.burst = max(1, burst)
    }

    /// Reads `rate` (a number per second, or `"N/s"`, `"N/m"`, `"N/h"`) and
    /// `burst` (default: one second's worth, at least 1) from a presenter's
    /// object; nil without `rate`, a `burst` alone being a problem.
    public static func read(_ object: [String: Any], at path: String, _ reader: JSONConfigReader) -> RateLimit? {
        let burst = reader.int(object, "burst", at: path, range: 1...100_000)
        guard let raw = object["rate"] else {
            if burst != nil { reader.problem(reader.join(path, "burst"), "needs a rate; add e.g. \"rate\": \"30/m\"") }
            return nil
        }
        guard let perSecond = parse(raw) else {
            reader.problem(reader.join(path, "rate"), "must be deliveries per second (a positive number) or a string such as \"30/m\", \"5/s\" or \"100/h\"")
            return nil
        }
        // Out of these, a rate's arithmetic overflowed and the daemon
        // trapped: reading 1e300/s, and at the second delivery at 1e-17/s.
        guard allowed.contains(perSecond) else {
            reader.problem(reader.join(path, "rate"), "must be from 1 a week (\"0.006/h\") to 1,000,000 a second; leave it out for no limit")
            return nil
        }
        return RateLimit(perSecond: perSecond, burst: burst ?? min(100_000, max(1, Int(perSecond.rounded(.up)))))
    }

    /// The rates a configuration may give, per second: one a week to a million a second.
    static let allowed = (1.0 / 604_800)...1_000_000

    /// A positive number of deliveries per second, or `N/s`, `N/m`, `N/h`.
    static func parse(_ raw: Any) -> Double? {
        if let n = StrictJSON.number(raw) { return n > 0 && n.isFinite ? n : nil }
        guard let text = raw as? String else { return nil }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let n = Double(parts[0].trimmingSpaces()), n > 0, n.isFinite else { return nil }
        switch parts[1].trimmingSpaces() {
        case "s": return n
        case "m": return n / 60
        case "h": return n / 3600
        default: return nil
        }
    }
}

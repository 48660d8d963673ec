import FoundationEssentials

/// A group's identity: `g-` and 16 hex digits of a 64-bit FNV-1a hash over
/// its route and the values of its route's `group_by` labels. The same
/// route and label values always give the same id, on every node and across
/// restarts, so a group is found again without a lookup table.
public struct AlertGroupID: Hashable, Sendable, Codable, CustomStringConvertible, Comparable {
    public let rawValue: String

    /// Accepts `g-` followed by 16 lowercase hex digits; nil otherwise.
    public init?(_ text: String) {
        let hex = text.utf8.dropFirst(2)
        guard text.hasPrefix("g-"), hex.count == 16,
              hex.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        rawValue = text
    }

    package init(trusted rawValue: String) { self.rawValue = rawValue }

    /// The group of `route` whose grouping labels have these values.
    /// Label order does not matter: they are sorted first. `taken` counts
    /// the ids before this one that other groups already hold: a 64-bit
    /// hash has collisions a sender can find in minutes, and a group whose
    /// id another route's or other labels' group holds takes the next.
    public init(route: String, labels: [AlertLabel], taken: Int = 0) {
        // NUL cannot occur in a route name or a label (the spec refuses
        // control characters), so the canonical string is unambiguous.
        var canonical = route
        for label in labels.sorted() {
            canonical += "\u{0}\(label.name)=\(label.value)"
        }
        if taken > 0 { canonical += "\u{0}\u{0}\(taken)" }
        var hash = FNV1a()
        hash.add(canonical)
        rawValue = "g-" + hash.hex
    }

    public var description: String { rawValue }

    public static func < (a: AlertGroupID, b: AlertGroupID) -> Bool { a.rawValue < b.rawValue }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let s = try c.decode(String.self)
        guard let id = AlertGroupID(s) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a group id: \(s)")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

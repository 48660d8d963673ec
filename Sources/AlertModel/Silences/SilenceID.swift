import FoundationEssentials

/// A silence's identity: a random UUID in lowercase, as Alertmanager's are.
public struct SilenceID: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// A new random id.
    public static func generate() -> SilenceID { SilenceID(rawValue: UUID().uuidString.lowercased()) }

    public var description: String { rawValue }

    public static func < (a: SilenceID, b: SilenceID) -> Bool { a.rawValue < b.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

import FoundationEssentials

/// How often an open alert was sent again and folded into itself by its
/// dedup key, and when that last happened: what a storm of re-sends left
/// behind, visible where the alert is shown.
public struct AlertRepeats: Sendable, Equatable, Codable {
    /// Re-sends folded in, not counting the first.
    public var count: Int
    /// When the latest re-send arrived.
    public var lastSeenAt: Date

    public init(count: Int, lastSeenAt: Date) {
        self.count = count
        self.lastSeenAt = lastSeenAt
    }

    package enum CodingKeys: String, CodingKey {
        case count
        case lastSeenAt = "last_seen_at"
    }
}

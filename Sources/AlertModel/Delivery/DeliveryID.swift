/// A delivery's id: derived from its alert's id, so it is as unique and as
/// sortable as that, costs no randomness, and stays the same across retries
/// (receivers see it as `webhook-id` and drop duplicates by it).
public struct DeliveryID: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral value: String) { rawValue = value }

    /// The `index`th presenter the alert's route chose: `<alert>.0`.
    public static func routed(_ alert: AlertID, _ index: Int) -> DeliveryID {
        // Joined by hand: interpolation cost more than the rest of making a
        // delivery's record, and this runs for every delivery of every alert.
        var id = alert.rawValue
        id.reserveCapacity(alert.rawValue.utf8.count + 4)
        id.append(".")
        id.append(String(index))
        return DeliveryID(rawValue: id)
    }

    /// The `index`th presenter its escalation added: `<alert>.e0`.
    public static func escalated(_ alert: AlertID, _ index: Int) -> DeliveryID { DeliveryID(rawValue: "\(alert.rawValue).e\(index)") }

    /// The call of the handler of `action`: `<alert>.confirm`. One per alert
    /// at most, since only the first decision wins.
    public static func handler(_ alert: AlertID, _ action: ActionKind) -> DeliveryID {
        DeliveryID(rawValue: "\(alert.rawValue).\(action.rawValue)")
    }

    /// The follow-up telling `original`'s presenter that the alert closed:
    /// `<alert>.0.closed`. One per original at most.
    public static func followUp(of original: DeliveryID) -> DeliveryID { DeliveryID(rawValue: "\(original.rawValue).closed") }

    public var description: String { rawValue }

    public static func < (a: DeliveryID, b: DeliveryID) -> Bool { a.rawValue < b.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

extension DeliveryID {
    /// The `sequence`th notification of `group` (formed at `generation`,
    /// its creation in milliseconds) to `presenter`:
    /// `group:g-0123456789abcdef:1733068800000:3:ops-chat`. Retries keep it;
    /// a group that ends and forms again starts new ids.
    public static func group(_ group: AlertGroupID, generation: Int64, _ sequence: Int, presenter: String) -> DeliveryID {
        DeliveryID(rawValue: "group:\(group.rawValue):\(generation):\(sequence):\(presenter)")
    }

    /// For a group notification, the id the group's next notification to
    /// the same presenter takes (the same group as formed then); nil for
    /// any other delivery.
    public var nextGroupNotification: DeliveryID? {
        groupNotification.map { .group($0.group, generation: $0.generation, $0.sequence + 1, presenter: $0.presenter) }
    }

    /// For a group notification after the first, the id of the one before
    /// it to the same presenter; nil for a first and for any other delivery.
    public var previousGroupNotification: DeliveryID? {
        groupNotification.flatMap { n in
            n.sequence > 1 ? .group(n.group, generation: n.generation, n.sequence - 1, presenter: n.presenter) : nil
        }
    }

    /// The parts of a group notification's id; nil for any other delivery.
    public var groupNotification: (group: AlertGroupID, generation: Int64, sequence: Int, presenter: String)? {
        guard rawValue.hasPrefix("group:") else { return nil }
        let parts = rawValue.split(separator: ":", maxSplits: 4, omittingEmptySubsequences: false)
        guard parts.count == 5, let group = AlertGroupID(String(parts[1])), let generation = Int64(parts[2]),
              let sequence = Int(parts[3]) else { return nil }
        return (group, generation, sequence, String(parts[4]))
    }
}

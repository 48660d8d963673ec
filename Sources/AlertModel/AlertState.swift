/// Where an alert is in its life. Every alert starts `open`; each of the
/// other states is final, reached by exactly one decision.
public enum AlertState: String, Sendable, Codable, CaseIterable {
    case open
    case confirmed
    case cancelled
    case expired
    case resolved

    /// True for every state but `open`.
    public var isFinal: Bool { self != .open }
}

/// Where one delivery stands.
public enum DeliveryState: String, Sendable, Codable, CaseIterable {
    case pending
    case inFlight = "in_flight"
    case delivered
    case dead
    /// Never made: a silence held it back until its alert closed.
    case silenced
}

/// Where one delivery stands.
public enum DeliveryState: String, Sendable, Codable, CaseIterable {
    case pending
    case inFlight = "in_flight"
    case delivered
    case dead
}

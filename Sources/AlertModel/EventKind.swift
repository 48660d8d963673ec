/// What an entry of the event log (`GET /v1/events`) says happened.
public enum EventKind: String, Sendable, Hashable, Codable, CaseIterable {
    case alertCreated = "alert.created"
    case alertConfirmed = "alert.confirmed"
    case alertCancelled = "alert.cancelled"
    case alertResolved = "alert.resolved"
    case alertExpired = "alert.expired"
    case alertEscalated = "alert.escalated"
    case deliverySucceeded = "delivery.succeeded"
    case deliveryFailed = "delivery.failed"
    case deliveryDead = "delivery.dead"
    /// A silence held a delivery back (`until` says till when), or withheld
    /// it for good because its alert closed meanwhile (no `until`).
    case deliverySilenced = "delivery.silenced"

    /// The event of an alert reaching `state`; nil for `open`, which no
    /// decision reaches.
    public static func closed(_ state: AlertState) -> EventKind? {
        switch state {
        case .open: nil
        case .confirmed: .alertConfirmed
        case .cancelled: .alertCancelled
        case .resolved: .alertResolved
        case .expired: .alertExpired
        }
    }

    /// The state an alert event closed the alert in, if it closed one.
    public var closedState: AlertState? {
        AlertState.allCases.first { Self.closed($0) == self }
    }
}

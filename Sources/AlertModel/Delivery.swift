import Foundation

/// Where one delivery stands.
public enum DeliveryState: String, Sendable, Codable, CaseIterable {
    case pending
    case inFlight = "in_flight"
    case delivered
    case dead
}

/// One presenter's delivery of one alert.
public struct DeliveryRecord: Sendable, Equatable, Codable {
    public let id: String
    public let alertID: AlertID
    public let presenter: String
    public var state: DeliveryState
    /// Attempts started so far.
    public var attempts: Int
    public var nextAttemptAt: Date?
    public var lastError: String?
    public let createdAt: Date
    public var updatedAt: Date
    public var deliveredAt: Date?

    package init(
        id: String, alertID: AlertID, presenter: String, state: DeliveryState, attempts: Int, nextAttemptAt: Date?,
        lastError: String?, createdAt: Date, updatedAt: Date, deliveredAt: Date?
    ) {
        self.id = id
        self.alertID = alertID
        self.presenter = presenter
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deliveredAt = deliveredAt
    }

    /// Delivery ids are derived from the alert id, so they are as unique and
    /// as sortable as it is, and cost no extra randomness.
    package static func deliveryID(alert: AlertID, index: Int) -> String { "\(alert.rawValue).\(index)" }

    package enum CodingKeys: String, CodingKey {
        case id, presenter, state, attempts
        case alertID = "alert_id"
        case nextAttemptAt = "next_attempt_at"
        case lastError = "last_error"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case deliveredAt = "delivered_at"
    }
}

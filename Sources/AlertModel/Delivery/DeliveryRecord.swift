import FoundationEssentials

/// One delivery of one alert: to a presenter, or to the handler of the
/// decision taken on it.
public struct DeliveryRecord: Sendable, Equatable, Codable {
    public let id: DeliveryID
    public let alertID: AlertID
    public let kind: DeliveryKind
    public var state: DeliveryState
    /// Attempts started so far.
    public var attempts: Int
    public var nextAttemptAt: Date?
    public var lastError: String?
    public let createdAt: Date
    public var updatedAt: Date
    public var deliveredAt: Date?
    /// The silence that last held this delivery back, if one ever did.
    public var silencedBy: SilenceID?
    /// On a follow-up: the delivery of the alert it follows up.
    public let followUpOf: DeliveryID?
    /// On a presenter's delivery of the alert: its presenter is to be told
    /// when the alert closes (its type sends follow-ups, and they are on).
    public let takesFollowUp: Bool

    public init(
        id: DeliveryID, alertID: AlertID, kind: DeliveryKind, state: DeliveryState = .pending, attempts: Int = 0,
        nextAttemptAt: Date?, lastError: String? = nil, createdAt: Date, updatedAt: Date, deliveredAt: Date? = nil, silencedBy: SilenceID? = nil,
        followUpOf: DeliveryID? = nil, takesFollowUp: Bool = false
    ) {
        self.id = id
        self.alertID = alertID
        self.kind = kind
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deliveredAt = deliveredAt
        self.silencedBy = silencedBy
        self.followUpOf = followUpOf
        self.takesFollowUp = takesFollowUp
    }

    /// A new delivery, due at once.
    public static func pending(_ id: DeliveryID, alert: AlertID, kind: DeliveryKind, at: Date, takesFollowUp: Bool = false) -> DeliveryRecord {
        DeliveryRecord(id: id, alertID: alert, kind: kind, nextAttemptAt: at, createdAt: at, updatedAt: at, takesFollowUp: takesFollowUp)
    }

    /// The follow-up of `original` (a delivered alert delivery), due at once.
    public static func followUp(of original: DeliveryRecord, at: Date) -> DeliveryRecord {
        DeliveryRecord(id: .followUp(of: original.id), alertID: original.alertID, kind: original.kind, nextAttemptAt: at,
                       createdAt: at, updatedAt: at, followUpOf: original.id)
    }

    /// The presenter's name as the API shows it (``DeliveryKind/name``).
    public var presenter: String { kind.name }

    private enum CodingKeys: String, CodingKey {
        case id, presenter, state, attempts
        case alertID = "alert_id"
        case nextAttemptAt = "next_attempt_at"
        case lastError = "last_error"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case deliveredAt = "delivered_at"
        case silencedBy = "silenced_by"
        case followUpOf = "follow_up_of"
        case takesFollowUp = "follow_up"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(DeliveryID.self, forKey: .id)
        alertID = try c.decode(AlertID.self, forKey: .alertID)
        kind = DeliveryKind(name: try c.decode(String.self, forKey: .presenter))
        state = try c.decode(DeliveryState.self, forKey: .state)
        attempts = try c.decode(Int.self, forKey: .attempts)
        nextAttemptAt = try c.decodeIfPresent(Date.self, forKey: .nextAttemptAt)
        lastError = try c.decodeIfPresent(String.self, forKey: .lastError)
        createdAt = try c.decode(Date.self, forKey: .createdAt)
        updatedAt = try c.decode(Date.self, forKey: .updatedAt)
        deliveredAt = try c.decodeIfPresent(Date.self, forKey: .deliveredAt)
        silencedBy = try c.decodeIfPresent(SilenceID.self, forKey: .silencedBy)
        followUpOf = try c.decodeIfPresent(DeliveryID.self, forKey: .followUpOf)
        takesFollowUp = try c.decodeIfPresent(Bool.self, forKey: .takesFollowUp) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(alertID, forKey: .alertID)
        try c.encode(kind.name, forKey: .presenter)
        try c.encode(state, forKey: .state)
        try c.encode(attempts, forKey: .attempts)
        try c.encodeIfPresent(nextAttemptAt, forKey: .nextAttemptAt)
        try c.encodeIfPresent(lastError, forKey: .lastError)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encodeIfPresent(deliveredAt, forKey: .deliveredAt)
        try c.encodeIfPresent(silencedBy, forKey: .silencedBy)
        try c.encodeIfPresent(followUpOf, forKey: .followUpOf)
        if takesFollowUp { try c.encode(true, forKey: .takesFollowUp) }
    }
}

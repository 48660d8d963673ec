import FoundationEssentials

/// An accepted alert: its spec plus the identity and bookkeeping the daemon
/// gives it. This is what presenters receive and what the store keeps.
public struct Alert: Sendable, Equatable, Codable {
    public let id: AlertID
    /// What was sent; replaced only by a re-send through Alertmanager's API
    /// (``AlertdStore/StoreTransaction/recordRepeat(_:at:resolvesAt:spec:)``).
    public package(set) var spec: AlertSpec
    public var state: AlertState
    public let createdAt: Date
    public var updatedAt: Date
    /// How the alert was closed; nil while it is open.
    public var decision: AlertDecision?
    /// When the open alert resolves by itself unless its sender re-sends it
    /// first (Alertmanager's `endsAt`): each re-send moves it on.
    public var resolvesAt: Date?
    /// The re-sends folded into it by its dedup key; nil until the first.
    public var repeats: AlertRepeats?

    public init(
        id: AlertID, spec: AlertSpec, state: AlertState = .open, createdAt: Date, updatedAt: Date? = nil,
        decision: AlertDecision? = nil, resolvesAt: Date? = nil, repeats: AlertRepeats? = nil
    ) {
        self.repeats = repeats
        self.id = id
        self.spec = spec
        self.state = state
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
        self.decision = decision
        self.resolvesAt = resolvesAt
    }

    /// A new open alert stamped now.
    public init(spec: AlertSpec, at date: Date = Date(), resolvesAt: Date? = nil) {
        self.init(id: .generate(at: date), spec: spec, createdAt: date, resolvesAt: resolvesAt)
    }

    /// When the alert expires, if its spec says it does.
    public var expiresAt: Date? {
        spec.expiresAfter.map { createdAt.addingTimeInterval(TimeInterval($0.seconds)) }
    }

    /// Oldest first: by creation, then by id, which increases within a
    /// millisecond; how a group lists its alerts.
    package static func oldestFirst(_ a: Alert, _ b: Alert) -> Bool {
        (a.createdAt, a.id) < (b.createdAt, b.id)
    }

    package enum CodingKeys: String, CodingKey {
        case id, spec, state, decision, repeats
        case createdAt = "created_at"
        case resolvesAt = "resolves_at"
        case updatedAt = "updated_at"
    }
}

import FoundationEssentials
import AlertModel

/// The JSON body of every webhook alertd sends. The shape is a published
/// contract: fields are only ever added, never renamed or removed.
///
/// ```json
/// {
///   "version": 1,
///   "type": "alert",
///   "alert": {
///     "id": "0190f5c2-…", "created_at": "2024-07-01T12:00:00.123Z", "state": "open",
///     "title": "Disk full", "message": null, "severity": "critical",
///     "labels": {"host": "db1"}, "dedup_key": null, "expires_after": 1800,
///     "confirm": {"label": "Expand", "url": "https://…", "method": "POST", "link": "https://…"},
///     "cancel": null
///   },
///   "delivery": {"id": "…", "attempt": 1}
/// }
/// ```
/// `type` says what happened; each type adds its own top-level object next
/// to `alert` (a decision's handler call is `"type": "decision"` with a
/// `decision` object; a follow-up, telling a receiver that an alert it was
/// sent has closed, is `"type": "closed"` with a `closed` object), so
/// receivers switch on `type` and ignore what they do not know. `expires_after` is in seconds; `link` appears only when alertd
/// has a signed decision link to offer.
public struct WebhookPayload: Sendable, Equatable, Codable {
    /// What the webhook reports.
    public struct EventType: RawRepresentable, Sendable, Hashable, Codable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// An alert to show.
        public static let alert = EventType(rawValue: "alert")
        /// A decision a person took on an alert.
        public static let decision = EventType(rawValue: "decision")
        /// An alert the receiver was sent has closed (a follow-up).
        public static let closed = EventType(rawValue: "closed")

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            try c.encode(rawValue)
        }
    }

    /// The alert as receivers see it.
    public struct AlertBody: Sendable, Equatable, Codable {
        public var id: String
        public var createdAt: Date
        public var state: AlertState
        public var title: String
        public var message: String?
        public var severity: Severity
        public var labels: [String: String]
        public var dedupKey: String?
        /// Seconds.
        public var expiresAfter: Int64?
        public var confirm: Action?
        public var cancel: Action?

        public init(_ alert: Alert, links: [ActionKind: String] = [:]) {
            id = alert.id.rawValue
            createdAt = alert.createdAt
            state = alert.state
            title = alert.spec.title
            message = alert.spec.message
            severity = alert.spec.severity
            labels = alert.spec.labels
            dedupKey = alert.spec.dedupKey
            expiresAfter = alert.spec.expiresAfter?.seconds
            confirm = alert.spec.confirm.map { Action($0, link: links[.confirm]) }
            cancel = alert.spec.cancel.map { Action($0, link: links[.cancel]) }
        }

        package enum CodingKeys: String, CodingKey {
            case id, state, title, message, severity, labels, confirm, cancel
            case createdAt = "created_at"
            case dedupKey = "dedup_key"
            case expiresAfter = "expires_after"
        }

        /// Absent values are written as `null`, so every alert has the same keys.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(WebhookPayload.timestamp(createdAt), forKey: .createdAt)
            try c.encode(state, forKey: .state)
            try c.encode(title, forKey: .title)
            try c.encode(message, forKey: .message)
            try c.encode(severity, forKey: .severity)
            try c.encode(labels, forKey: .labels)
            try c.encode(dedupKey, forKey: .dedupKey)
            try c.encode(expiresAfter, forKey: .expiresAfter)
            try c.encode(confirm, forKey: .confirm)
            try c.encode(cancel, forKey: .cancel)
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(String.self, forKey: .id)
            let stamp = try c.decode(String.self, forKey: .createdAt)
            guard let date = try? WebhookPayload.timestampStyle.parse(stamp) else {
                throw DecodingError.dataCorruptedError(forKey: .createdAt, in: c, debugDescription: "not an RFC 3339 time: \(stamp)")
            }
            createdAt = date
            state = try c.decode(AlertState.self, forKey: .state)
            title = try c.decode(String.self, forKey: .title)
            message = try c.decodeIfPresent(String.self, forKey: .message)
            severity = try c.decode(Severity.self, forKey: .severity)
            labels = try c.decodeIfPresent([String: String].self, forKey: .labels) ?? [:]
            dedupKey = try c.decodeIfPresent(String.self, forKey: .dedupKey)
            expiresAfter = try c.decodeIfPresent(Int64.self, forKey: .expiresAfter)
            confirm = try c.decodeIfPresent(Action.self, forKey: .confirm)
            cancel = try c.decodeIfPresent(Action.self, forKey: .cancel)
        }
    }

    /// One of the alert's actions.
    public struct Action: Sendable, Equatable, Codable {
        public var label: String
        /// The handler alertd calls when the action is taken, without its
        /// credentials (`https://***@ops.example/x`).
        public var url: String
        public var method: HTTPMethodName
        /// A signed link that takes the decision without alertctl.
        public var link: String?

        public init(_ action: AlertAction, link: String? = nil) {
            label = action.label
            url = action.withoutCredentials.url
            method = action.method
            self.link = link
        }
    }

    /// Which delivery this request belongs to.
    public struct Delivery: Sendable, Equatable, Codable {
        /// The same for every retry of one delivery; also the `webhook-id` header.
        public var id: String
        /// 1 for the first try.
        public var attempt: Int

        public init(id: String, attempt: Int) {
            self.id = id
            self.attempt = attempt
        }
    }

    /// The payload format's version; changes only if the shape ever breaks.
    public static let currentVersion = 1

    /// A person's (or the clock's) decision, in `decision` payloads.
    public struct Decision: Sendable, Equatable, Codable {
        /// `confirmed`, `cancelled` or `expired`.
        public var outcome: AlertState
        /// The action whose handler is being called.
        public var action: ActionKind
        /// `expired` when nobody decided in time; absent otherwise.
        public var reason: String?
        public var at: String
        /// `uid:1000`, `alice` (a named token), `link` (an action link), or `alertd` for expiry.
        public var by: String
        /// With `by` `link`: the address the link was sent to, when its presenter knew one.
        public var recipient: String?
        public var comment: String?

        public init(_ decision: AlertDecision, action: ActionKind) {
            outcome = decision.outcome
            self.action = action
            reason = decision.outcome == .expired ? "expired" : nil
            at = WebhookPayload.timestamp(decision.at)
            by = decision.actor
            recipient = decision.recipient
            comment = decision.comment
        }
    }

    /// How an alert closed, in `closed` payloads:
    /// `{"outcome": "resolved", "at": "…", "by": "alertd", "comment": null, "follows_up": "<delivery id>"}`.
    public struct Closed: Sendable, Equatable, Codable {
        /// `resolved`, `confirmed`, `cancelled` or `expired`.
        public var outcome: AlertState
        public var at: String
        /// `uid:1000`, `token`, `action-link`, `alertmanager-api`, or `alertd` for the clock.
        public var by: String
        /// As ``Decision/recipient``.
        public var recipient: String?
        public var comment: String?
        /// The delivery that sent the alert (its `webhook-id`).
        public var followsUp: String

        public init(_ followUp: AlertFollowUp) {
            outcome = followUp.outcome
            at = WebhookPayload.timestamp(followUp.decision.at)
            by = followUp.decision.actor
            recipient = followUp.decision.recipient
            comment = followUp.decision.comment
            followsUp = followUp.original.rawValue
        }

        package enum CodingKeys: String, CodingKey {
            case outcome, at, by, recipient, comment
            case followsUp = "follows_up"
        }
    }

    public var version: Int
    public var type: EventType
    public var alert: AlertBody
    public var delivery: Delivery
    public var decision: Decision?
    public var closed: Closed?

    public init(type: EventType, alert: AlertBody, delivery: Delivery) {
        version = Self.currentVersion
        self.type = type
        self.alert = alert
        self.delivery = delivery
    }

    /// The payload telling an action's handler what was decided.
    public init(decision: AlertDecision, action: ActionKind, alert: Alert, delivery: DeliveryContext) {
        self.init(type: .decision, alert: AlertBody(alert), delivery: Delivery(id: delivery.deliveryID.rawValue, attempt: delivery.attempt))
        self.decision = Decision(decision, action: action)
    }

    /// The payload announcing `alert`, or, for a follow-up, that it closed.
    public init(alert: Alert, delivery: DeliveryContext) {
        self.init(
            type: delivery.followUp == nil ? .alert : .closed, alert: AlertBody(alert, links: delivery.actionLinks),
            delivery: Delivery(id: delivery.deliveryID.rawValue, attempt: delivery.attempt))
        closed = delivery.followUp.map(Closed.init)
    }


    package static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// RFC 3339 in UTC with milliseconds, the same in every output of alertd.
    package static func timestamp(_ date: Date) -> String { UTCTimestamp.iso8601(date) }
}

import AlertModel

/// Something that shows an alert to people or hands it on: a terminal, a log
/// file, a webhook. A presenter makes one attempt and reports how it went;
/// whether and when to try again is the dispatcher's call, never its own.
public protocol AlertPresenter: Sendable {
    /// The configured instance name, e.g. `ops-chat`.
    var name: String { get }

    /// The deliveries this presenter takes: by default, those to its name.
    var kind: DeliveryKind { get }

    /// Presents one alert once; or, when `delivery.followUp` is set (only
    /// ever for a type whose configuration declares follow-ups), tells the
    /// destination that the alert, closed now, has closed.
    func present(_ alert: Alert, delivery: DeliveryContext) async -> PresentationOutcome

    /// Presents one notification about a group of alerts once, and says
    /// what the destination answered that a later notification of the same
    /// group can thread under (`delivery.thread` then carries it back).
    func presentGroup(_ notification: AlertGroupNotification, delivery: DeliveryContext) async -> GroupPresentationOutcome

    /// The least wait its destination asks for before a retry, under the
    /// retry policy's backoff (``RetryPolicy/minimumDelay``); nil for none.
    var minimumRetryDelay: Duration? { get }
}

extension AlertPresenter {
    public var kind: DeliveryKind { .presenter(name) }

    public var minimumRetryDelay: Duration? { nil }

    /// A type with no group format of its own shows the group as one
    /// summary alert, and threads nothing.
    public func presentGroup(_ notification: AlertGroupNotification, delivery: DeliveryContext) async -> GroupPresentationOutcome {
        GroupPresentationOutcome(outcome: await present(notification.summaryAlert, delivery: delivery), thread: nil)
    }
}

/// What a presenter knows about the attempt it is making.
public struct DeliveryContext: Sendable, Equatable {
    /// Stays the same across retries of one delivery, so receivers can drop
    /// duplicates (it is the `webhook-id` header).
    public var deliveryID: DeliveryID
    /// 1 for the first try.
    public var attempt: Int
    /// Where a person can decide each action without alertctl, when the
    /// daemon has signed links to offer. These name no recipient: a
    /// presenter that knows the address it sends to asks for
    /// ``addressed(to:)`` instead, so a decision records that address.
    public var actionLinks: [ActionKind: String]
    /// What signs `actionLinks` again for one recipient; nil when the links
    /// are fixed (previews, tests) or there are none.
    public var linkSigning: ActionLinks?
    /// Set when this delivery is a follow-up: how the alert closed, and
    /// which delivery showed it. Nil for the alert itself.
    public var followUp: AlertFollowUp?
    /// For a group notification after the first: what the destination
    /// answered to the group's first notification (a Slack `ts`, a Matrix
    /// `event_id`), to thread under. Nil otherwise.
    public var thread: String?
    /// For the alert itself: its presenter is told when the alert closes, by
    /// a follow-up of its own. A body that says one state (Alertmanager's)
    /// then says `firing` on every attempt, as Alertmanager's retries repeat
    /// what they first said: a retry made after the alert resolved said
    /// `resolved`, and its follow-up said it again under another id.
    public var followedUp = false

    public init(
        deliveryID: DeliveryID, attempt: Int = 1, actionLinks: [ActionKind: String] = [:], followUp: AlertFollowUp? = nil,
        thread: String? = nil
    ) {
        self.deliveryID = deliveryID
        self.attempt = attempt
        self.actionLinks = actionLinks
        self.followUp = followUp
        self.thread = thread
    }

    /// A delivery whose links are signed as `links` makes them, recipient
    /// by recipient on request.
    public init(deliveryID: DeliveryID, attempt: Int = 1, links: ActionLinks?, followUp: AlertFollowUp? = nil, thread: String? = nil) {
        self.init(deliveryID: deliveryID, attempt: attempt, actionLinks: links?.links() ?? [:], followUp: followUp, thread: thread)
        linkSigning = links
    }

    /// Whether ``addressed(to:)`` gives each recipient links of its own.
    public var signsPerRecipient: Bool { linkSigning != nil && !actionLinks.isEmpty }

    /// This delivery as sent to `recipient` (an e-mail address, a chat):
    /// its action links name the recipient inside what they sign, so the
    /// decision one of them takes records who it was sent to. Unchanged
    /// when the links cannot be signed again (see ``signsPerRecipient``).
    public func addressed(to recipient: String) -> DeliveryContext {
        guard let linkSigning, signsPerRecipient else { return self }
        var addressed = self
        addressed.actionLinks = linkSigning.links(for: recipient)
        return addressed
    }
}

/// How one attempt at a group notification went, and what the destination
/// answered that later notifications of the group can thread under.
public struct GroupPresentationOutcome: Sendable, Equatable {
    public var outcome: PresentationOutcome
    /// A Slack `ts`, a Matrix `event_id`, a mail's `Message-ID`; nil when
    /// the destination has no threads or the attempt failed.
    public var thread: String?

    public init(outcome: PresentationOutcome, thread: String? = nil) {
        self.outcome = outcome
        self.thread = thread
    }
}

/// How one presentation attempt went.
public enum PresentationOutcome: Sendable, Equatable {
    /// The alert reached its destination.
    case delivered
    /// It did not, but trying again may work; `retryAfter` is the
    /// destination's own hint (`Retry-After`), if it gave one.
    case retryableFailure(reason: String, retryAfter: Duration? = nil)
    /// Trying again will not help (a 4xx, a bad URL); the delivery is dead.
    case permanentFailure(reason: String)
    /// It reached some of the destination's recipients, and the others
    /// refused it for good (a stale mail address): delivered, so that
    /// follow-ups and threads go on for those who have it, with `reason`
    /// logged as a warning.
    case partlyDelivered(reason: String)
    /// It reached some of the destination's recipients, and another try
    /// may reach the others: retried for them, and once retries run out,
    /// partly delivered. Dead, it had left those who have it with an
    /// alert that never closed for them (no follow-up).
    case reachedSome(reason: String)
    /// Not tried: the presenter knows its destination does not answer now
    /// (a handler host's breaker). Tried again after `retryAfter`, and not
    /// an attempt: it counts towards no `max_attempts` and no metric.
    case notSent(reason: String, retryAfter: Duration)

    public var isDelivered: Bool {
        switch self {
        case .delivered, .partlyDelivered: true
        case .retryableFailure, .permanentFailure, .reachedSome, .notSent: false
        }
    }

    /// Whether a request went out: false for ``notSent(reason:retryAfter:)``.
    public var wasAttempted: Bool {
        if case .notSent = self { return false }
        return true
    }

    /// Why the attempt failed, or what of it did.
    public var reason: String? {
        switch self {
        case .delivered: nil
        case .retryableFailure(let r, _), .permanentFailure(let r), .partlyDelivered(let r), .reachedSome(let r), .notSent(let r, _): r
        }
    }
}

import FoundationEssentials

/// Word to a presenter that an alert it showed has closed: resolved,
/// confirmed, cancelled or expired, by whom and when. Every follow-up
/// follows up one delivery of the alert, the original, which was delivered
/// before the follow-up was queued.
public struct AlertFollowUp: Sendable, Equatable {
    /// How the alert closed.
    public let decision: AlertDecision
    /// The delivery that showed the alert: a mail's `In-Reply-To`, for one.
    public let original: DeliveryID

    public init(decision: AlertDecision, original: DeliveryID) {
        self.decision = decision
        self.original = original
    }

    /// The follow-up of `original` for `alert`, once the alert is closed.
    public init?(closing alert: Alert, original: DeliveryID) {
        guard alert.state.isFinal, let decision = alert.decision else { return nil }
        self.init(decision: decision, original: original)
    }

    public var outcome: AlertState { decision.outcome }

    /// `Resolved`, `Confirmed by uid:1000`: what happened, in a few words.
    /// A person's decision names them; the clock and senders resolving
    /// their own alerts are not worth naming.
    public var summary: String {
        let verb = switch outcome {
        case .resolved: "Resolved"
        case .confirmed: "Confirmed"
        case .cancelled: "Cancelled"
        case .expired: "Expired"
        case .open: "Reopened"
        }
        switch outcome {
        case .confirmed, .cancelled: return "\(verb) \(decision.byline)"
        default: return verb
        }
    }

    /// `Resolved: Disk full on db1`: the one line a chat or phone shows.
    public func headline(_ title: String) -> String { "\(summary): \(title)" }

    /// An example for previews (`alertctl render --follow-up resolved`):
    /// `alert` closed as `outcome` now by `actor`, following up `original`.
    public static func example(_ outcome: AlertState, of alert: Alert, original: DeliveryID, actor: String = "uid:1000", at: Date = Date())
        -> (Alert, AlertFollowUp) {
        var closed = alert
        let decision = AlertDecision(outcome: outcome == .open ? .resolved : outcome, actor: actor, at: at)
        closed.state = decision.outcome
        closed.decision = decision
        closed.updatedAt = at
        return (closed, AlertFollowUp(decision: decision, original: original))
    }
}

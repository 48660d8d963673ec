import FoundationEssentials

/// How an open alert was closed, by whom and when. Every alert is decided
/// at most once; the first decision wins.
public struct AlertDecision: Sendable, Equatable, Codable {
    /// The state the decision moved the alert to; never `open`.
    public let outcome: AlertState
    /// Who decided: `uid:1000`, `alice` (a named token), `link` (an action link), or `alertd` for expiry.
    public let actor: String
    public let at: Date
    /// What the person said, if anything.
    public let comment: String?
    /// For a decision by action link (`actor` is `link`), the address the
    /// link was sent to, when the presenter that sent it knew one
    /// (`alice@example.com`); it is part of what the link signs. Nil for
    /// every other decision, and for links that name no recipient.
    public let recipient: String?

    public init(outcome: AlertState, actor: String, at: Date = Date(), comment: String? = nil, recipient: String? = nil) {
        precondition(outcome != .open, "a decision closes an alert")
        self.outcome = outcome
        self.actor = actor
        self.at = at
        self.comment = comment
        self.recipient = recipient
    }

    /// Who decided, for people: `by alice`, or for a link sent to a known
    /// address `via link by alice@example.com`.
    public var byline: String {
        recipient.map { "via \(actor) by \($0)" } ?? "by \(actor)"
    }

    /// The action whose handler this decision calls: confirm for a
    /// confirmation, cancel for a cancellation or an expiry (cancel is the
    /// default answer, as dismissing a dialog is), none for a resolution.
    public var action: ActionKind? {
        switch outcome {
        case .confirmed: .confirm
        case .cancelled, .expired: .cancel
        case .resolved, .open: nil
        }
    }

    package enum CodingKeys: String, CodingKey {
        case outcome, actor, at, comment, recipient
    }
}

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

    public init(outcome: AlertState, actor: String, at: Date = Date(), comment: String? = nil) {
        precondition(outcome != .open, "a decision closes an alert")
        self.outcome = outcome
        self.actor = actor
        self.at = at
        self.comment = comment
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
        case outcome, actor, at, comment
    }
}

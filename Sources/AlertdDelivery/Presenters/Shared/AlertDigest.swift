import AlertModel

/// An alert as the parts every message-shaped presenter shows: a heading,
/// its message, its labels in a stable order, and the actions a person can
/// take with their links. Each type lays these out in its service's own
/// markup; what is shown, and in which order, is decided once here.
public struct AlertDigest: Sendable {
    /// One of the alert's actions.
    public struct Action: Sendable, Equatable {
        public var kind: ActionKind
        /// The button text, `Expand`.
        public var label: String
        /// The signed link that decides it, when the daemon has one to offer.
        public var link: String?
    }

    public var id: String
    public var title: String
    public var message: String?
    public var severity: Severity
    public var style: SeverityStyle
    /// Sorted by name.
    public var labels: [(name: String, value: String)]
    /// Confirm, then cancel; only the ones the alert has.
    public var actions: [Action]
    /// RFC 3339, UTC, milliseconds.
    public var createdAt: String
    /// Set when the delivery is a follow-up: how the alert closed.
    public var followUp: AlertFollowUp?

    public init(_ alert: Alert, delivery: DeliveryContext) {
        self.init(alert, links: delivery.actionLinks, followUp: delivery.followUp)
    }

    /// The alert with these signed action links (one alert of a group).
    public init(_ alert: Alert, links: [ActionKind: String], followUp: AlertFollowUp? = nil) {
        id = alert.id.rawValue
        title = alert.spec.title
        message = alert.spec.message.flatMap { $0.isEmpty ? nil : $0 }
        severity = alert.spec.severity
        style = SeverityStyle.of(alert.spec.severity)
        labels = alert.spec.labels.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        actions = ActionKind.allCases.compactMap { kind in
            alert.spec.action(kind).map { Action(kind: kind, label: $0.label, link: links[kind]) }
        }
        createdAt = UTCTimestamp.iso8601(alert.createdAt)
        self.followUp = followUp
    }

    /// The actions a person can take from the message: those with a link.
    public var linkedActions: [(label: String, link: String, kind: ActionKind)] {
        actions.compactMap { a in a.link.map { (label: a.label, link: $0, kind: a.kind) } }
    }

    /// `[CRITICAL] Disk full on db1`.
    public var heading: String { "[\(style.label)] \(title)" }

    /// A follow-up's look, by how the alert closed; the severity's otherwise.
    public var closedStyle: SeverityStyle { followUp.map { .closed($0.outcome) } ?? style }

    /// A follow-up's one line: `Resolved: Disk full on db1`, or
    /// `Confirmed by uid:1000: Restart nginx?`. The heading otherwise.
    public var followUpHeadline: String { followUp?.headline(title) ?? heading }

    /// What a follow-up says under its headline, line by line: the comment
    /// given with the decision, and which alert it was (and when it closed).
    public var followUpDetails: [String] {
        guard let f = followUp else { return [] }
        var lines: [String] = []
        if let comment = f.decision.comment, !comment.isEmpty { lines.append("Comment: \(comment)") }
        lines.append("alert \(id), \(f.outcome.rawValue) at \(UTCTimestamp.iso8601(f.decision.at))")
        return lines
    }
}

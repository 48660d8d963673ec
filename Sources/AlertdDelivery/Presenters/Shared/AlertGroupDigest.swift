import AlertModel

/// A group notification as the parts every message-shaped presenter shows:
/// a headline with counts, the first ``AlertGroupNotification/shown``
/// firing alerts (each with its new marker, repeats and action links), how
/// many more fire, the hidden alerts whose actions must stay reachable,
/// and what closed. Each type lays these out in its own markup; what is
/// shown, and in which order, is decided once here.
public struct AlertGroupDigest: Sendable {
    /// One alert of the group.
    public struct Entry: Sendable {
        public var digest: AlertDigest
        public var state: AlertState
        /// Firing, and not in the presenter's previous notification.
        public var isNew: Bool
        public var repeats: AlertRepeats?
        /// What tells it from the group's other alerts: its labels but the
        /// group's own, `instance=n1, job=node`; empty when it has none.
        public var distinctLabels: String

        /// `repeated 12×`, when re-sends were folded into the alert.
        public var repeatsText: String? { repeats.map { "repeated \($0.count)×" } }

        /// A closed alert's look (`✅ RESOLVED`); the severity's while it fires.
        public var style: SeverityStyle { state == .open ? digest.style : .closed(state) }
    }

    public var notification: AlertGroupNotification
    /// `[FIRING:3] alertname=DiskFull`, or `[RESOLVED] …`.
    public var title: String
    /// The highest firing severity's look; resolved's once nothing fires.
    public var style: SeverityStyle
    /// The first firing alerts, oldest first.
    public var shown: [Entry]
    /// Firing alerts past `shown`: the `+M more`.
    public var hiddenCount: Int
    /// Alerts past `shown` that have signed action links: a grouped message
    /// still offers their buttons (or, past its own limits, the console).
    public var hiddenWithLinks: [Entry]
    /// The first closed alerts since the previous notification.
    public var closed: [Entry]
    /// Closed alerts past those listed.
    public var closedHiddenCount: Int

    public init(_ notification: AlertGroupNotification) {
        self.notification = notification
        title = notification.title
        style = notification.nothingFires ? .closed(.resolved) : .of(notification.severity)
        let entries = notification.firing.map { Self.entry($0, notification) }
        shown = Array(entries.prefix(AlertGroupNotification.shown))
        hiddenCount = max(0, entries.count - shown.count)
        hiddenWithLinks = entries.dropFirst(shown.count).filter { !$0.digest.linkedActions.isEmpty }
        closed = notification.closed.prefix(AlertGroupNotification.shown).map { Self.entry($0, notification) }
        closedHiddenCount = max(0, notification.closed.count - closed.count)
    }

    private static func entry(_ alert: Alert, _ n: AlertGroupNotification) -> Entry {
        var digest = AlertDigest(alert, links: alert.state == .open ? n.actionLinks[alert.id] ?? [:] : [:])
        // A line of a list: `limits.max_title_length` may allow 10,000 characters, ten of which made a Matrix event of 600 kB.
        digest.title = TextLimit.truncate(digest.title, to: maxTitleLength)
        let grouped = Set(n.groupLabels.map(\.name))
        let distinct = digest.labels.filter { !grouped.contains($0.name) }.map { "\($0.name)=\($0.value)" }.joined(separator: ", ")
        return Entry(digest: digest, state: alert.state, isNew: n.newAlertIDs.contains(alert.id), repeats: alert.repeats,
                     distinctLabels: TextLimit.truncate(distinct, to: maxLabelsLength))
    }

    /// The most of an alert's own labels a listed alert shows.
    static let maxLabelsLength = 200
    /// The most of its title a listed alert shows.
    static let maxTitleLength = 256

    public var reason: AlertGroupNotification.Reason { notification.reason }
    public var consoleURL: String? { notification.consoleURL }

    /// `12 firing · 3 new · 2 closed since the last notification`.
    public var counts: String {
        var parts = ["\(notification.firing.count) firing"]
        if !notification.newAlertIDs.isEmpty { parts.append("\(notification.newAlertIDs.count) new") }
        if !notification.closed.isEmpty { parts.append("\(notification.closed.count) closed since the last notification") }
        return parts.joined(separator: " · ")
    }

    /// Why this message, for a notification after the first: `Reminder:
    /// still firing.`; nil for the first.
    public var reasonLine: String? {
        switch notification.reason {
        case .first: nil
        case .changed: notification.nothingFires ? "Update: no alert of the group fires now." : "Update: the group changed."
        case .reminder: "Reminder: still firing."
        case .resolved: "Resolved: every alert of the group has closed."
        }
    }

    /// `+990 more firing`; nil when every firing alert is listed.
    public var moreLine: String? { hiddenCount > 0 ? "+\(hiddenCount) more firing" : nil }

    /// `+5 more closed`; nil when every closed alert is listed.
    public var closedMoreLine: String? { closedHiddenCount > 0 ? "+\(closedHiddenCount) more closed" : nil }

    /// `alertname=DiskFull, rack=7`; empty for a group without grouping labels.
    public var labelsText: String { notification.groupLabels.map(\.description).joined(separator: ", ") }

    /// `group g-…, route ops, notification 3`: where the message came from.
    public var footer: String {
        "group \(notification.groupID.rawValue), route \(notification.route), notification \(notification.sequence)"
    }

    /// An entry's one line of text, for plain-text formats: `[CRITICAL]
    /// Disk full · instance=db1 (new, repeated 3×)`.
    public static func line(_ e: Entry) -> String {
        var notes: [String] = []
        if e.isNew { notes.append("new") }
        if let r = e.repeatsText { notes.append(r) }
        return "[\(e.style.label)] \(e.digest.title)" + (e.distinctLabels.isEmpty ? "" : " · " + e.distinctLabels)
            + (notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")")
    }
}

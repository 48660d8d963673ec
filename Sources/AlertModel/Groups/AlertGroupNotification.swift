import FoundationEssentials

/// What one presenter is told about one group at one moment: the group's
/// open alerts, what is new and what closed since the presenter was last
/// told, and why it is being told now. It is snapshotted when the
/// notification is queued, so every retry sends the same thing.
public struct AlertGroupNotification: Sendable, Equatable {
    /// Why a group notification goes out.
    public enum Reason: String, Sendable, Codable, CaseIterable {
        /// The group's first notification to this presenter, `group_wait` after it formed.
        case first
        /// Alerts joined or closed since the previous notification.
        case changed
        /// Nothing changed for `repeat_interval`, and alerts are still open.
        case reminder
        /// Every alert in the group has closed; the group ends.
        case resolved
    }

    /// How many alerts a message lists before `+M more`.
    public static let shown = 10

    public var groupID: AlertGroupID
    /// The route's `name`, or `routes[N]` for an unnamed one.
    public var route: String
    /// The values of the route's `group_by` labels, sorted by name.
    public var groupLabels: [AlertLabel]
    /// 1 for the group's first notification to this presenter.
    public var sequence: Int
    public var reason: Reason
    /// The group's open alerts, oldest first: all of them.
    public var firing: [Alert]
    /// Firing alerts this presenter was not told about last time.
    public var newAlertIDs: Set<AlertID>
    /// Alerts that closed since the previous notification.
    public var closed: [Alert]
    /// Signed action links of the firing alerts that have actions.
    public var actionLinks: [AlertID: [ActionKind: String]]
    /// The group in the console, when the daemon knows its public URL.
    public var consoleURL: String?

    public init(
        groupID: AlertGroupID, route: String, groupLabels: [AlertLabel], sequence: Int, reason: Reason,
        firing: [Alert], newAlertIDs: Set<AlertID> = [], closed: [Alert] = [],
        actionLinks: [AlertID: [ActionKind: String]] = [:], consoleURL: String? = nil
    ) {
        self.groupID = groupID
        self.route = route
        self.groupLabels = groupLabels.sorted()
        self.sequence = sequence
        self.reason = reason
        self.firing = firing
        self.newAlertIDs = newAlertIDs
        self.closed = closed
        self.actionLinks = actionLinks
        self.consoleURL = consoleURL
    }

    /// Nothing this notification tells of fires: the group resolved, or the
    /// alerts it fired with closed while every one still open is silenced or
    /// inhibited. Told as resolved, as Alertmanager tells a receiver whose
    /// alerts are all resolved or muted; the held ones firing again is a
    /// change, told as firing.
    public var nothingFires: Bool { firing.isEmpty }

    /// Firing alerts beyond the `shown` a message lists.
    public var hiddenCount: Int { max(0, firing.count - Self.shown) }

    /// What a body of at most `maxAlerts` alerts (0: no limit) lists: what
    /// fires first, then what closed; and how many it leaves out.
    public func listed(atMost maxAlerts: Int) -> (firing: ArraySlice<Alert>, closed: ArraySlice<Alert>, leftOut: Int) {
        guard maxAlerts > 0 else { return (firing[...], closed[...], 0) }
        let firingListed = firing.prefix(maxAlerts)
        let closedListed = closed.prefix(maxAlerts - firingListed.count)
        return (firingListed, closedListed, firing.count + closed.count - firingListed.count - closedListed.count)
    }

    /// The most severe firing alert's severity; a closed one's when none fire.
    public var severity: Severity {
        (firing.isEmpty ? closed : firing).map(\.spec.severity).max() ?? .info
    }

    /// `[FIRING:3] alertname=DiskFull instance=db1`, or `[RESOLVED] …` once
    /// nothing fires (``nothingFires``): Alertmanager's subject line. A group without
    /// grouping labels is named by its oldest alert's title.
    public var title: String {
        let status = nothingFires ? "[RESOLVED]" : "[FIRING:\(firing.count)]"
        let name = groupLabels.isEmpty
            ? (firing.first ?? closed.first)?.spec.title ?? route
            : groupLabels.map(\.description).joined(separator: " ")
        return Self.clipped("\(status) \(name)", to: AlertSpecLimits.default.maxTitleLength)
    }

    /// The notification folded into one alert, so a presenter with no
    /// group format of its own shows it through `present`: the title above,
    /// a message listing the first `shown` firing alerts (severity, repeats,
    /// new marker, action links as text), `+M more`, and what closed; the
    /// highest firing severity; the group's labels. It carries no actions of
    /// its own: each listed alert's links are in the text.
    public var summaryAlert: Alert {
        let spec = AlertSpec(
            title: title, message: Self.clipped(summaryText, to: AlertSpecLimits.default.maxMessageLength),
            severity: severity, labels: Dictionary(groupLabels.map { ($0.name, $0.value) }) { a, _ in a },
            confirm: nil, cancel: nil, dedupKey: nil, expiresAfter: nil)
        let anchor = firing.first ?? closed.first
        let at = (firing + closed).map(\.updatedAt).max() ?? Date()
        var alert = Alert(id: anchor?.id ?? .generate(at: at), spec: spec, createdAt: anchor?.createdAt ?? at, updatedAt: at)
        if nothingFires {
            let decision = AlertDecision(outcome: .resolved, actor: "alertd", at: at)
            alert.state = .resolved
            alert.decision = decision
        }
        return alert
    }

    /// The message of ``summaryAlert``, line by line.
    public var summaryText: String {
        var lines: [String] = []
        var counts = ["\(firing.count) firing"]
        if !newAlertIDs.isEmpty { counts.append("\(newAlertIDs.count) new") }
        if !closed.isEmpty { counts.append("\(closed.count) closed since the last notification") }
        lines.append(counts.joined(separator: ", ") + ".")
        if !firing.isEmpty {
            lines.append("")
            lines.append("Firing:")
            for alert in firing.prefix(Self.shown) {
                var line = "- [\(alert.spec.severity.rawValue.uppercased())] \(alert.spec.title)"
                if newAlertIDs.contains(alert.id) { line += " (new)" }
                if let r = alert.repeats {
                    line += " (repeated \(r.count)×, last \(UTCTimestamp.iso8601(r.lastSeenAt)))"
                }
                lines.append(line)
                for kind in ActionKind.allCases {
                    guard let action = alert.spec.action(kind), let link = actionLinks[alert.id]?[kind] else { continue }
                    lines.append("  \(action.label): \(link)")
                }
            }
            if hiddenCount > 0 { lines.append("+\(hiddenCount) more") }
        }
        if !closed.isEmpty {
            lines.append("")
            lines.append("Closed:")
            for alert in closed.prefix(Self.shown) {
                lines.append("- [\(alert.state.rawValue.uppercased())] \(alert.spec.title)")
            }
            if closed.count > Self.shown { lines.append("+\(closed.count - Self.shown) more") }
        }
        if let consoleURL {
            lines.append("")
            lines.append("All alerts of this group: \(consoleURL)")
        }
        return lines.joined(separator: "\n")
    }

    private static func clipped(_ text: String, to limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }
}

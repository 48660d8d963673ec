import AlertModel

extension SlackPresenterConfiguration {
    /// A group notification: a header with the counts, a section per listed
    /// alert with its action buttons, `+M more` with the console link, the
    /// buttons of alerts past the list as far as Slack's limits allow (the
    /// console past those), what closed, and where it came from. A bot
    /// posts a group's later notifications in the thread of its first;
    /// an update that brings new alerts is also shown in the channel.
    public func request(for notification: AlertGroupNotification, delivery: DeliveryContext, secrets: PresenterSecrets) -> HTTPServiceRequest {
        let g = AlertGroupDigest(notification)
        let e = MarkupEscaping.slack
        var blocks: [[String: Any]] = [["type": "header", "text": Self.plain("\(g.style.emoji) \(g.title)", limit: Limit.header)]]
        // Cut escaped, or as whole lines: a cut inside `&amp;` shows a stray `&am`.
        var summary = ["*\(g.counts)*"]
        if !g.labelsText.isEmpty { summary.append(TextLimit.truncate(g.labelsText, to: Limit.text / 2, escape: e)) }
        if let reason = g.reasonLine { summary.append("_\(e(reason))_") }
        blocks.append(["type": "section", "text": Self.mrkdwn(TextLimit.wholeLines(summary, within: Limit.text))])

        for (i, entry) in g.shown.enumerated() {
            var line = "\(entry.style.emoji) *\(entry.style.label)* " + TextLimit.truncate(entry.digest.title, to: 500, escape: e)
            if !entry.distinctLabels.isEmpty { line += " · `\(e(entry.distinctLabels))`" }
            if entry.isNew { line += " · :new: new" }
            if let r = entry.repeatsText { line += " · \(r)" }
            for action in entry.digest.actions where action.link == nil {
                line += "\n`alertctl \(action.kind.rawValue) \(entry.digest.id)` to \(TextLimit.truncate(action.label, to: 100, escape: e))"
            }
            blocks.append(["type": "section", "text": Self.mrkdwn(line)])
            let buttons = Self.buttons(entry.digest.linkedActions, id: "-\(i)")
            if !buttons.isEmpty { blocks.append(["type": "actions", "elements": buttons]) }
        }
        let console = g.consoleURL.map { " · <\($0)|all alerts of the group in the console>" } ?? ""
        if let more = g.moreLine { blocks.append(["type": "context", "elements": [Self.mrkdwn(more + console)]]) }

        // The closed list and the footer come last; what room is left
        // holds the buttons of alerts past the list.
        let tail = (g.closed.isEmpty ? 0 : 1) + 1
        blocks += Self.hiddenButtons(g, room: Limit.blocks - blocks.count - tail)

        if !g.closed.isEmpty {
            var lines = ["*Closed since the last notification*"]
            lines += g.closed.map { c in
                "\(c.style.emoji) \(c.style.label.lowercased()): " + TextLimit.truncate(c.digest.title, to: 200, escape: e)
                    + (c.distinctLabels.isEmpty ? "" : " · `\(e(c.distinctLabels))`")
            }
            if let more = g.closedMoreLine { lines.append(more) }
            blocks.append(["type": "section", "text": Self.mrkdwn(TextLimit.wholeLines(lines, within: Limit.text))])
        }
        blocks.append(["type": "context", "elements": [Self.mrkdwn(e(g.footer))]])
        let json: [String: Any] = [
            "text": g.style.emoji + " " + TextLimit.truncate(g.title + " (\(g.counts))", to: Limit.text - 3, escape: e),
            "attachments": [["color": g.style.hexColour, "fallback": TextLimit.truncate(g.title, to: Limit.text), "blocks": blocks]],
        ]
        let broadcast = notification.reason == .changed && !notification.newAlertIDs.isEmpty
        return post(json, thread: delivery.thread, broadcast: broadcast, secrets: secrets)
    }

    /// The buttons of firing alerts past the list, each named for its
    /// alert, 25 to an actions block, in at most `room` blocks; a line
    /// pointing to the console (or alertctl) for those that do not fit.
    static func hiddenButtons(_ g: AlertGroupDigest, room: Int) -> [[String: Any]] {
        guard !g.hiddenWithLinks.isEmpty, room >= 2 else { return [] }
        var found: [[String: Any]] = []
        var fitted = 0
        let capacity = (room - 2) * Limit.actionElements
        for (i, entry) in g.hiddenWithLinks.enumerated() {
            // The alert's own labels first: a button's text is cut at 75.
            let name = (entry.distinctLabels.isEmpty ? "" : entry.distinctLabels + ": ") + entry.digest.title
            let actions = entry.digest.linkedActions.map { a in (label: "\(a.label) \(name)", link: a.link, kind: a.kind) }
            guard found.count + actions.count <= capacity else { break }
            found += buttons(actions, id: "-h\(i)")
            fitted += 1
        }
        var blocks: [[String: Any]] = []
        if !found.isEmpty { blocks.append(["type": "context", "elements": [mrkdwn("Actions of the alerts not listed:")]]) }
        for start in stride(from: 0, to: found.count, by: Limit.actionElements) {
            blocks.append(["type": "actions", "elements": Array(found[start..<min(start + Limit.actionElements, found.count)])])
        }
        let left = g.hiddenWithLinks.count - fitted
        if left > 0 {
            let whereTo = g.consoleURL.map { "<\($0)|decide them in the console>" } ?? "decide them with `alertctl`"
            blocks.append(["type": "context", "elements": [mrkdwn("+\(left) more alerts with actions: \(whereTo)")]])
        }
        return blocks
    }
}

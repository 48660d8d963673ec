import AlertModel

extension AlertGroupDigest {
    /// The notification as plain text (a mail's text part, a Matrix body):
    /// counts, the listed alerts with their links, `+M more`, the links of
    /// alerts past the list while `limit` bytes of UTF-8 allow (the console
    /// for the rest), what closed, and a footer.
    public func text(limit: Int) -> String {
        var head = [title, counts]
        if !labelsText.isEmpty { head.append("Group: \(labelsText)") }
        if let reasonLine { head.append(reasonLine) }
        var blocks = [head.joined(separator: "\n")]
        if !shown.isEmpty {
            var lines = ["Firing:"]
            for e in shown {
                lines.append("- " + Self.line(e))
                lines += e.digest.linkedActions.map { "  \($0.label): \($0.link)" }
                lines += e.digest.actions.filter { $0.link == nil }.map { "  \($0.label): alertctl \($0.kind.rawValue) \(e.digest.id)" }
            }
            if let moreLine { lines.append(moreLine + (consoleURL.map { ": \($0)" } ?? "")) }
            blocks.append(lines.joined(separator: "\n"))
        }
        var tail: [String] = []
        if !closed.isEmpty {
            tail.append((["Closed since the last notification:"] + closed.map { "- " + Self.line($0) } + [closedMoreLine].compactMap { $0 })
                .joined(separator: "\n"))
        }
        tail.append("-- \nalertd, \(footer)")
        let used = (blocks + tail).joined(separator: "\n\n").utf8.count
        let hidden = fitted(budget: limit - used - 200) { e in
            "- \(e.digest.title)" + (e.distinctLabels.isEmpty ? "" : " · " + e.distinctLabels) + ": " + e.digest.linkedActions.map { "\($0.label) \($0.link)" }.joined(separator: " · ")
        }
        if !hidden.lines.isEmpty || hidden.left > 0 {
            var lines = hidden.lines.isEmpty ? [] : ["Actions of the alerts not listed:"] + hidden.lines
            if hidden.left > 0 { lines.append("+\(hidden.left) more alerts with actions" + (consoleURL.map { ": \($0)" } ?? ": see alertctl list")) }
            blocks.append(lines.joined(separator: "\n"))
        }
        return (blocks + tail).joined(separator: "\n\n") + "\n"
    }

    /// The same as a fragment of simple HTML (headings, paragraphs, lists,
    /// links, `font` colours), which Matrix clients and mail readers both
    /// render, within `limit` bytes as ``text(limit:)``.
    public func html(limit: Int) -> String {
        let e = MarkupEscaping.html
        func link(_ href: String, _ text: String) -> String { "<a href=\"\(e(href))\">\(e(text))</a>" }
        func item(_ entry: Entry, links: Bool) -> String {
            var notes: [String] = []
            if entry.isNew { notes.append("<b>new</b>") }
            if let r = entry.repeatsText { notes.append(e(r)) }
            var li = "<li><font color=\"\(entry.style.hexColour)\">\(entry.style.emoji) \(e(entry.style.label))</font> \(e(entry.digest.title))"
            if !entry.distinctLabels.isEmpty { li += " · <code>\(e(entry.distinctLabels))</code>" }
            if !notes.isEmpty { li += " (" + notes.joined(separator: ", ") + ")" }
            if links {
                let actions = entry.digest.linkedActions.map { link($0.link, $0.label) }
                    + entry.digest.actions.filter { $0.link == nil }.map { "\(e($0.label)): <code>alertctl \($0.kind.rawValue) \(e(entry.digest.id))</code>" }
                if !actions.isEmpty { li += "<br>" + actions.joined(separator: " · ") }
            }
            return li + "</li>"
        }
        var parts = ["<h4><font color=\"\(style.hexColour)\">\(style.emoji)</font> \(e(title))</h4>", "<p><b>\(e(counts))</b>"]
        if !labelsText.isEmpty { parts[1] += "<br>Group: \(e(labelsText))" }
        if let reasonLine { parts[1] += "<br><i>\(e(reasonLine))</i>" }
        parts[1] += "</p>"
        if !shown.isEmpty {
            parts.append("<p>Firing:</p><ul>" + shown.map { item($0, links: true) }.joined() + "</ul>")
            if let moreLine { parts.append("<p>\(e(moreLine))" + (consoleURL.map { ": " + link($0, "all alerts of the group in the console") } ?? "") + "</p>") }
        }
        var tail: [String] = []
        if !closed.isEmpty {
            tail.append("<p>Closed since the last notification:</p><ul>" + closed.map { item($0, links: false) }.joined() + "</ul>"
                + (closedMoreLine.map { "<p>\(e($0))</p>" } ?? ""))
        }
        tail.append("<p><small>alertd, \(e(footer))</small></p>")
        let used = (parts + tail).joined().utf8.count
        let hidden = fitted(budget: limit - used - 300) { entry in
            "<li>\(e(entry.digest.title))" + (entry.distinctLabels.isEmpty ? "" : " · <code>\(e(entry.distinctLabels))</code>") + ": "
                + entry.digest.linkedActions.map { link($0.link, $0.label) }.joined(separator: " · ") + "</li>"
        }
        if !hidden.lines.isEmpty { parts.append("<p>Actions of the alerts not listed:</p><ul>" + hidden.lines.joined() + "</ul>") }
        if hidden.left > 0 {
            parts.append("<p>+\(hidden.left) more alerts with actions" + (consoleURL.map { ": " + link($0, "decide them in the console") } ?? ": see <code>alertctl list</code>") + "</p>")
        }
        return (parts + tail).joined()
    }

    /// The lines `render` makes of the hidden alerts with links, as many as
    /// fit in `budget` bytes, and how many did not fit.
    private func fitted(budget: Int, _ render: (Entry) -> String) -> (lines: [String], left: Int) {
        var lines: [String] = []
        var used = 0
        for entry in hiddenWithLinks {
            let line = render(entry)
            guard used + line.utf8.count + 1 <= budget else { break }
            used += line.utf8.count + 1
            lines.append(line)
        }
        return (lines, hiddenWithLinks.count - lines.count)
    }
}

import AlertModel

/// Draws an alert as a framed block of text. A pure function of its inputs,
/// so the exact output can be pinned in tests:
///
/// ```
/// ╭─ [CRITICAL] ─────────────────────────────────────╮
/// │ Disk full                                        │
/// │                                                  │
/// │ /var at 97%                                      │
/// │                                                  │
/// │ ▸ Expand   alertctl confirm 0197…                │
/// ├──────────────────────────────────────────────────┤
/// │ id       0197…                                   │
/// │ created  2025-06-01 12:00:00 UTC                 │
/// ╰──────────────────────────────────────────────────╯
/// ```
public enum TerminalRenderer {
    /// The narrowest frame drawn; narrower requests are widened to this.
    public static let minimumWidth = 24
    /// The widest: a frame of 100,000 columns (a mistyped `--width`, a
    /// `COLUMNS` gone wrong) was drawn, its lines of spaces and all.
    public static let maximumWidth = 1_000

    /// The alert as lines ending in `\n`, `width` columns wide, with ANSI
    /// colours by severity when `colour` is true.
    public static func render(_ alert: Alert, context: DeliveryContext, width: Int, colour: Bool) -> String {
        let width = min(maximumWidth, max(minimumWidth, width))
        let inner = width - 4
        let style = Style(severity: alert.spec.severity, enabled: colour)
        let spec = alert.spec
        var out = ""

        func border(_ left: String, _ fill: String, _ right: String, badge: String? = nil) {
            guard let badge else {
                out += style.frame(left + String(repeating: fill, count: width - 2) + right) + "\n"
                return
            }
            let rest = width - 5 - TextWrapper.displayWidth(badge)
            out += style.frame(left + fill) + " " + style.badge(badge) + " "
                + style.frame(String(repeating: fill, count: max(0, rest)) + right) + "\n"
        }
        func row(_ plain: String, styled: String? = nil) {
            let padding = String(repeating: " ", count: max(0, inner - TextWrapper.displayWidth(plain)))
            out += style.frame("│") + " " + (styled ?? plain) + padding + " " + style.frame("│") + "\n"
        }
        func blank() { row("") }

        border("╭", "─", "╮", badge: "[\(spec.severity.rawValue.uppercased())]")
        for line in TextWrapper.wrap(spec.title, width: inner) { row(line, styled: style.title(line)) }

        if let message = spec.message {
            blank()
            // `isNewline` also splits at "\r\n", which Swift counts as one Character.
            for paragraph in message.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
                // Messages are often a command's output (`df -h | alertctl send -m -`):
                // its spacing is its layout. Tabs become spaces to the next stop, since
                // the model allows them and a tab would break the frame.
                for line in TextWrapper.wrapKeepingSpaces(TextWrapper.expandingTabs(String(paragraph)), width: inner) {
                    row(line)
                }
            }
        }

        if !spec.labels.isEmpty {
            blank()
            let pairs = spec.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            for line in pack(pairs, width: inner) { row(line) }
        }

        let actions = ActionKind.allCases.compactMap { kind in spec.action(kind).map { (kind, $0) } }
        if !actions.isEmpty {
            blank()
            let labelWidth = actions.map { TextWrapper.displayWidth($0.1.label) }.max() ?? 0
            for (kind, action) in actions {
                let how = context.actionLinks[kind] ?? "alertctl \(kind.rawValue) \(alert.id)"
                let head = "▸ " + TextWrapper.pad(action.label, to: labelWidth) + "   "
                if TextWrapper.displayWidth(head + how) <= inner {
                    row(head + how, styled: style.action(head) + how)
                } else {
                    // Too long for one line: the label, then the command or link indented below.
                    row("▸ " + action.label, styled: style.action("▸ " + action.label))
                    for line in TextWrapper.wrap(how, width: inner - 4) { row("    " + line) }
                }
            }
        }

        border("├", "─", "┤")
        var facts = [("id", alert.id.rawValue), ("created", UTCTimestamp.readable(alert.createdAt))]
        if let expires = alert.expiresAt { facts.append(("expires", UTCTimestamp.readable(expires))) }
        // A dedup key keeps invisible characters, to match byte for byte: shown, they are marked.
        if let key = spec.dedupKey { facts.append(("dedup", TextPolicy.replacingRefused(in: key, .line))) }
        for (name, value) in facts {
            let lines = TextWrapper.wrap(value, width: inner - 9)
            for (i, line) in lines.enumerated() {
                let key = TextWrapper.pad(i == 0 ? name : "", to: 9)
                row(key + line, styled: style.dim(key) + line)
            }
        }
        border("╰", "─", "╯")
        return out
    }

    /// Lays out `key=value` pairs two spaces apart, as many per line as fit.
    private static func pack(_ items: [String], width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for item in items {
            for piece in TextWrapper.wrap(item, width: width) {
                if line.isEmpty {
                    line = piece
                } else if TextWrapper.displayWidth(line) + 2 + TextWrapper.displayWidth(piece) <= width {
                    line += "  " + piece
                } else {
                    lines.append(line)
                    line = piece
                }
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// ANSI escapes for one severity; every method returns its input
    /// unchanged when colour is off.
    private struct Style {
        package let colourCode: String
        package let enabled: Bool

        package init(severity: Severity, enabled: Bool) {
            self.enabled = enabled
            switch severity {
            case .critical: colourCode = "31"  // red
            case .error: colourCode = "91"     // bright red
            case .warning: colourCode = "33"   // yellow
            case .info: colourCode = "36"      // cyan
            }
        }

        package func frame(_ s: String) -> String { wrap(s, colourCode) }
        package func badge(_ s: String) -> String { wrap(s, "1;" + colourCode) }
        package func title(_ s: String) -> String { wrap(s, "1") }
        package func action(_ s: String) -> String { wrap(s, "1") }
        package func dim(_ s: String) -> String { wrap(s, "2") }

        private func wrap(_ s: String, _ code: String) -> String {
            enabled && !s.isEmpty ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s
        }
    }
}

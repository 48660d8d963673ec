import AlertModel
import AlertdHTTP

/// The table `alertctl list` prints: one aligned row per alert, the title
/// cut to fit the width.
///
/// ```
/// ID                                    STATE  SEVERITY  CREATED (UTC)        TITLE
/// 0197a4c2-5b1e-7c3d-8e9f-0123456789ab  open   critical  2025-06-01 12:00:00  Disk full on db1
/// ```
package enum AlertListTable {
    /// The title column never shrinks below this, even if the line overflows.
    package static let minimumTitleWidth = 10

    package static func text(_ alerts: [APIRepresentation.AlertDetail], width: Int) -> String {
        let header = ["ID", "STATE", "SEVERITY", "CREATED (UTC)"]
        let rows = alerts.map { alert in
            [alert.id.rawValue, alert.state.rawValue, alert.spec.severity.rawValue, UTCTimestamp.dateTime(alert.createdAt)]
        }
        var widths = header.map(TextWrapper.displayWidth)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], TextWrapper.displayWidth(cell)) }
        }
        let gap = "  "
        let used = widths.reduce(0, +) + gap.count * widths.count
        let titleWidth = max(minimumTitleWidth, width - used)

        func line(_ cells: [String], title: String) -> String {
            zip(cells, widths).map { TextWrapper.pad($0, to: $1) }.joined(separator: gap) + gap + truncate(title, to: titleWidth)
        }
        var lines = [line(header, title: "TITLE")]
        for (row, alert) in zip(rows, alerts) {
            lines.append(line(row, title: singleLine(alert.spec.title)))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` cut to `width` cells, ending in `…` when cut.
    package static func truncate(_ text: String, to width: Int) -> String {
        guard TextWrapper.displayWidth(text) > width else { return text }
        var out = ""
        var used = 0
        for character in text {
            let w = TextWrapper.displayWidth(String(character))
            if used + w > width - 1 { break }
            out.append(character)
            used += w
        }
        return out + "…"
    }

    /// Control characters (line breaks, escapes) as spaces, so one alert stays one row
    /// and a title cannot drive the terminal; what else a line may not hold
    /// (``TextPolicy``: a right-to-left override, which reorders what the
    /// reader sees) as U+FFFD. Titles are held to that policy when stored,
    /// but a server that is not alertd holds to nothing.
    package static func singleLine(_ text: String) -> String {
        let spaced = String(text.map { character in
            character.unicodeScalars.contains { $0.properties.generalCategory == .control } ? " " : character
        })
        return TextPolicy.replacingRefused(in: spaced, .line)
    }
}

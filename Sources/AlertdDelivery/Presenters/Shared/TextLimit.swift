import AlertModel

/// Cuts text to a service's length limit, visibly: the cut text ends in a
/// marker, so a reader knows there was more, and it is never cut inside a
/// character (a flag, an accented letter, an emoji sequence stays whole).
public enum TextLimit {
    /// How a service counts length.
    public enum Unit: Sendable {
        /// Characters as a person sees them (grapheme clusters).
        case characters
        /// UTF-16 code units: what JavaScript's `length` counts, and so what
        /// most web APIs mean by "characters". Never fewer than `characters`.
        case utf16
        /// Bytes of UTF-8.
        case utf8
        /// Bytes of UTF-8 once written in a JSON string (a quote or a
        /// backslash takes two): for services that limit a whole request.
        case json
    }

    /// Ends a shortened field (a title, a label).
    public static let marker = "…"
    /// Ends a shortened body of text.
    public static let bodyMarker = "\n… (truncated)"

    /// `text` if it fits in `limit`, else as much of it as fits with
    /// `marker` appended, the whole within `limit`. With `escape`, the
    /// result is escaped and the limit holds for the escaped text, which is
    /// never cut inside an escape (`&amp;` stays whole). An escape may
    /// depend on what surrounds a character (a line's start, a web
    /// address), so the cut is checked on the escaped whole.
    public static func truncate(
        _ text: String, to limit: Int, in unit: Unit = .utf16, marker: String = TextLimit.marker,
        escape: (String) -> String = { $0 }
    ) -> String {
        let whole = escape(text)
        guard length(whole, unit) > limit else { return whole }
        let budget = limit - length(marker, unit)
        guard budget > 0 else { return String(marker.prefix(max(0, limit))) }
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            let size = length(escape(String(text[index])), unit)
            if used + size > budget { break }
            used += size
            end = text.index(after: index)
        }
        var cut = escape(String(text[..<end]))
        // Each character escapes to at least one unit: stepping back by the
        // excess converges in a few rounds.
        while end > text.startIndex, case let excess = length(cut, unit) - budget, excess > 0 {
            end = text.index(end, offsetBy: -excess, limitedBy: text.startIndex) ?? text.startIndex
            cut = escape(String(text[..<end]))
        }
        return cut + marker
    }

    /// `lines` joined by newlines, as many whole lines as fit in `limit`
    /// with the marker on a line of its own after them when some did not.
    /// For text whose lines are marked up already: a cut inside one could
    /// split an escape or a link.
    public static func wholeLines(_ lines: [String], within limit: Int, in unit: Unit = .utf16, marker: String = TextLimit.marker) -> String {
        let whole = lines.joined(separator: "\n")
        guard length(whole, unit) > limit else { return whole }
        let budget = limit - length("\n" + marker, unit)
        var kept: [String] = []
        var used = 0
        for line in lines {
            let size = length(line, unit) + (kept.isEmpty ? 0 : 1)
            guard used + size <= budget else { break }
            kept.append(line)
            used += size
        }
        return (kept + [marker]).joined(separator: "\n")
    }

    /// `text`'s length as `unit` counts it.
    public static func length(_ text: String, _ unit: Unit) -> Int {
        switch unit {
        case .characters: text.count
        case .utf16: text.utf16.count
        case .utf8: text.utf8.count
        case .json: JSONObject.escapedLength(text)
        }
    }
}

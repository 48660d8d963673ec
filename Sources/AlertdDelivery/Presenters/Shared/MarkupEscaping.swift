/// Escaping for the markup languages services render text in, so an
/// alert's own `<`, `&` or `*` shows as typed instead of becoming markup
/// (or breaking the message).
public enum MarkupEscaping {
    /// HTML text and attribute values (mail, Matrix, Telegram, Pushover).
    public static func html(_ text: String) -> String {
        text.replacingScalars(["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"])
    }

    /// Slack's mrkdwn: only `&`, `<` and `>` are special, and Slack asks for
    /// exactly these three to be escaped (`<` starts a link or mention).
    public static func slack(_ text: String) -> String {
        text.replacingScalars(["&": "&amp;", "<": "&lt;", ">": "&gt;"])
    }

    /// Markdown (CommonMark, GFM, Discord's): what would become markup
    /// shows as typed. Inline markup characters get a backslash everywhere;
    /// those that only mean something at the start of a line (a heading, a
    /// quote, a list item) get one there. A web address is left whole, in
    /// `<…>` (an autolink, where nothing is markup): escaped like the text
    /// around it, its dots and underscores broke the link renderers make of
    /// it (`http://127\.0\.0\.1` became a link to `http://127`). With
    /// `hardBreaks`, each line break is one (two spaces before it) for
    /// renderers that otherwise join a message's lines into one paragraph.
    public static func markdown(_ text: String, hardBreaks: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        var first = true
        // By scalars: "\r\n" is one Character, and a split on "\n" left every such line unescaped.
        for line in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            if !first { out += hardBreaks ? "  \n" : "\n" }
            first = false
            markdownLine(line.last == "\r" ? line.dropLast() : line, into: &out)
        }
        return out
    }

    /// ``markdown(_:hardBreaks:)`` without hard breaks.
    public static func markdown(_ text: String) -> String { markdown(text, hardBreaks: false) }

    private static let inlineMarkup: Set<Unicode.Scalar> = ["\\", "`", "*", "_", "{", "}", "[", "]", "<", ">", "~", "|"]
    private static let lineStartMarkup: Set<Unicode.Scalar> = ["#", ">", "-", "+", "="]

    private static func markdownLine(_ scalars: String.UnicodeScalarView.SubSequence, into out: inout String) {
        var i = scalars.startIndex
        // Leading blanks, then what would open a heading, quote or list.
        while i < scalars.endIndex, scalars[i] == " " || scalars[i] == "\t" {
            out.unicodeScalars.append(scalars[i])
            i = scalars.index(after: i)
        }
        if i < scalars.endIndex, lineStartMarkup.contains(scalars[i]) {
            out += "\\"
            out.unicodeScalars.append(scalars[i])
            i = scalars.index(after: i)
        } else {
            // "1." or "1)" opens an ordered list.
            var j = i
            while j < scalars.endIndex, ("0"..."9").contains(scalars[j]) { j = scalars.index(after: j) }
            if j != i, j < scalars.endIndex, scalars[j] == "." || scalars[j] == ")" {
                out.unicodeScalars.append(contentsOf: scalars[i..<j])
                out += "\\"
                i = j
            }
        }
        while i < scalars.endIndex {
            if let end = webAddressEnd(scalars, from: i) {
                out += "<"
                out.unicodeScalars.append(contentsOf: scalars[i..<end])
                out += ">"
                i = end
                continue
            }
            let c = scalars[i]
            let next = scalars.index(after: i)
            // `&amp;` and `&#60;` would be read as the characters they name.
            if inlineMarkup.contains(c) || (c == "&" && next < scalars.endIndex && (scalars[next] == "#" || scalars[next].properties.isAlphabetic)) {
                out += "\\"
            }
            out.unicodeScalars.append(c)
            i = next
        }
    }

    /// Where a web address starting at `start` ends, or nil if none starts
    /// there: `http://` or `https://` after a space or the line's start, up
    /// to a blank or `<`/`>`, without the punctuation that ends a sentence
    /// or a closing bracket it did not open (as GFM's autolinks take it).
    private static func webAddressEnd(_ s: String.UnicodeScalarView.SubSequence, from start: String.UnicodeScalarView.Index) -> String.UnicodeScalarView.Index? {
        let c = s[start]
        guard c == "h" || c == "H" else { return nil }
        if start != s.startIndex {
            let before = s[s.index(before: start)]
            guard before == " " || before == "\t" || before == "(" else { return nil }
        }
        let prefix = String(String.UnicodeScalarView(s[start...].prefix(8))).lowercased()
        let schemeLength = prefix.hasPrefix("https://") ? 8 : prefix.hasPrefix("http://") ? 7 : 0
        guard schemeLength > 0 else { return nil }
        var end = s.index(start, offsetBy: schemeLength)
        let hostStart = end
        // Brackets counted on the way, once: recounting them for each one trimmed took seconds for a run of them.
        var unmatched = 0
        while end < s.endIndex, !s[end].properties.isWhitespace, s[end] != "<", s[end] != ">", s[end].value >= 0x20 {
            if s[end] == "(" { unmatched -= 1 } else if s[end] == ")" { unmatched += 1 }
            end = s.index(after: end)
        }
        // Sentence punctuation and unmatched closing brackets stay outside.
        while end > hostStart {
            let last = s[s.index(before: end)]
            if ".,:;!?'\"*_~".unicodeScalars.contains(last) {
                end = s.index(before: end)
            } else if last == ")", unmatched > 0 {
                unmatched -= 1
                end = s.index(before: end)
            } else {
                break
            }
        }
        return end > hostStart ? end : nil
    }

    /// The Markdown subset of an Adaptive Card's `TextBlock` and `FactSet`
    /// (Teams): bold, italic, lists and links. What makes a link or
    /// emphasis gets a backslash, so a sender cannot plant a "Confirm" link
    /// beside the card's own buttons; the rest (`.`, `-`, `#`) is left as
    /// typed, since a client that shows a backslash would show it in
    /// every host name.
    public static func adaptiveCard(_ text: String) -> String {
        backslashing(text, "\\`*_[]<>")
    }

    /// `text` with a backslash before each scalar of `special`.
    private static func backslashing(_ text: String, _ special: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            if special.unicodeScalars.contains(c) { out += "\\" }
            out.unicodeScalars.append(c)
        }
        return out
    }
}

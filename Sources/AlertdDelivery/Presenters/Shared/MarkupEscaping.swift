/// Escaping for the markup languages services render text in, so an
/// alert's own `<`, `&` or `*` shows as typed instead of becoming markup
/// (or breaking the message).
public enum MarkupEscaping {
    /// HTML text and attribute values (mail, Matrix, Telegram, Pushover).
    public static func html(_ text: String) -> String {
        replacing(text, ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"])
    }

    /// Slack's mrkdwn: only `&`, `<` and `>` are special, and Slack asks for
    /// exactly these three to be escaped (`<` starts a link or mention).
    public static func slack(_ text: String) -> String {
        replacing(text, ["&": "&amp;", "<": "&lt;", ">": "&gt;"])
    }

    /// `text` with each scalar in `table` replaced by its entity.
    private static func replacing(_ text: String, _ table: [Unicode.Scalar: String]) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            if let entity = table[c] { out += entity } else { out.unicodeScalars.append(c) }
        }
        return out
    }

    /// Markdown (CommonMark): each ASCII punctuation character that can
    /// start markup gets a backslash.
    public static func markdown(_ text: String) -> String {
        backslashing(text, "\\`*_{}[]()#+-.!|<>~")
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

/// The one rule for text that someone sends alertd and someone else reads:
/// alert titles, messages, labels, action labels, dedup keys, decision
/// comments and actor names. Such text ends up in terminals, chat apps,
/// log lines and handler payloads, so it may hold nothing that acts on
/// the reader's screen instead of showing as text:
///
/// - control characters (Unicode category Cc: U+0000–001F, U+007F–009F),
///   which drive terminals (ESC starts colour and title sequences, CR
///   overwrites the line); multi-line text keeps LF, tab and CR before LF;
/// - bidirectional formatting characters (U+061C, U+200E, U+200F,
///   U+202A–202E, U+2066–2069), which make text display in another order
///   than it was written ("Trojan Source");
/// - invisible characters that separate nothing a person can see (U+200B,
///   U+2060–2064, U+FEFF, U+180E, U+206A–206F, U+FFF9–FFFB, and tag
///   characters outside an emoji flag), which make two different strings
///   look the same or hide text from the person who approves it;
/// - in one-line text, the line and paragraph separators U+2028/U+2029.
///
/// Zero-width joiners (U+200C, U+200D) and variation selectors stay
/// allowed: emoji sequences and several scripts need them to be written at all.
public enum TextPolicy {
    /// What shape the text has.
    public enum Kind: Sendable {
        /// One line: titles, label values, action labels, actor names.
        case line
        /// A key machines compare and people rarely read (dedup keys): one
        /// line, but invisible characters are kept as sent, since two
        /// senders' keys must match byte for byte whatever their encoders do.
        case identifier
        /// Paragraphs: messages and comments keep newlines (LF or CRLF) and tabs.
        case multiline
    }

    /// A character the policy refuses, and why.
    public struct Refusal: Sendable, Equatable, CustomStringConvertible {
        public let scalar: Unicode.Scalar
        /// What kind of character it is, e.g. "a bidirectional formatting character".
        public let reason: String

        /// `U+202E (a bidirectional formatting character)`.
        public var description: String { "\(TextPolicy.codePoint(scalar)) (\(reason))" }
    }

    /// The first character of `text` the policy refuses, or nil when it is all allowed.
    /// Compared as numbers: the Unicode property tables cost far more, and
    /// this runs over every field of every alert.
    public static func firstRefused(in text: String, _ kind: Kind) -> Refusal? {
        // Printable ASCII, most text, is never refused: no scalar-by-scalar walk for it.
        var contiguous = text
        if contiguous.withUTF8({ $0.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }) { return nil }
        var previous: Unicode.Scalar?
        var iterator = text.unicodeScalars.makeIterator()
        var current = iterator.next()
        while let s = current {
            let next = iterator.next()
            if let reason = reason(s, previous: previous, next: next, kind) {
                return Refusal(scalar: s, reason: reason)
            }
            previous = s
            current = next
        }
        return nil
    }

    /// `text` with each character the policy refuses replaced by U+FFFD: for
    /// text from outside that is shown rather than refused, such as a
    /// service's error message in a delivery's `last_error`.
    public static func replacingRefused(in text: String, _ kind: Kind) -> String {
        mappingRefused(in: text, kind) { _ in "\u{FFFD}" }
    }

    /// `text` with each character the policy refuses in one line written as
    /// its code point (`<U+202E>`): for quoting what a sender sent back to
    /// them in an error, where it must not act on the reader's screen either.
    public static func spellingRefused(in text: String) -> String {
        mappingRefused(in: text, .line) { "<\(codePoint($0))>" }
    }

    private static func mappingRefused(in text: String, _ kind: Kind, _ shown: (Unicode.Scalar) -> String) -> String {
        guard firstRefused(in: text, kind) != nil else { return text }
        var out = ""
        var previous: Unicode.Scalar?
        var iterator = text.unicodeScalars.makeIterator()
        var current = iterator.next()
        while let s = current {
            let next = iterator.next()
            if reason(s, previous: previous, next: next, kind) == nil { out.unicodeScalars.append(s) } else { out += shown(s) }
            previous = s
            current = next
        }
        return out
    }

    /// The problem to report for `field`, or nil when the text passes.
    /// `what` names the text in a sentence: "The title", "The value of label `env`".
    public static func problem(field: @autoclosure () -> String, in text: String, _ kind: Kind, what: @autoclosure () -> String)
        -> AlertSpecError? {
        guard let refused = firstRefused(in: text, kind) else { return nil }
        let shape = kind == .multiline ? "plain text (newlines and tabs are fine)" : "one line of plain text"
        return AlertSpecError(
            field: field(), code: .controlCharacters,
            message: "\(what()) contains \(refused); it must be \(shape). Remove the character (terminal escapes, "
                + "direction overrides and invisible characters change what a reader sees).")
    }

    private static func reason(_ s: Unicode.Scalar, previous: Unicode.Scalar?, next: Unicode.Scalar?, _ kind: Kind) -> String? {
        switch s.value {
        case 0x20..<0x7F:
            return nil
        case 0x0A, 0x09:
            return kind == .multiline ? nil : "a line break or tab"
        case 0x0D:
            // CRLF is a newline; a lone CR moves the cursor back over what was printed.
            return kind == .multiline && next == "\n" ? nil : "a carriage return"
        case 0x00...0x1F, 0x7F...0x9F:
            return "a control character"
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
            return "a bidirectional formatting character"
        case 0x200B, 0x2060...0x2064, 0xFEFF, 0x180E, 0x206A...0x206F, 0xFFF9...0xFFFB:
            return kind == .identifier ? nil : "an invisible character"
        case 0x2028, 0x2029:
            return kind == .multiline ? nil : "a line break"
        case 0xE0000...0xE007F:
            // Tag characters spell the subdivision flags (🏴 + tags + cancel tag);
            // anywhere else they are text no one can see.
            let inFlag = s.value >= 0xE0020 && (previous?.value == 0x1F3F4 || (0xE0020...0xE007E).contains(previous?.value ?? 0))
            return inFlag ? nil : "an invisible tag character"
        default:
            return nil
        }
    }

    /// `U+202E`.
    static func codePoint(_ s: Unicode.Scalar) -> String {
        let hex = String(s.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

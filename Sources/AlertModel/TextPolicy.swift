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
/// - invisible characters that separate nothing a person can see (Unicode's
///   default-ignorable code points, such as U+200B, U+2060–2064, U+FEFF,
///   U+00AD, U+034F, the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0,
///   U+FFF9–FFFB, and tag characters outside a subdivision flag), which make
///   two different strings look the same or hide text from the person who
///   approves it: behind one 🏴, any number of tags spelled a message no
///   one saw;
/// - in one-line text, the line and paragraph separators U+2028/U+2029.
///
/// Zero-width joiners (U+200C, U+200D) and variation selectors (Mongolian's
/// free variation selectors too) stay allowed where they join or vary
/// something: a joiner alone between two characters, a selector alone after
/// the character it varies (an ideographic one after an ideograph). Emoji
/// sequences and several scripts need them to be written at all; runs of
/// them, a byte each, hid any text.
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
        var refused: Refusal?
        walk(text, kind) { s, reason in
            if let reason { refused = Refusal(scalar: s, reason: reason) }
            return refused == nil
        }
        return refused
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
        walk(text, kind) { s, reason in
            if reason == nil { out.unicodeScalars.append(s) } else { out += shown(s) }
            return true
        }
        return out
    }

    /// Each scalar of `text` with why the policy refuses it (nil when it
    /// does not), until `visit` returns false. Looks ahead past one scalar
    /// only after a 🏴, for the tags of a flag.
    private static func walk(_ text: String, _ kind: Kind, _ visit: (Unicode.Scalar, String?) -> Bool) {
        let scalars = text.unicodeScalars
        // Where the tags of the flag being read end (after its cancel tag).
        var flagEnd = scalars.startIndex
        var previous: Unicode.Scalar?
        var i = scalars.startIndex
        while i < scalars.endIndex {
            let s = scalars[i]
            let next = scalars.index(after: i)
            let why: String?
            if (0xE0000...0xE007F).contains(s.value) {
                if i >= flagEnd, previous?.value == 0x1F3F4, let end = subdivisionFlagEnd(scalars, from: i) { flagEnd = end }
                why = i < flagEnd ? nil : "an invisible tag character"
            } else {
                why = reason(s, previous: previous, next: next < scalars.endIndex ? scalars[next] : nil, kind)
            }
            guard visit(s, why) else { return }
            previous = s
            i = next
        }
    }

    /// Past the cancel tag, when the tags from `start` spell a subdivision
    /// code (Unicode's: 3–6 lower-case letters or digits, `gbsct`) and end
    /// with the cancel tag U+E007F, as a flag's do.
    private static func subdivisionFlagEnd(_ scalars: String.UnicodeScalarView, from start: String.UnicodeScalarView.Index)
        -> String.UnicodeScalarView.Index? {
        var i = start
        var count = 0
        while i < scalars.endIndex, count < 6,
              (0xE0061...0xE007A).contains(scalars[i].value) || (0xE0030...0xE0039).contains(scalars[i].value) {
            i = scalars.index(after: i)
            count += 1
        }
        guard count >= 3, i < scalars.endIndex, scalars[i].value == 0xE007F else { return nil }
        return scalars.index(after: i)
    }

    /// Whether `text` shows nothing at all: only spaces of any width,
    /// invisible characters and blank signs such as U+2800, which a reader
    /// takes for no text.
    public static func showsNothing(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { s in
            s.properties.isWhitespace || s.properties.isDefaultIgnorableCodePoint || s.value == 0x2800
        }
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
        case 0x200B, 0x2060...0x2065, 0xFEFF, 0x180E, 0x206A...0x206F, 0xFFF9...0xFFFB,
             0x00AD, 0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, 0xFFF0...0xFFF8,
             0x1BCA0...0x1BCA3, 0x1D173...0x1D17A, 0xE0080...0xE00FF, 0xE01F0...0xE0FFF:
            return kind == .identifier ? nil : "an invisible character"
        case 0x2028, 0x2029:
            return kind == .multiline ? nil : "a line break"
        case 0x200C, 0x200D:
            // A joiner joins two characters: alone between them. Runs of
            // them, or one at an end, spelled hidden bits.
            guard kind != .identifier else { return nil }
            let joins = previous.map { !isJoiner($0) } == true && next.map { !isJoiner($0) && !isVariationSelector($0) } == true
            return joins ? nil : "an invisible joiner outside a sequence"
        case 0xFE00...0xFE0F, 0xE0100...0xE01EF, 0x180B...0x180D, 0x180F:
            // A variation selector picks a form of the one character before
            // it (an emoji's, an ideograph's): one after each. A run of them,
            // a byte each, carried any text no one saw.
            guard kind != .identifier else { return nil }
            guard let previous, !isJoiner(previous), !isVariationSelector(previous), previous.value > 0x20 else {
                return "an invisible variation selector outside a sequence"
            }
            // The ideographic variation selectors are for ideographs alone.
            return s.value >= 0xE0100 && !previous.properties.isIdeographic ? "an invisible variation selector outside a sequence" : nil
        default:
            return nil
        }
    }

    private static func isJoiner(_ s: Unicode.Scalar) -> Bool { s.value == 0x200C || s.value == 0x200D }

    private static func isVariationSelector(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0xFE00...0xFE0F, 0xE0100...0xE01EF, 0x180B...0x180D, 0x180F: true
        default: false
        }
    }

    /// `U+202E`.
    static func codePoint(_ s: Unicode.Scalar) -> String {
        let hex = String(s.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

import FoundationEssentials
import AlertModel

/// Internet mail's text encodings (RFC 5322, 2045, 2047), so that what
/// alertd mails survives every relay: header lines folded to 78 columns,
/// non-ASCII header text as encoded-words, bodies quoted-printable in lines
/// of at most 76, every line ending in CRLF.
public enum MIMEText {
    static let crlf = "\r\n"
    /// RFC 5322's recommended line length; 998 is the hard limit.
    static let headerWidth = 78
    /// RFC 2045's limit for a quoted-printable line, soft break included.
    static let bodyWidth = 76
    /// UTF-8 bytes per encoded-word: base64 of 39 bytes is 52 characters,
    /// 64 with `=?UTF-8?B?` and `?=`, so a word fits a folded line with its
    /// field name in front.
    static let wordBytes = 39

    // MARK: Headers

    /// An unstructured field (`Subject`): as is, folded at spaces, when it is
    /// printable ASCII that folds within 78 columns; otherwise as
    /// encoded-words, which is also how a line break in `value` is kept out
    /// of the header.
    public static func unstructured(_ name: String, _ value: String) -> String {
        if isPlain(value), let folded = fold(name + ": ", value.split(separator: " ", omittingEmptySubsequences: false).map(String.init), separator: " ") {
            return folded
        }
        return name + ": " + encodedWords(value).joined(separator: crlf + " ")
    }

    /// An address field (`From`, `To`, `Cc`): `mailboxes` as
    /// `Name <address>` (the name quoted, or as encoded-words when it is not
    /// ASCII), folded after commas.
    public static func addresses(_ name: String, _ mailboxes: [(name: String?, address: String)]) -> String {
        let items = mailboxes.enumerated().map { i, m in
            let text = m.name.map { "\(phrase($0)) <\(m.address)>" } ?? m.address
            return i < mailboxes.count - 1 ? text + "," : text
        }
        // Addresses never need encoding; a name's encoded-words are short
        // enough that folding between mailboxes keeps every line short.
        return fold(name + ": ", items, separator: " ") ?? (name + ": " + items.joined(separator: crlf + " "))
    }

    /// A field of message identifiers (`Message-ID`, `In-Reply-To`,
    /// `References`), one a line; the first on a line of its own when it
    /// would not fit beside the name. An identifier is one token, never
    /// folded inside, so one longer than a line stays whole (up to 998).
    public static func identifiers(_ name: String, _ ids: [String]) -> String {
        let first = name + ": " + (ids.first ?? "")
        let head = first.utf8.count <= headerWidth ? first : name + ":" + crlf + " " + (ids.first ?? "")
        return ([head] + ids.dropFirst()).joined(separator: crlf + " ")
    }

    /// A display name as a header shows it: an atom sequence as is, a quoted
    /// string for ASCII with specials, encoded-words otherwise.
    static func phrase(_ text: String) -> String {
        guard isPlain(text) else { return encodedWords(text).joined(separator: crlf + " ") }
        let atext = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~ ".unicodeScalars)
        if text.unicodeScalars.allSatisfy(atext.contains) && !text.hasPrefix(" ") && !text.hasSuffix(" ") { return text }
        return "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }

    /// Printable ASCII and spaces only, and nothing a decoder could take for
    /// an encoded-word.
    static func isPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } && !text.contains("=?")
    }

    /// `prefix` and `words` joined by `separator`, broken onto continuation
    /// lines (CRLF + space) so that none is longer than 78; nil if a single
    /// word is too long for that.
    static func fold(_ prefix: String, _ words: [String], separator: String) -> String? {
        var lines: [String] = []
        var line = prefix
        var lineHasWord = false
        for word in words {
            let candidate = lineHasWord ? line + separator + word : line + word
            if candidate.utf8.count <= headerWidth {
                line = candidate
                lineHasWord = true
                continue
            }
            guard lineHasWord else { return nil }
            lines.append(line)
            line = " " + word
            guard line.utf8.count <= headerWidth else { return nil }
        }
        lines.append(line)
        // A line of nothing but white space (a run of spaces folded) is
        // obsolete syntax, which a reader may take for the headers' end.
        guard lines.dropFirst().allSatisfy({ $0.contains { $0 != " " } }) else { return nil }
        return lines.joined(separator: crlf)
    }

    /// RFC 2047 `B` encoded-words for `text`, each holding whole characters
    /// (Unicode scalars) of at most ``wordBytes`` bytes of UTF-8.
    public static func encodedWords(_ text: String) -> [String] {
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > wordBytes, !chunk.isEmpty {
                words.append(word(chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(word(chunk)) }
        return words
    }

    private static func word(_ bytes: [UInt8]) -> String {
        "=?UTF-8?B?" + Data(bytes).base64EncodedString() + "?="
    }

    // MARK: Bodies

    /// `text` as quoted-printable UTF-8: line breaks become CRLF, lines are
    /// soft-broken (`=` CRLF) to at most 76 characters, and `=`, non-ASCII,
    /// control characters and whitespace before a line end are escaped.
    public static func quotedPrintable(_ text: String) -> String {
        let normalised = text.replacing("\r\n", with: "\n").replacing("\r", with: "\n")
        return normalised.split(separator: "\n", omittingEmptySubsequences: false).map { encodeLine(Array($0.utf8)) }
            .joined(separator: crlf)
    }

    private static func encodeLine(_ bytes: [UInt8]) -> String {
        var out: [String] = []
        var line = ""
        for (i, byte) in bytes.enumerated() {
            let last = i == bytes.count - 1
            let literal = (byte >= 33 && byte <= 126 && byte != 61) || ((byte == 32 || byte == 9) && !last)
            let token = literal ? String(UnicodeScalar(byte)) : "=" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            // Room for the token, plus the soft break's `=` unless this is the line's end.
            if line.utf8.count + token.utf8.count + (last ? 0 : 1) > bodyWidth {
                out.append(line + "=")
                line = ""
            }
            line += token
        }
        out.append(line)
        return out.joined(separator: crlf)
    }

    // MARK: Dates

    /// RFC 5322 `date-time` in UTC: `Mon, 01 Jul 2024 12:00:00 +0000`.
    public static func date(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = UTCTimestamp.civil(daysSinceEpoch: days)
        let weekday = Int((days % 7 + 7 + 4) % 7)  // 1970-01-01 was a Thursday
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(names[weekday]), \(two(day)) \(months[Int(month) - 1]) \(year) "
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60)) +0000"
    }
}

import AlertModel

/// `key=value` text, as logfmt readers expect it: alertd's own log lines and
/// the log presenter's logfmt lines are written by the same rules.
public enum Logfmt {
    /// Quotes a value when it is empty or holds a space, `=`, `"`, `\` or a
    /// control character, escaping inside the quotes so the line stays one
    /// line. Bidirectional controls are escaped too (`\u202e`): a program's
    /// output or a server's error quoted in a log line could otherwise turn
    /// the rest of the line around on a terminal, `journalctl` included; so
    /// are the line and paragraph separators some viewers break lines at.
    public static func value(_ value: String) -> String {
        var needsQuotes = value.isEmpty, hides = false
        for scalar in value.unicodeScalars {
            if scalar == " " || scalar == "=" || scalar == "\"" || scalar == "\\" || isControl(scalar) {
                needsQuotes = true
            } else if isHidden(scalar) {
                needsQuotes = true
                hides = true
            }
        }
        guard needsQuotes else { return value }
        // Inside the quotes, the escapes are JSON's, which logfmt readers accept.
        let quoted = JSONObject.quoted(value)
        guard hides else { return quoted }
        var out = String.UnicodeScalarView()
        for scalar in quoted.unicodeScalars {
            if isHidden(scalar) {
                let hex = String(scalar.value, radix: 16)
                out.append(contentsOf: "\\u\(String(repeating: "0", count: 4 - hex.count))\(hex)".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `text` with its control characters and the characters ``value(_:)``
    /// escapes written as escapes (`\n`, `\u202e`), without quotes: for
    /// text a person reads on a terminal, one line of it, that quotes what
    /// someone else wrote (a configuration's keys and values).
    public static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) || isHidden($0) }) else {
            return text
        }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out.append(contentsOf: #"\n"#.unicodeScalars)
            case "\r": out.append(contentsOf: #"\r"#.unicodeScalars)
            case "\t": out.append(contentsOf: #"\t"#.unicodeScalars)
            case _ where isControl(scalar) || isHidden(scalar):
                let hex = String(scalar.value, radix: 16)
                out.append(contentsOf: "\\u\(String(repeating: "0", count: 4 - hex.count))\(hex)".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// Unicode's control characters (Cc) are exactly these two ranges: no table lookup.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The marks and embeddings that reorder text (Unicode's Bidi_Control),
    /// and U+2028 and U+2029: invisible, and never in alert text
    /// (``TextPolicy`` refuses them).
    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// ` key=value key2="quoted value"`, keys sorted: metadata after a message.
    public static func pairs(_ fields: [String: String]) -> String {
        fields.sorted { $0.key < $1.key }.map { " \($0.key)=\(value($0.value))" }.joined()
    }
}

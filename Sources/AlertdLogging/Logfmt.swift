import AlertModel

/// `key=value` text, as logfmt readers expect it: alertd's own log lines and
/// the log presenter's logfmt lines are written by the same rules.
public enum Logfmt {
    /// Quotes a value when it is empty or holds a space, `=`, `"`, `\` or a
    /// control character, escaping inside the quotes so the line stays one line.
    public static func value(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.unicodeScalars.contains {
            // Unicode's control characters (Cc) are exactly these two ranges: no table lookup.
            $0 == " " || $0 == "=" || $0 == "\"" || $0 == "\\" || $0.value < 0x20 || (0x7F...0x9F).contains($0.value)
        }
        // Inside the quotes, the escapes are JSON's, which logfmt readers accept.
        return needsQuotes ? JSONObject.quoted(value) : value
    }

    /// ` key=value key2="quoted value"`, keys sorted: metadata after a message.
    public static func pairs(_ fields: [String: String]) -> String {
        fields.sorted { $0.key < $1.key }.map { " \($0.key)=\(value($0.value))" }.joined()
    }
}

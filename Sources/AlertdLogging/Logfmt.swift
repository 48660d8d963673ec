import FoundationEssentials

/// `key=value` text, as logfmt readers expect it: alertd's own log lines and
/// the log presenter's logfmt lines are written by the same rules.
public enum Logfmt {
    /// Quotes a value when it is empty or holds a space, `=`, `"`, `\` or a
    /// control character, escaping inside the quotes so the line stays one line.
    public static func value(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.unicodeScalars.contains {
            $0 == " " || $0 == "=" || $0 == "\"" || $0 == "\\" || $0.properties.generalCategory == .control
        }
        guard needsQuotes else { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.properties.generalCategory == .control {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// ` key=value key2="quoted value"`, keys sorted: metadata after a message.
    public static func pairs(_ fields: [String: String]) -> String {
        fields.sorted { $0.key < $1.key }.map { " \($0.key)=\(value($0.value))" }.joined()
    }
}

extension JSONObject {
    /// The JSON text of a value built from Swift values, as ``StrictJSON``
    /// reads them: `[String: Any]`, arrays, `String`, `Bool`, integers,
    /// `Double`, ``JSONNull`` (a nil optional or anything else is `null`, and
    /// so is a number JSON cannot write). Object keys are sorted so equal
    /// values give equal bytes; strings are escaped as ``quoted(_:)`` does.
    /// `pretty` indents by two spaces with `"key" : value`, as
    /// `JSONEncoder`'s `.prettyPrinted` does, for people to read.
    package static func text(of value: Any, pretty: Bool = false) -> String {
        var out = ""
        write(value, into: &out, pretty: pretty, indent: 0)
        return out
    }

    private static func write(_ value: Any, into out: inout String, pretty: Bool, indent: Int) {
        switch value {
        case let s as String:
            appendQuoted(s, to: &out)
        case let b as Bool:
            out += b ? "true" : "false"
        case let n as Int:
            out += String(n)
        case let n as Double:
            out += number(n)
        case let object as [String: Any]:
            guard !object.isEmpty else { out += "{}"; return }
            out += "{"
            for (i, key) in object.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                newline(&out, pretty: pretty, indent: indent + 1)
                appendQuoted(key, to: &out)
                out += pretty ? " : " : ":"
                write(object[key]!, into: &out, pretty: pretty, indent: indent + 1)
            }
            newline(&out, pretty: pretty, indent: indent)
            out += "}"
        case let array as [Any]:
            guard !array.isEmpty else { out += "[]"; return }
            out += "["
            for (i, item) in array.enumerated() {
                if i > 0 { out += "," }
                newline(&out, pretty: pretty, indent: indent + 1)
                write(item, into: &out, pretty: pretty, indent: indent + 1)
            }
            newline(&out, pretty: pretty, indent: indent)
            out += "]"
        case let n as any BinaryInteger:
            out += "\(n)"
        case let n as any BinaryFloatingPoint:
            out += number(Double(n))
        default:
            out += "null"
        }
    }

    private static func newline(_ out: inout String, pretty: Bool, indent: Int) {
        guard pretty else { return }
        out += "\n"
        out += String(repeating: "  ", count: indent)
    }

    /// Whole numbers without `.0`; JSON has no NaN or infinity.
    private static func number(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
        return "\(n)"
    }
}

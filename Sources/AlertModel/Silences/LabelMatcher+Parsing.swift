import FoundationEssentials

extension LabelMatcher {
    /// Reads a matcher as amtool and Alertmanager write one: `name=value`,
    /// `name!="value"`, `name=~"regex"`, `name!~regex`, with spaces allowed
    /// around the operator. The value may be in double quotes; inside it
    /// `\"`, `\\` and `\n` are escapes, and any other `\` stays as it is (so
    /// `"db\.example"` is the regex `db\.example`).
    public init(parsing text: String) throws(SilenceError) {
        let trimmed = text.trimmingSpaces()
        let nameEnd = trimmed.unicodeScalars.firstIndex { !($0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil))) }
            ?? trimmed.unicodeScalars.endIndex
        let name = String(trimmed.unicodeScalars[..<nameEnd])
        let rest = String(trimmed.unicodeScalars[nameEnd...]).trimmingSpaces()
        guard !name.isEmpty, let op = MatchOperator.allCases.sorted(by: { $0.rawValue.count > $1.rawValue.count })
            .first(where: { rest.hasPrefix($0.rawValue) }) else {
            throw SilenceError(.invalidMatcher,
                               "`\(text)` is not a matcher; write name=value, name!=value, name=~regex or name!~regex, e.g. alertname=\"DiskFull\".")
        }
        let raw = String(rest.dropFirst(op.rawValue.count)).trimmingSpaces()
        // `host==db1` was host="=db1": an operator doubled, or mistyped, not
        // a value that starts with one. Quoted, such a value is taken.
        if let first = raw.first, first == "=" || first == "~" {
            let meant = "\(name)\(op.rawValue)\(raw.drop { $0 == "=" || $0 == "~" })"
            throw SilenceError(.invalidMatcher,
                               "`\(text)` has a value starting with `\(first)`; for `\(meant)` write it so, and quote a value that starts with `\(first)`: \(name)\(op.rawValue)\"\(raw)\".")
        }
        try self.init(name: name, op, try Self.unquote(raw, in: text))
    }

    /// Reads a selector as Alertmanager's configuration and API take one:
    /// one matcher or several, comma-separated, in braces or not
    /// (`{alertname="DiskFull", rack=~"7|8"}`). A comma inside a quoted
    /// value is part of it; one after the last matcher is allowed.
    public static func list(parsing text: String) throws(SilenceError) -> [LabelMatcher] {
        var body = Substring(text.trimmingSpaces())
        if body.first == "{", body.last == "}" { body = body.dropFirst().dropLast() }
        var parts: [Substring] = []
        var start = body.startIndex, quoted = false, escaped = false
        for i in body.indices {
            let c = body[i]
            if escaped { escaped = false; continue }
            if c == "\\", quoted { escaped = true } else if c == "\"" { quoted.toggle() } else if c == ",", !quoted {
                parts.append(body[start..<i])
                start = body.index(after: i)
            }
        }
        parts.append(body[start...])
        if parts.count > 1, parts.last?.allSatisfy({ $0 == " " || $0 == "\t" }) == true { parts.removeLast() }
        return try parts.map { part throws(SilenceError) in try LabelMatcher(parsing: String(part)) }
    }

    /// The value without its quotes, escapes resolved as Alertmanager does.
    private static func unquote(_ raw: String, in text: String) throws(SilenceError) -> String {
        var body = Substring(raw)
        if body.count >= 2, body.first == "\"", body.last == "\"" { body = body.dropFirst().dropLast() }
        var value = ""
        var escaped = false
        for c in body {
            if escaped {
                escaped = false
                switch c {
                case "n": value.append("\n")
                case "\"", "\\": value.append(c)
                default: value.append("\\"); value.append(c)
                }
                continue
            }
            switch c {
            case "\\": escaped = true
            case "\"":
                throw SilenceError(.invalidMatcher, "The value in `\(text)` has a double quote inside; escape it as \\\" or quote the whole value.")
            default: value.append(c)
            }
        }
        if escaped { value.append("\\") }
        return value
    }
}

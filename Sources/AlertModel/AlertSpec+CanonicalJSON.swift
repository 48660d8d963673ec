extension AlertSpec {
    /// The spec as compact JSON with keys in a fixed order: what the store
    /// keeps. Written by hand because it runs for every accepted alert and
    /// `JSONEncoder` costs several times as much for the same bytes; it is
    /// decoded with the ordinary `Decodable` conformance, and a test holds
    /// the two to each other.
    public var canonicalJSON: String {
        var out = "{"
        func key(_ k: String) { out += out.count > 1 ? ",\"\(k)\":" : "\"\(k)\":" }
        func action(_ a: AlertAction) -> String {
            "{\"label\":\(Self.quoted(a.label)),\"method\":\"\(a.method.rawValue)\",\"url\":\(Self.quoted(a.url))}"
        }
        if let cancel { key("cancel"); out += action(cancel) }
        if let confirm { key("confirm"); out += action(confirm) }
        if let dedupKey { key("dedup_key"); out += Self.quoted(dedupKey) }
        if let expiresAfter { key("expires_after"); out += String(expiresAfter.seconds) }
        key("labels")
        out += "{" + labels.sorted { $0.key < $1.key }.map { "\(Self.quoted($0.key)):\(Self.quoted($0.value))" }.joined(separator: ",") + "}"
        if let message { key("message"); out += Self.quoted(message) }
        key("severity"); out += "\"\(severity.rawValue)\""
        key("title"); out += Self.quoted(title)
        return out + "}"
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    package static func quoted(_ s: String) -> String {
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// One writer for the JSON alertd writes by hand: an object at a time, keys
/// sorted so equal values always give equal bytes, strings escaped in one
/// place. By hand because it runs for every accepted alert, delivery and
/// event, where `JSONEncoder` was the largest single cost in profiles;
/// tests hold each use to its `Codable` reference.
package struct JSONObject: Sendable {
    /// What an absent (nil) value becomes.
    package enum Absent: Sendable {
        /// The key is left out.
        case omit
        /// `"key": null`, so every object of a kind has the same keys.
        case null
    }

    private var fields: [(key: String, json: String)] = []
    private let absent: Absent

    package init(absent: Absent = .omit) {
        self.absent = absent
    }

    package mutating func string(_ key: String, _ value: String?) {
        raw(key, value.map(Self.quoted))
    }

    package mutating func int(_ key: String, _ value: Int64?) {
        raw(key, value.map { String($0) })
    }

    package mutating func object(_ key: String, _ value: JSONObject?) {
        raw(key, value?.json)
    }

    /// An object of strings, e.g. labels.
    package mutating func strings(_ key: String, _ map: [String: String]?) {
        raw(key, map.map { m in
            var o = JSONObject()
            for (k, v) in m { o.string(k, v) }
            return o.json
        })
    }

    /// A value that is JSON already.
    package mutating func raw(_ key: String, _ json: String?) {
        if let json {
            fields.append((key, json))
        } else if absent == .null {
            fields.append((key, "null"))
        }
    }

    /// The object's text, written into one buffer: this runs for every
    /// webhook body and stored spec, where building a string per field and
    /// joining them was most of its cost.
    package var json: String {
        let sorted = fields.sorted { $0.key < $1.key }
        var out = "{"
        out.reserveCapacity(sorted.reduce(2) { $0 + $1.key.utf8.count + $1.json.utf8.count + 4 })
        for (i, field) in sorted.enumerated() {
            if i > 0 { out += "," }
            Self.appendQuoted(field.key, to: &out)
            out += ":"
            out += field.json
        }
        out += "}"
        return out
    }

    /// A JSON string literal: quotes, backslashes and control characters
    /// (C0, DEL and C1) escaped, everything else (U+FEFF and bidi marks
    /// included) kept as sent. Logfmt's quoted values use the same escapes.
    package static func quoted(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count + 2)
        appendQuoted(s, to: &out)
        return out
    }

    /// ``quoted(_:)``, appended to `out`.
    package static func appendQuoted(_ s: String, to out: inout String) {
        out += "\""
        // Most text needs no escape: one scan of the bytes, then one copy.
        // (C1 controls, U+0080–U+009F, are the bytes C2 80–C2 9F.)
        guard s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xC2 }) else {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

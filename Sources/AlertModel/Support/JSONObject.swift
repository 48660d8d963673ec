import FoundationEssentials

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

    /// Each field written as `"key":value` as it is added, back to back in
    /// one buffer; `fields` says where each one is. Writing straight into
    /// bytes, not a string per field, is what makes this cheap: it runs for
    /// every webhook body, stored spec and event.
    private var bytes: [UInt8] = []
    private var fields: [(key: String, range: Range<Int>)] = []
    /// Whether the fields were added in key order, so `write` need not sort.
    private var inKeyOrder = true
    private let absent: Absent

    package init(absent: Absent = .omit) {
        self.absent = absent
        // Room for a small object at once, rather than growing from nothing.
        bytes.reserveCapacity(128)
        fields.reserveCapacity(16)
    }

    package mutating func string(_ key: String, _ value: String?) {
        guard let value else { return addAbsent(key) }
        add(key) { Self.appendQuoted(value, to: &$0) }
    }

    package mutating func int(_ key: String, _ value: Int64?) {
        guard let value else { return addAbsent(key) }
        add(key) { Self.appendDecimal(value, to: &$0) }
    }

    package mutating func object(_ key: String, _ value: JSONObject?) {
        guard let value else { return addAbsent(key) }
        add(key) { value.write(into: &$0) }
    }

    /// An object of strings, e.g. labels.
    package mutating func strings(_ key: String, _ map: [String: String]?) {
        guard let map else { return addAbsent(key) }
        var o = JSONObject()
        // In key order, so the writer need not sort what it was given.
        for (k, v) in map.sorted(by: { $0.key < $1.key }) { o.string(k, v) }
        object(key, o)
    }

    /// A value that is JSON already.
    package mutating func raw(_ key: String, _ json: String?) {
        guard let json else { return addAbsent(key) }
        add(key) { $0.append(contentsOf: json.utf8) }
    }

    /// Bytes that are JSON already.
    package mutating func raw(_ key: String, bytes json: [UInt8]) {
        add(key) { $0.append(contentsOf: json) }
    }

    private mutating func addAbsent(_ key: String) {
        guard absent == .null else { return }
        add(key) { $0.append(contentsOf: "null".utf8) }
    }

    private mutating func add(_ key: String, value: (inout [UInt8]) -> Void) {
        if let last = fields.last, key < last.key { inKeyOrder = false }
        let start = bytes.count
        Self.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        value(&bytes)
        fields.append((key, start..<bytes.count))
    }

    /// Appends the object's text to `out`.
    package func write(into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        let ordered = inKeyOrder ? fields : fields.sorted { $0.key < $1.key }
        for (i, field) in ordered.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: bytes[field.range])
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The object's text as bytes.
    package var jsonBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + fields.count + 2)
        write(into: &out)
        return out
    }

    /// The object's text.
    package var json: String { String(decoding: jsonBytes, as: UTF8.self) }

    /// The object's text, for a request or response body.
    package var jsonData: Data { Data(jsonBytes) }

    /// A JSON string literal: quotes, backslashes and control characters
    /// (C0, DEL and C1) escaped, everything else (U+FEFF and bidi marks
    /// included) kept as sent. Logfmt's quoted values use the same escapes.
    package static func quoted(_ s: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count + 2)
        appendQuoted(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// ``quoted(_:)``, appended to `out`.
    package static func appendQuoted(_ s: String, to out: inout String) {
        out += quoted(s)
    }

    /// ``quoted(_:)``, appended to `out` as UTF-8.
    package static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { appendEscaped($0, to: &out) }
        out.append(UInt8(ascii: "\""))
    }

    /// Copies runs that need no escape whole, and escapes the rest. The C1
    /// controls, U+0080–U+009F, are the byte pairs C2 80 – C2 9F. Runs of
    /// printable ASCII, most of any text, are passed over eight bytes at a
    /// time.
    private static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard let base = utf8.baseAddress else { return }
        let raw = UnsafeRawPointer(base)
        var i = 0
        // Most text (every key, most values) is plain ASCII: one scan, one copy.
        while i + 8 <= utf8.count, isPlainASCII(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { i += 8 }
        while i < utf8.count, (0x20..<0x7F).contains(base[i]), base[i] != 0x22, base[i] != 0x5C { i += 1 }
        if i == utf8.count { return out.append(contentsOf: utf8) }
        var run = 0
        while i < utf8.count {
            if i + 8 <= utf8.count, isPlainASCII(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) {
                i += 8
                continue
            }
            let b = utf8[i]
            let c1 = b == 0xC2 && i + 1 < utf8.count && (0x80...0x9F).contains(utf8[i + 1])
            guard b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F || c1 else {
                i += 1
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<i]))
            switch b {
            case 0x22: out.append(contentsOf: #"\""#.utf8)
            case 0x5C: out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            default: appendUnicodeEscape(c1 ? utf8[i + 1] : b, to: &out)
            }
            i += c1 ? 2 : 1
            run = i
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<utf8.count]))
    }

    /// Whether eight bytes are all printable ASCII other than `"` and `\`
    /// (the usual bit tricks: a byte below n shows as a borrow into its top
    /// bit, an equal byte as a zero after XOR).
    private static func isPlainASCII(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let tops: UInt64 = 0x8080_8080_8080_8080
        func anyBelow(_ v: UInt64, _ n: UInt64) -> Bool { (v &- ones &* n) & ~v & tops != 0 }
        return w & tops == 0 && !anyBelow(w, 0x20) && !anyBelow(w ^ (ones &* 0x22), 1) && !anyBelow(w ^ (ones &* 0x5C), 1)
            && !anyBelow(w ^ (ones &* 0x7F), 1)
    }

    /// The decimal digits of `value`, without the String that
    /// `String(value)` would allocate for every number written.
    private static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 20 digits, the most a UInt64 has
        withUnsafeMutableBytes(of: &digits) { buffer in
            var i = buffer.count
            repeat {
                i -= 1
                buffer[i] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: buffer[i...])
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `\u00XX`, lowercase, for a code point below U+0100.
    private static func appendUnicodeEscape(_ value: UInt8, to out: inout [UInt8]) {
        out.append(contentsOf: #"\u00"#.utf8)
        out.append(hexDigits[Int(value >> 4)])
        out.append(hexDigits[Int(value & 0x0F)])
    }
}

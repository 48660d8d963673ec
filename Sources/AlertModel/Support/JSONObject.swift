import FoundationEssentials

/// One writer for the JSON alertd writes by hand: an object at a time, keys
/// sorted so equal values always give equal bytes, strings escaped in one
/// place. By hand because it runs for every accepted alert, delivery and
/// event, where `JSONEncoder` was the largest single cost in profiles;
/// tests hold each use to its `Codable` reference.
package struct JSONObject {
    /// What an absent (nil) value becomes.
    package enum Absent: Sendable {
        /// The key is left out.
        case omit
        /// `"key": null`, so every object of a kind has the same keys.
        case null
    }

    /// The object's text so far, always whole: `{`, its fields with commas
    /// between them, `}`. A nested object added with a closure is written
    /// into this same buffer, so a whole document is one buffer, with no
    /// buffer per object and no copy of each into its parent.
    private var buffer: JSONBuffer
    /// The object being written now.
    private var open: Level

    /// A field's place in the text: `"key"` from `start` to `keyEnd`, then
    /// `:` and the value up to `end`.
    private struct Field {
        let start: Int
        let keyEnd: Int
        let end: Int
    }

    /// An object being written: where its `{` is, whether its fields came in
    /// key order, and what nil becomes. Where each field is gets read back
    /// from the text only for an object that must be sorted
    /// (``fields(of:)``): nearly every object is written in key order, and
    /// keeping the places as they were written cost an array per document.
    private struct Level {
        let start: Int
        let absent: Absent
        var inKeyOrder = true
        var lastKey = ""
    }

    /// `capacity`: bytes to reserve at once, rather than growing from nothing.
    package init(absent: Absent = .omit, capacity: Int = 128) {
        buffer = JSONBuffer(capacity: capacity)
        open = Level(start: 0, absent: absent)
        buffer.append(Self.openBrace)
        buffer.append(Self.closeBrace)
    }

    package mutating func string(_ key: String, _ value: String?) {
        guard var value else { return absent(key) }
        value.withUTF8 { utf8 in
            let n = Self.escapedCount(utf8)
            let p = beginField(key, room: n + 2)
            p[0] = Self.quote
            Self.writeEscaped(utf8, count: n, to: p + 1)
            p[n + 1] = Self.quote
            endField(written: n + 2)
        }
    }

    package mutating func int(_ key: String, _ value: Int64?) {
        guard let value else { return absent(key) }
        let p = beginField(key, room: 20)
        endField(written: Self.writeDecimal(value, to: p))
    }

    package mutating func object(_ key: String, _ value: JSONObject?) {
        guard let value else { return absent(key) }
        value.withText { raw(key, bytes: $0) }
    }

    /// A nested object, written by `body` straight into this one's text.
    package mutating func object(_ key: String, absent: Absent = .omit, _ body: (inout JSONObject) -> Void) {
        _ = beginField(key, room: 0)
        nested(absent: absent, body)
        endField(written: 0)
    }

    /// An array of objects, one for each of `items`, each written by `body`
    /// straight into this one's text.
    package mutating func objects<Items: Sequence>(_ key: String, _ items: Items, absent: Absent = .omit,
                                                   _ body: (inout JSONObject, Items.Element) -> Void) {
        _ = beginField(key, room: 0)
        buffer.append(Self.openBracket)
        for (i, item) in items.enumerated() {
            if i > 0 { buffer.append(Self.comma) }
            nested(absent: absent) { body(&$0, item) }
        }
        buffer.append(Self.closeBracket)
        endField(written: 0)
    }

    /// An array of strings.
    package mutating func list(_ key: String, _ values: some Sequence<String>) {
        _ = beginField(key, room: 0)
        buffer.append(Self.openBracket)
        for (i, value) in values.enumerated() {
            var value = value
            value.withUTF8 { utf8 in
                let n = Self.escapedCount(utf8)
                let p = buffer.reserve((i > 0 ? 1 : 0) + n + 2)
                var at = 0
                if i > 0 { p[0] = Self.comma; at = 1 }
                p[at] = Self.quote
                Self.writeEscaped(utf8, count: n, to: p + at + 1)
                p[at + n + 1] = Self.quote
                buffer.count += at + n + 2
            }
        }
        buffer.append(Self.closeBracket)
        endField(written: 0)
    }

    /// Writes `{`, the fields `body` adds, `}` at the end of the text, as a
    /// level of its own (sorted there if `body` did not add them in order).
    private mutating func nested(absent: Absent, _ body: (inout JSONObject) -> Void) {
        let p = buffer.reserve(2)
        p[0] = Self.openBrace
        p[1] = Self.closeBrace
        buffer.count += 2
        let outer = open
        open = Level(start: buffer.count - 2, absent: absent)
        body(&self)
        if !open.inKeyOrder {
            // The same bytes in another order: the fields around it stay where they are.
            let sorted = sortedText(of: open)
            sorted.withUnsafeBufferPointer { (buffer.base + open.start).update(from: $0.baseAddress!, count: $0.count) }
        }
        open = outer
    }

    /// A nested object from `value` when there is one, else as nil is written.
    /// Generic, so in another module it runs unspecialized, some 1 k
    /// instructions a call even for nil: code on a hot path there writes
    /// `if let` with ``absent(_:)``.
    package mutating func object<Value>(_ key: String, _ value: Value?, absent: Absent = .omit,
                                        _ body: (inout JSONObject, Value) -> Void) {
        guard let value else { return self.absent(key) }
        object(key, absent: absent) { body(&$0, value) }
    }

    /// An object of strings, e.g. labels.
    package mutating func strings(_ key: String, _ map: [String: String]?) {
        guard let map else { return absent(key) }
        object(key) { $0.strings(map) }
    }

    /// The fields of `map`, strings, in this object.
    package mutating func strings(_ map: [String: String]) {
        // In key order, so the writer need not sort what it was given. A
        // few, as most maps are (labels, event data), are sorted on the
        // stack: a sorted copy cost an array and 1 k instructions a map.
        guard map.count > 1 else { return map.forEach { string($0.key, $0.value) } }
        guard map.count <= 16 else { return map.sorted(by: { $0.key < $1.key }).forEach { string($0.key, $0.value) } }
        withUnsafeTemporaryAllocation(of: (key: String, value: String).self, capacity: map.count) { pairs in
            guard let base = pairs.baseAddress else { return }
            var n = 0
            for pair in map {
                // Insertion: the larger keys move up one, into the free slot.
                var slot = n
                while slot > 0, pair.key < base[slot - 1].key {
                    (base + slot).moveInitialize(from: base + slot - 1, count: 1)
                    slot -= 1
                }
                (base + slot).initialize(to: pair)
                n += 1
            }
            for i in 0..<n { string(base[i].key, base[i].value) }
            base.deinitialize(count: n)
        }
    }

    /// A value that is JSON already.
    package mutating func raw(_ key: String, _ json: String?) {
        guard var json else { return absent(key) }
        json.withUTF8 { raw(key, bytes: $0) }
    }

    /// Bytes that are JSON already.
    package mutating func raw(_ key: String, bytes json: [UInt8]) {
        json.withUnsafeBufferPointer { raw(key, bytes: $0) }
    }

    private mutating func raw(_ key: String, bytes json: UnsafeBufferPointer<UInt8>) {
        let p = beginField(key, room: json.count)
        if let from = json.baseAddress { p.update(from: from, count: json.count) }
        endField(written: json.count)
    }

    /// What a nil value for `key` becomes: nothing, or `null`.
    package mutating func absent(_ key: String) {
        guard open.absent == .null else { return }
        raw(key, bytes: Self.null)
    }

    /// Opens the object's text for a field, writes `"key":` and makes room
    /// for `room` bytes of value (and the closing brace); says where the
    /// value goes (valid until the text grows again).
    private mutating func beginField(_ key: String, room: Int) -> UnsafeMutablePointer<UInt8> {
        if !isKnownUniquelyReferenced(&buffer) { buffer = buffer.copy() }
        // More than the open object's `{}` so far.
        let hasFields = buffer.count - open.start > 2
        if hasFields, open.inKeyOrder, key < open.lastKey { open.inKeyOrder = false }
        open.lastKey = key
        var key = key
        return key.withUTF8 { utf8 in
            let n = Self.escapedCount(utf8)
            buffer.count -= 1  // the object's `}`
            var p = buffer.reserve(n + 4 + room + 1)
            if hasFields {
                p[0] = Self.comma
                p += 1
                buffer.count += 1
            }
            p[0] = Self.quote
            Self.writeEscaped(utf8, count: n, to: p + 1)
            p[n + 1] = Self.quote
            p[n + 2] = Self.colon
            buffer.count += n + 3
            return p + n + 3
        }
    }

    /// Closes a field whose value took `written` more bytes, and the object.
    private mutating func endField(written: Int) {
        buffer.count += written
        buffer.append(Self.closeBrace)
    }

    /// The text of the object `level`, its fields in key order.
    private func sortedText(of level: Level) -> [UInt8] {
        let text = buffer.bytes()
        var out: [UInt8] = []
        out.reserveCapacity(buffer.count - level.start)
        out.append(Self.openBrace)
        let keyed = fields(of: level).map { (key: key(of: $0), field: $0) }
        for (i, entry) in keyed.sorted(by: { $0.key < $1.key }).enumerated() {
            if i > 0 { out.append(Self.comma) }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: text[entry.field.start..<entry.field.end]))
        }
        out.append(Self.closeBrace)
        return out
    }

    /// Where each field of the object `level` is, read back from the text
    /// this writer made: between its braces, fields apart by commas, each a
    /// quoted key, a colon and a value that ends at the next comma outside
    /// any string, object or array (a raw value may hold spaces; they are
    /// passed over like anything else).
    private func fields(of level: Level) -> [Field] {
        let text = buffer.bytes()
        let end = buffer.count - 1  // the object's `}`
        var out: [Field] = []
        var i = level.start + 1
        while i < end {
            if text[i] == Self.comma { i += 1 }
            let start = i
            let keyEnd = Self.afterString(text, at: i)
            i = keyEnd + 1  // past the colon
            var depth = 0
            while i < end, depth > 0 || text[i] != Self.comma {
                switch text[i] {
                case Self.quote: i = Self.afterString(text, at: i) - 1
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                default: break
                }
                i += 1
            }
            out.append(Field(start: start, keyEnd: keyEnd, end: i))
        }
        return out
    }

    /// Just past the string whose opening quote is at `i`.
    private static func afterString(_ text: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        var j = i + 1
        while text[j] != quote { j += text[j] == backslash ? 2 : 1 }
        return j + 1
    }

    /// A field's key, read back from its text: as it is when nothing in it
    /// was escaped, else by the one JSON reader.
    private func key(of field: Field) -> String {
        let quoted = UnsafeBufferPointer(rebasing: buffer.bytes()[field.start..<field.keyEnd])
        let text = UnsafeBufferPointer(rebasing: quoted.dropFirst().dropLast())
        guard text.contains(Self.backslash) else { return String(decoding: text, as: UTF8.self) }
        // This writer's own escapes: always a valid JSON string.
        return (try? StrictJSON.parse(UnsafeRawBufferPointer(quoted))) as? String ?? ""
    }

    /// Calls `body` with the object's text.
    private func withText<T>(_ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        open.inKeyOrder ? body(buffer.bytes()) : sortedText(of: open).withUnsafeBufferPointer(body)
    }

    /// Appends the object's text to `out`.
    package func write(into out: inout [UInt8]) {
        withText { out.append(contentsOf: $0) }
    }

    /// The object's text as bytes.
    package var jsonBytes: [UInt8] { withText { Array($0) } }

    /// The object's text.
    package var json: String { withText { String(decoding: $0, as: UTF8.self) } }

    /// The object's text, for a request or response body.
    package var jsonData: Data { withText { Data(buffer: $0) } }

    /// A JSON string literal: quotes, backslashes and control characters
    /// (C0, DEL and C1) escaped, everything else (U+FEFF and bidi marks
    /// included) kept as sent. Logfmt's quoted values use the same escapes.
    package static func quoted(_ s: String) -> String {
        var out: [UInt8] = []
        appendQuoted(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// ``quoted(_:)``, appended to `out`.
    package static func appendQuoted(_ s: String, to out: inout String) {
        out += quoted(s)
    }

    /// ``quoted(_:)``, appended to `out` as UTF-8.
    package static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { utf8 in
            let n = escapedCount(utf8)
            let old = out.count
            out.append(contentsOf: repeatElement(quote, count: n + 2))
            out.withUnsafeMutableBufferPointer { writeEscaped(utf8, count: n, to: $0.baseAddress! + old + 1) }
        }
    }

    /// How many bytes `s` takes in a JSON document, as ``quoted(_:)``
    /// writes it, without the quotes.
    package static func escapedLength(_ s: String) -> Int {
        var s = s
        return s.withUTF8 { escapedCount($0) }
    }

    /// How many bytes `utf8` takes escaped as ``quoted(_:)`` escapes it.
    /// The C1 controls, U+0080–U+009F, are the byte pairs C2 80 – C2 9F.
    /// Runs of printable ASCII, most of any text, are passed over eight
    /// bytes at a time.
    private static func escapedCount(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = utf8.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        let end = utf8.count
        var n = end
        var i = 0
        while i + 8 <= end, isPlainASCII(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { i += 8 }
        while i < end {
            let extra = escapeExtra[Int(base[i])]
            if extra == 0xFF {
                // C2: a C1 control when 80–9F follows.
                if i + 1 < end, (0x80...0x9F).contains(base[i + 1]) {
                    n += 4
                    i += 1
                }
            } else if extra == 0xFE {
                // E2: U+2028 or U+2029 when 80 A8 or 80 A9 follows.
                if Self.isLineSeparator(base, at: i, end: end) {
                    n += 3
                    i += 2
                }
            } else {
                n += Int(extra)
            }
            i += 1
        }
        return n
    }

    /// Per byte, how many more bytes its escape takes; FF for C2, which
    /// may begin a C1 control, FE for E2, which may begin U+2028 or U+2029.
    /// Those two are escaped as Go's encoder escapes them: JSON allows
    /// them raw, but line readers (Python's `splitlines`, JavaScript before
    /// ES2019) end a line at them, and a JSON-lines log record split in two.
    private static let escapeExtra: [UInt8] = (0...255).map { b -> UInt8 in
        switch b {
        case 0x22, 0x5C, 0x0A, 0x0D, 0x09: 1
        case 0..<0x20, 0x7F: 5
        case 0xC2: 0xFF
        case 0xE2: 0xFE
        default: 0
        }
    }

    /// Whether U+2028 or U+2029 starts at `i`.
    private static func isLineSeparator(_ base: UnsafePointer<UInt8>, at i: Int, end: Int) -> Bool {
        i + 2 < end && base[i + 1] == 0x80 && (base[i + 2] == 0xA8 || base[i + 2] == 0xA9)
    }

    /// Writes `utf8` escaped, `count` bytes as ``escapedCount(_:)`` said, at `p`.
    private static func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>, count: Int, to p: UnsafeMutablePointer<UInt8>) {
        guard let base = utf8.baseAddress else { return }
        // Most text (every key, most values) needs no escape: one copy.
        guard count != utf8.count else { return p.update(from: base, count: count) }
        var o = 0
        var i = 0
        func put(_ b: UInt8) {
            p[o] = b
            o += 1
        }
        while i < utf8.count {
            let b = base[i]
            let c1 = b == 0xC2 && i + 1 < utf8.count && (0x80...0x9F).contains(base[i + 1])
            if b == 0xE2, Self.isLineSeparator(base, at: i, end: utf8.count) {
                for e in [backslash, UInt8(ascii: "u"), UInt8(ascii: "2"), UInt8(ascii: "0"), UInt8(ascii: "2"), base[i + 2] == 0xA8 ? UInt8(ascii: "8") : UInt8(ascii: "9")] {
                    put(e)
                }
                i += 3
                continue
            }
            switch b {
            case quote, backslash: put(backslash); put(b)
            case 0x0A: put(backslash); put(UInt8(ascii: "n"))
            case 0x0D: put(backslash); put(UInt8(ascii: "r"))
            case 0x09: put(backslash); put(UInt8(ascii: "t"))
            case _ where b < 0x20 || b == 0x7F || c1:
                let v = c1 ? base[i + 1] : b
                for e in [backslash, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigits[Int(v >> 4)], hexDigits[Int(v & 0x0F)]] {
                    put(e)
                }
                if c1 { i += 1 }
            default: put(b)
            }
            i += 1
        }
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

    /// Writes the decimal digits of `value` at `p` (room for 20); returns
    /// how many. No String, as `String(value)` would allocate for every
    /// number written.
    private static func writeDecimal(_ value: Int64, to p: UnsafeMutablePointer<UInt8>) -> Int {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 20 digits, the most a UInt64 has
        return withUnsafeMutableBytes(of: &digits) { buffer in
            var magnitude = value.magnitude
            var i = buffer.count
            repeat {
                i -= 1
                buffer[i] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            var o = 0
            if value < 0 {
                p[0] = UInt8(ascii: "-")
                o = 1
            }
            let n = buffer.count - i
            (p + o).update(from: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + i, count: n)
            return o + n
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
    private static let null: [UInt8] = Array("null".utf8)
    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")
    private static let comma = UInt8(ascii: ",")
    private static let colon = UInt8(ascii: ":")
    private static let openBrace = UInt8(ascii: "{")
    private static let closeBrace = UInt8(ascii: "}")
    private static let openBracket = UInt8(ascii: "[")
    private static let closeBracket = UInt8(ascii: "]")
}

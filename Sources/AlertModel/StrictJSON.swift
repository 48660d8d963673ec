import FoundationEssentials

/// JSON read strictly (RFC 8259), straight from the bytes: the one reader for
/// request bodies, configuration, templates and answers from services.
///
/// Strict where lenient readers guess: a trailing comma (`{"a": 1,}`), a
/// duplicate key, a lone surrogate escape, invalid UTF-8, a leading zero or
/// text after the value is refused, with where the problem is, since a body
/// that only alertd would accept is a bug waiting in a client. Every
/// character of a string comes back as sent (a raw U+FEFF included).
///
/// Values come back as Swift values: objects as `[String: Any]`, arrays as
/// `[Any]`, strings as `String`, `true`/`false` as `Bool`, whole numbers that
/// fit as `Int`, other numbers as `Double`, and `null` as ``JSONNull``.
/// Written by hand because it runs for every request: no intermediate
/// Foundation objects, and no ICU (`JSONSerialization` needs full Foundation).
package enum StrictJSON {
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, with the line and column when known.
        package let description: String
    }

    /// Arrays and objects nest at most this deep, so a hostile body cannot
    /// run the reader's stack out.
    package static let maximumDepth = 512

    /// Parses `data`; see the type's description for what comes back.
    package static func parse(_ data: Data) throws(Failure) -> Any {
        try read(data) { reader throws(Failure) in try reader.value() }
    }

    /// Parses the UTF-8 of `text`.
    package static func parse(_ text: String) throws(Failure) -> Any {
        try read(text) { reader throws(Failure) in try reader.value() }
    }

    /// Parses the bytes of one JSON text.
    package static func parse(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Any {
        try read(bytes) { reader throws(Failure) in try reader.value() }
    }

    /// The one JSON text in `bytes`, read by `body`, which reads its value
    /// from the reader as it likes; nothing but whitespace may follow it.
    package static func read<T>(_ bytes: UnsafeRawBufferPointer, _ body: (inout Reader) throws(Failure) -> T) throws(Failure) -> T {
        var reader = Reader(bytes: bytes)
        let value = try body(&reader)
        try reader.end()
        return value
    }

    /// ``read(_:_:)`` over `data`.
    package static func read<T>(_ data: Data, _ body: (inout Reader) throws(Failure) -> T) throws(Failure) -> T {
        let result: Result<T, Failure> = data.withUnsafeBytes { bytes in
            Result { () throws(Failure) -> T in try read(bytes, body) }
        }
        return try result.get()
    }

    /// ``read(_:_:)`` over the UTF-8 of `text`.
    package static func read<T>(_ text: String, _ body: (inout Reader) throws(Failure) -> T) throws(Failure) -> T {
        var text = text
        let result: Result<T, Failure> = text.withUTF8 { utf8 in
            Result { () throws(Failure) -> T in try read(UnsafeRawBufferPointer(utf8), body) }
        }
        return try result.get()
    }

    /// True for JSON `null`.
    package static func isNull(_ value: Any) -> Bool {
        value is JSONNull
    }

    /// True for JSON `true` and `false` (and never for a number).
    package static func isBoolean(_ value: Any) -> Bool {
        value is Bool
    }

    /// A JSON number as a `Double`; nil for anything else, booleans included.
    package static func number(_ value: Any) -> Double? {
        switch value {
        case let n as Int: Double(n)
        case let n as Double: n
        default: nil
        }
    }

    /// A JSON number with no fractional part (`5`, `5.0`, `5e3`) that fits an
    /// `Int`; nil for anything else.
    package static func wholeNumber(_ value: Any) -> Int? {
        switch value {
        case let n as Int: n
        case let n as Double: n == n.rounded() && abs(n) < 9.2e18 ? Int(n) : nil
        default: nil
        }
    }

    /// ` at line 3, column 7` for a byte offset.
    package static func position(in bytes: UnsafeRawBufferPointer, offset: Int) -> String {
        var line = 1
        var column = 1
        for byte in bytes.prefix(offset) {
            if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else { column += 1 }
        }
        return " at line \(line), column \(column)"
    }
}

extension StrictJSON {
    /// The keys of one object read so far, to refuse a repeated one: a list
    /// while there are few (an alert's fields, its labels), which is
    /// cheaper than hashing each, and a set once there are many, so a body
    /// of thousands of keys is not read in the square of its size.
    struct KeySet {
        private var few: [String] = []
        private var many: Set<String>?

        /// Adds `key`; false when it was there already.
        mutating func insert(_ key: String) -> Bool {
            if many != nil { return many!.insert(key).inserted }
            if few.contains(key) { return false }
            // Room for all the list holds at once, not a doubling per key.
            if few.isEmpty { few.reserveCapacity(17) }
            few.append(key)
            if few.count > 16 {
                many = Set(few)
                few = []
            }
            return true
        }
    }
}

/// JSON `null` in a value read by ``StrictJSON``, and written as `null` by
/// ``JSONObject/text(of:pretty:)``.
package struct JSONNull: Sendable, Hashable {
    package init() {}
}

extension StrictJSON {
    /// A recursive-descent reader over the bytes; `offset` is the next byte.
    /// ``parse(_:)`` reads a whole value with it; a caller that knows what
    /// a body holds (``AlertSpec/Builder/reading(_:passing:)``) reads it
    /// member by member, with no dictionary or `Any` in between.
    package struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0
        var depth = 0

        package init(bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
            // A UTF-8 byte-order mark before the text is allowed (RFC 8259 §8.1).
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { offset = 3 }
        }

        func failure(_ message: String, at offset: Int) -> Failure {
            Failure(description: message + StrictJSON.position(in: bytes, offset: offset) + ".")
        }

        var endOfInput: Failure { failure("Unexpected end of file during JSON parse", at: bytes.count) }

        /// Refuses anything but whitespace after the value just read.
        mutating func end() throws(Failure) {
            skipWhitespace()
            if offset < bytes.count { throw failure("Unexpected text after the JSON value", at: offset) }
        }

        /// The first byte of the next value, which is not read yet.
        package mutating func peek() throws(Failure) -> UInt8 {
            skipWhitespace()
            guard offset < bytes.count else { throw endOfInput }
            return bytes[offset]
        }

        /// Reads past the next value if it is `null`, and says whether it was.
        package mutating func skipNull() throws(Failure) -> Bool {
            guard try peek() == UInt8(ascii: "n") else { return false }
            _ = try value()
            return true
        }

        /// The next value if it is a string; any other value is read past, and nil.
        package mutating func stringValue() throws(Failure) -> String? {
            if try peek() == UInt8(ascii: "\"") { return try string() }
            _ = try value()
            return nil
        }

        mutating func skipWhitespace() {
            while offset < bytes.count {
                switch bytes[offset] {
                case 0x20, 0x0A, 0x0D, 0x09: offset += 1
                default: return
                }
            }
        }

        package mutating func value() throws(Failure) -> Any {
            skipWhitespace()
            guard offset < bytes.count else { throw endOfInput }
            switch bytes[offset] {
            case UInt8(ascii: "{"): return try object()
            case UInt8(ascii: "["): return try array()
            case UInt8(ascii: "\""): return try string()
            case UInt8(ascii: "t"): try literal("true"); return true
            case UInt8(ascii: "f"): try literal("false"); return false
            case UInt8(ascii: "n"): try literal("null"); return JSONNull()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw failure("Invalid value", at: offset)
            }
        }

        mutating func literal(_ word: StaticString) throws(Failure) {
            let start = offset
            for expected in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
                guard offset < bytes.count else { throw endOfInput }
                guard bytes[offset] == expected else { throw failure("Invalid value", at: start) }
                offset += 1
            }
        }

        mutating func nest(at start: Int) throws(Failure) {
            depth += 1
            if depth > StrictJSON.maximumDepth {
                throw failure("Too many nested arrays or objects (at most \(StrictJSON.maximumDepth))", at: start)
            }
        }

        mutating func object() throws(Failure) -> [String: Any] {
            // Room for a typical alert's keys at once: growing a dictionary rehashes it.
            // Made with its room: `reserveCapacity` on an empty one is a generic
            // call that looks the storage's metadata up at run time each time.
            var result = [String: Any](minimumCapacity: 8)
            try members { key, reader throws(Failure) in result.updateValue(try reader.value(), forKey: key) == nil }
            return result
        }

        /// Reads the object at `offset` a member at a time: `body` reads the
        /// member's value from the reader and says whether its key is new;
        /// a key seen before is refused, once its value has been read.
        package mutating func members(_ body: (String, inout Reader) throws(Failure) -> Bool) throws(Failure) {
            try nest(at: offset)
            offset += 1
            skipWhitespace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                depth -= 1
                return
            }
            while true {
                skipWhitespace()
                guard offset < bytes.count else { throw endOfInput }
                guard bytes[offset] == UInt8(ascii: "\"") else {
                    throw failure("Expected a key in double quotes", at: offset)
                }
                let keyStart = offset
                let key = try string()
                skipWhitespace()
                guard offset < bytes.count else { throw endOfInput }
                guard bytes[offset] == UInt8(ascii: ":") else { throw failure("Expected ':' after a key", at: offset) }
                offset += 1
                guard try body(key, &self) else {
                    throw failure("Duplicate key \(JSONObject.quoted(key))", at: keyStart)
                }
                if try closes(UInt8(ascii: "}"), in: "an object") { return }
            }
        }

        /// ``members(_:)`` for a caller that needs no record of the keys:
        /// the reader refuses a repeated one itself.
        package mutating func uniqueMembers(_ body: (String, inout Reader) throws(Failure) -> Void) throws(Failure) {
            var keys = KeySet()
            try members { key, reader throws(Failure) in
                guard keys.insert(key) else {
                    _ = try reader.value()
                    return false
                }
                try body(key, &reader)
                return true
            }
        }

        mutating func array() throws(Failure) -> [Any] {
            var result: [Any] = []
            try elements { reader throws(Failure) in result.append(try reader.value()) }
            return result
        }

        /// Reads the array at `offset` an element at a time: `body` reads
        /// each element from the reader.
        package mutating func elements(_ body: (inout Reader) throws(Failure) -> Void) throws(Failure) {
            try nest(at: offset)
            offset += 1
            skipWhitespace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                depth -= 1
                return
            }
            while true {
                try body(&self)
                if try closes(UInt8(ascii: "]"), in: "an array") { return }
            }
        }

        /// After a member or element: steps over a comma and returns false
        /// (refusing a comma right before `close`), or over `close`, leaving
        /// the container, and returns true.
        mutating func closes(_ close: UInt8, in container: String) throws(Failure) -> Bool {
            skipWhitespace()
            guard offset < bytes.count else { throw endOfInput }
            switch bytes[offset] {
            case UInt8(ascii: ","):
                let comma = offset
                offset += 1
                skipWhitespace()
                if offset < bytes.count, bytes[offset] == close {
                    throw failure("A trailing comma is not allowed in JSON", at: comma)
                }
                return false
            case close:
                offset += 1
                depth -= 1
                return true
            default:
                throw failure("Expected ',' or '\(Character(Unicode.Scalar(close)))' after a value in \(container)", at: offset)
            }
        }

        mutating func string() throws(Failure) -> String {
            let start = offset
            offset += 1
            let runStart = offset
            var ascii = true
            // Most strings have no escape: one scan, then one copy.
            while offset < bytes.count {
                let byte = bytes[offset]
                if byte == UInt8(ascii: "\"") {
                    let run = UnsafeRawBufferPointer(rebasing: bytes[runStart..<offset])
                    offset += 1
                    guard let text = Self.text(run, ascii: ascii) else { throw failure("A string is not valid UTF-8", at: start) }
                    return text
                }
                if byte == UInt8(ascii: "\\") { break }
                if byte < 0x20 { throw failure("Unescaped control character in a string", at: offset) }
                if byte >= 0x80 { ascii = false }
                offset += 1
            }
            guard offset < bytes.count else { throw endOfInput }
            var buffer = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[runStart..<offset]))
            while offset < bytes.count {
                let byte = bytes[offset]
                switch byte {
                case UInt8(ascii: "\""):
                    offset += 1
                    guard let text = buffer.withUnsafeBytes({ Self.text($0, ascii: false) }) else {
                        throw failure("A string is not valid UTF-8", at: start)
                    }
                    return text
                case UInt8(ascii: "\\"):
                    try escape(into: &buffer)
                case 0..<0x20:
                    throw failure("Unescaped control character in a string", at: offset)
                default:
                    buffer.append(byte)
                    offset += 1
                }
            }
            throw endOfInput
        }

        /// The string `run` holds; nil when it is not valid UTF-8.
        static func text(_ run: UnsafeRawBufferPointer, ascii: Bool) -> String? {
            if ascii { return String(decoding: run, as: UTF8.self) }
            return String(validating: run.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
        }

        /// Reads the escape at `offset` and appends what it stands for.
        mutating func escape(into buffer: inout [UInt8]) throws(Failure) {
            let start = offset
            offset += 1
            guard offset < bytes.count else { throw endOfInput }
            let byte = bytes[offset]
            offset += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"):
                let unit = try hex4(escapeAt: start)
                var scalar: Unicode.Scalar?
                switch unit {
                case 0xD800...0xDBFF:
                    guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else {
                        throw failure("The escape \\u\(hex(unit)) is a high surrogate without the low surrogate escape after it", at: start)
                    }
                    let lowStart = offset
                    offset += 2
                    let low = try hex4(escapeAt: lowStart)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw failure("The escape \\u\(hex(unit)) is a high surrogate without the low surrogate escape after it", at: start)
                    }
                    scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
                case 0xDC00...0xDFFF:
                    throw failure("The escape \\u\(hex(unit)) is a low surrogate without a high surrogate before it", at: start)
                default:
                    scalar = Unicode.Scalar(UInt32(unit))
                }
                guard let scalar else { throw failure("Invalid escape sequence", at: start) }
                buffer.append(contentsOf: UTF8.encode(scalar)!)
            default:
                throw failure("Invalid escape sequence", at: start)
            }
        }

        /// The four hex digits at `offset`, for the `\u` escape at `escapeAt`.
        mutating func hex4(escapeAt start: Int) throws(Failure) -> UInt16 {
            var unit: UInt16 = 0
            for _ in 0..<4 {
                guard offset < bytes.count else { throw endOfInput }
                let byte = bytes[offset]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw failure("A \\u escape needs four hex digits", at: start)
                }
                unit = unit << 4 | UInt16(digit)
                offset += 1
            }
            return unit
        }

        func hex(_ unit: UInt16) -> String {
            let digits = String(unit, radix: 16)
            return String(repeating: "0", count: 4 - digits.count) + digits
        }

        mutating func number() throws(Failure) -> Any {
            let start = offset
            var negative = false
            if bytes[offset] == UInt8(ascii: "-") {
                negative = true
                offset += 1
            }
            guard offset < bytes.count else { throw endOfInput }
            guard isDigit(bytes[offset]) else { throw failure("Invalid number", at: start) }
            if bytes[offset] == UInt8(ascii: "0"), offset + 1 < bytes.count, isDigit(bytes[offset + 1]) {
                throw failure("Number with leading zero", at: start)
            }
            var magnitude: UInt64 = 0
            var overflow = false
            while offset < bytes.count, isDigit(bytes[offset]) {
                let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (plus, o2) = times.addingReportingOverflow(UInt64(bytes[offset] - UInt8(ascii: "0")))
                overflow = overflow || o1 || o2
                magnitude = plus
                offset += 1
            }
            var whole = true
            if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
                whole = false
                offset += 1
                guard offset < bytes.count, isDigit(bytes[offset]) else {
                    if offset >= bytes.count { throw endOfInput }
                    throw failure("Invalid number", at: start)
                }
                while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
                whole = false
                offset += 1
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
                guard offset < bytes.count, isDigit(bytes[offset]) else {
                    if offset >= bytes.count { throw endOfInput }
                    throw failure("Invalid number", at: start)
                }
                while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
            }
            if whole, !overflow {
                if !negative, magnitude <= UInt64(Int.max) { return Int(magnitude) }
                if negative, magnitude <= UInt64(Int.max) + 1 { return magnitude == 0 ? 0 : Int(truncatingIfNeeded: 0 &- magnitude) }
            }
            let literal = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
            guard let double = Double(literal), double.isFinite else {
                // Quoted whole only when short: a body of one 3 MB number was
                // answered with all of it.
                let shown = literal.utf8.count <= 32 ? literal : "\(literal.prefix(24))… (\(literal.utf8.count) characters)"
                throw failure("Number \(shown) is out of range", at: start)
            }
            return double
        }

        func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }
    }
}

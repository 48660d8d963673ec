import Foundation

/// JSON read strictly (RFC 8259). `JSONSerialization` on Linux accepts a
/// trailing comma (`{"a": 1,}`), which other JSON parsers reject; a body
/// that only alertd would accept is a bug waiting in a client, so it is
/// refused here, with where the problem is. It also drops a raw byte-order
/// mark inside a string, which is kept here (see `scan`).
package enum StrictJSON {
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, with the line and column when known.
        package let description: String
    }

    /// Parses `data`; objects come back as `[String: Any]`, arrays as `[Any]`.
    /// Every character of a string comes back as sent.
    package static func parse(_ data: Data) throws(Failure) -> Any {
        let scan = scan(data)
        if let offset = scan.trailingComma {
            throw Failure(description: "A trailing comma is not allowed in JSON\(position(in: data, offset: offset)).")
        }
        do {
            return try JSONSerialization.jsonObject(with: scan.escaped ?? data, options: [.fragmentsAllowed])
        } catch {
            let detail = (error as NSError).userInfo["NSDebugDescription"] as? String ?? "\(error)"
            var where_ = ""
            // Offsets count in what the parser was given; after an escaped BOM they run a few bytes long.
            if let range = detail.range(of: "character "), let offset = Int(detail[range.upperBound...].prefix { $0.isNumber }) {
                where_ = position(in: scan.escaped ?? data, offset: offset)
            }
            throw Failure(description: "\(detail.hasSuffix(".") ? String(detail.dropLast()) : detail)\(where_).")
        }
    }

    /// What one pass over the bytes found: the first trailing comma, and the
    /// body with every raw U+FEFF inside a string written as `\ufeff`.
    /// `JSONSerialization` decodes string runs as UTF-8 text, which drops a
    /// byte-order mark at the start of a run (the start of a string or the
    /// end of an escape), so the same key sent by two encoders would differ;
    /// as an escape it is kept. `escaped` is nil when there was none.
    package static func scan(_ data: Data) -> (trailingComma: Int?, escaped: Data?) {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> (Int?, Data?) in
            var inString = false
            var escaping = false
            var pendingComma: Int?
            var out: [UInt8]?
            var copied = 0
            var i = 0
            let n = bytes.count
            while i < n {
                let byte = bytes[i]
                if inString {
                    if escaping {
                        escaping = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaping = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    } else if byte == 0xEF, i + 2 < n, bytes[i + 1] == 0xBB, bytes[i + 2] == 0xBF {
                        if out == nil { out = []; out!.reserveCapacity(n + 16) }
                        out!.append(contentsOf: bytes[copied..<i])
                        out!.append(contentsOf: Array("\\ufeff".utf8))
                        i += 3
                        copied = i
                        continue
                    }
                    i += 1
                    continue
                }
                switch byte {
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                    i += 1
                    continue
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if let comma = pendingComma { return (comma, nil) }
                case UInt8(ascii: ","):
                    pendingComma = i
                    i += 1
                    continue
                case UInt8(ascii: "\""):
                    inString = true
                default:
                    break
                }
                pendingComma = nil
                i += 1
            }
            guard var out else { return (nil, nil) }
            out.append(contentsOf: bytes[copied..<n])
            return (nil, Data(out))
        }
    }

    /// ` at line 3, column 7` for a byte offset.
    package static func position(in data: Data, offset: Int) -> String {
        var line = 1
        var column = 1
        for byte in data.prefix(offset) {
            if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else { column += 1 }
        }
        return " at line \(line), column \(column)"
    }

    /// True for JSON `null`. Asked of the value's type: `value is NSNull`
    /// bridges a dictionary or array to its Foundation class just to find it
    /// is not null, which costs time in proportion to its size.
    package static func isNull(_ value: Any) -> Bool {
        type(of: value) is NSNull.Type
    }

    /// On Linux `JSONSerialization` gives `NSNumber` for numbers and booleans
    /// alike, and `is Bool` holds for the numbers 0 and 1; only the class
    /// tells a real `true`/`false` apart.
    package static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return type(of: number) == type(of: NSNumber(value: true))
    }
}

import Foundation

/// JSON read strictly (RFC 8259). `JSONSerialization` on Linux accepts a
/// trailing comma (`{"a": 1,}`), which other JSON parsers reject; a body
/// that only alertd would accept is a bug waiting in a client, so it is
/// refused here, with where the problem is.
package enum StrictJSON {
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, with the line and column when known.
        package let description: String
    }

    /// Parses `data`; objects come back as `[String: Any]`, arrays as `[Any]`.
    package static func parse(_ data: Data) throws(Failure) -> Any {
        if let offset = trailingCommaOffset(in: data) {
            throw Failure(description: "A trailing comma is not allowed in JSON\(position(in: data, offset: offset)).")
        }
        do {
            return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let detail = (error as NSError).userInfo["NSDebugDescription"] as? String ?? "\(error)"
            var where_ = ""
            if let range = detail.range(of: "character "), let offset = Int(detail[range.upperBound...].prefix { $0.isNumber }) {
                where_ = position(in: data, offset: offset)
            }
            throw Failure(description: "\(detail.hasSuffix(".") ? String(detail.dropLast()) : detail)\(where_).")
        }
    }

    /// The offset of the first `,` followed only by whitespace before `}` or `]`.
    package static func trailingCommaOffset(in data: Data) -> Int? {
        var inString = false
        var escaped = false
        var pendingComma: Int?
        for (i, byte) in data.enumerated() {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                continue
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if let comma = pendingComma { return comma }
            case UInt8(ascii: ","):
                pendingComma = i
                continue
            case UInt8(ascii: "\""):
                inString = true
            default:
                break
            }
            pendingComma = nil
        }
        return nil
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

    /// On Linux `JSONSerialization` gives `NSNumber` for numbers and booleans
    /// alike, and `is Bool` holds for the numbers 0 and 1; only the class
    /// tells a real `true`/`false` apart.
    package static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return type(of: number) == type(of: NSNumber(value: true))
    }
}

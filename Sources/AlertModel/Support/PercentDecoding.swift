/// `%XX` escapes, decoded the one way every part of alertd reads them.
package enum PercentDecoding {
    /// The bytes `encoded` stands for: each `%XX` as its byte, and `+` as a
    /// space when `plusIsSpace` (a query component); the rest as it is.
    package static func bytes<C: Collection>(_ encoded: C, plusIsSpace: Bool = false, keepingEncoded kept: UInt8? = nil) -> [UInt8]
        where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(encoded.count)
        var i = encoded.startIndex
        while i != encoded.endIndex {
            let b = encoded[i]
            // Two hex digits: `UInt8(_:radix:)` alone takes `+e` and `-0` too, which no server reads as a byte.
            if b == UInt8(ascii: "%"),
               let h1 = encoded.index(i, offsetBy: 1, limitedBy: encoded.endIndex), h1 != encoded.endIndex,
               let h2 = encoded.index(h1, offsetBy: 1, limitedBy: encoded.endIndex), h2 != encoded.endIndex,
               let high = hexValue(encoded[h1]), let low = hexValue(encoded[h2]) {
                if high << 4 | low == kept { out.append(contentsOf: encoded[i...h2]) } else { out.append(high << 4 | low) }
                i = encoded.index(after: h2)
                continue
            }
            out.append(plusIsSpace && b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
            i = encoded.index(after: i)
        }
        return out
    }

    /// The text `text` stands for, or nil when its bytes are not valid
    /// UTF-8 (an overlong `%c0%ae`, which lenient decoders read as `.`).
    package static func decoded(_ text: some StringProtocol) -> String? {
        String(validating: bytes(Substring(text).utf8), as: UTF8.self)
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

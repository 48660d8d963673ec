/// `%XX` escapes, decoded the one way every part of alertd reads them.
package enum PercentDecoding {
    /// The bytes `text` stands for: each `%XX` as its byte, the rest as it is.
    package static func bytes(_ text: some StringProtocol) -> [UInt8] {
        var bytes: [UInt8] = []
        var utf8 = Substring(text).utf8[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return bytes
    }

    /// The text `text` stands for, or nil when its bytes are not valid
    /// UTF-8 (an overlong `%c0%ae`, which lenient decoders read as `.`).
    package static func decoded(_ text: some StringProtocol) -> String? {
        String(validating: bytes(text), as: UTF8.self)
    }
}

/// A 64-bit FNV-1a hash, fed bytes as they come: the one behind label
/// fingerprints, group ids and mail recipients' `Message-ID`s. Stable
/// across runs and machines, unlike `Hasher`; not for secrets.
package struct FNV1a: Sendable {
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    package mutating func add(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }

    /// A string's UTF-8 bytes, read from its own storage: a generic byte
    /// sequence ran at about 30 instructions a byte.
    package mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            for byte in bytes { add(byte) }
        }
    }

    /// The hash as 16 lowercase hex digits.
    package var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: stride(from: 60, through: 0, by: -4).map { digits[Int((value >> UInt64($0)) & 0xF)] }, as: UTF8.self)
    }
}

/// Base64url without padding (RFC 4648, section 5): bytes as text that goes
/// into a URL's query or a cookie as it is. Written out rather than made by
/// replacing characters in standard base64: three `replacing` calls per
/// token were an eighth of a big group's notification, whose every alert
/// gets signed action links.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` in base64url, unpadded.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        let count = (input.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: count) { out in
            var o = 0
            var i = 0
            while i + 2 < input.count {
                let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                out[o] = alphabet[Int(n >> 18)]
                out[o + 1] = alphabet[Int(n >> 12 & 63)]
                out[o + 2] = alphabet[Int(n >> 6 & 63)]
                out[o + 3] = alphabet[Int(n & 63)]
                i += 3
                o += 4
            }
            let rest = input.count - i
            if rest > 0 {
                let n = UInt32(input[i]) << 16 | (rest == 2 ? UInt32(input[i + 1]) << 8 : 0)
                out[o] = alphabet[Int(n >> 18)]
                out[o + 1] = alphabet[Int(n >> 12 & 63)]
                o += 2
                if rest == 2 {
                    out[o] = alphabet[Int(n >> 6 & 63)]
                    o += 1
                }
            }
            return o
        }
    }
}

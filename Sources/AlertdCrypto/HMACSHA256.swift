import CCrypto

/// HMAC with SHA-256 (RFC 2104), by OpenSSL's one-shot `HMAC(EVP_sha256(), …)`.
public enum HMACSHA256 {
    /// The MAC's length in bytes.
    public static let byteCount = 32

    /// The 32-byte MAC of `message` under `key`.
    public static func authenticate(key: [UInt8], message: [UInt8]) -> [UInt8] {
        CryptoLibrary.loaded
        var mac = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // OpenSSL wants a non-null key pointer even for an empty key.
        let keyBytes = key.isEmpty ? [0] : key
        let produced = keyBytes.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                alertd_crypto_hmac_sha256(k.baseAddress, Int32(key.count), m.baseAddress?.assumingMemoryBound(to: UInt8.self),
                     m.count, &mac, &length)
            }
        }
        // HMAC() fails only on allocation failure or an unusable digest, neither
        // of which a caller could act on; SHA-256 is always built into libcrypto.
        precondition(produced != nil && length == UInt32(byteCount), "OpenSSL HMAC-SHA256 failed")
        return Array(mac[..<byteCount])
    }
}

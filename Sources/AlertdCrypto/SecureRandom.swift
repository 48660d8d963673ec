import CCrypto

/// Cryptographically secure random bytes, for secrets and tokens.
public enum SecureRandom {
    /// `count` bytes from OpenSSL's CSPRNG (`RAND_bytes`). Should OpenSSL ever
    /// refuse, the kernel's generator (`getrandom`, behind Swift's
    /// `SystemRandomNumberGenerator`) fills in: both are fit for secrets.
    public static func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = bytes.withUnsafeMutableBytes { alertd_crypto_rand_bytes($0.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(count)) }
        if ok != 1 {
            var fallback = SystemRandomNumberGenerator()
            for i in bytes.indices { bytes[i] = fallback.next() }
        }
        return bytes
    }
}

/// Cryptographically secure random bytes, for secrets and tokens.
public enum SecureRandom {
    /// `count` bytes from the kernel's generator (`getrandom(2)`, behind
    /// Swift's `SystemRandomNumberGenerator`, which the standard library
    /// documents as cryptographically secure on Linux): fit for secrets, and
    /// without loading OpenSSL, which seeds itself from the same source.
    public static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<max(0, count)).map { _ in generator.next() }
    }
}

import CCrypto

/// Compares two byte strings in time that depends only on their lengths
/// (`CRYPTO_memcmp`), so a MAC check does not leak how many leading bytes matched.
public func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    guard !a.isEmpty else { return true }
    CryptoLibrary.loaded
    return a.withUnsafeBytes { x in
        b.withUnsafeBytes { y in alertd_crypto_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 }
    }
}

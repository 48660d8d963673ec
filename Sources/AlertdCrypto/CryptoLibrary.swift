import CCrypto
import AlertdPOSIX

/// libcrypto, loaded on first use (the shim's `alertd_crypto()`), through
/// ``LibraryLoading`` so a release of startup pages cannot meet the load.
enum CryptoLibrary {
    static let loaded: Void = LibraryLoading.run { _ = alertd_crypto() }
}

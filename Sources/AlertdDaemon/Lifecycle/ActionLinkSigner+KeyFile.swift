import AlertdCrypto
import AlertdDelivery
import AlertdPOSIX

extension ActionLinkSigner {
    /// Loads the key from `path`, creating a new random one when absent. It
    /// is created with mode 0600 from its first byte (`O_CREAT|O_EXCL`), so
    /// no other user can catch it in passing.
    public static func loadOrCreateKey(at path: String) throws(DaemonError) -> [UInt8] {
        if let key = try loadKey(at: path) { return key }
        let key = SecureRandom.bytes(32)
        switch ExclusiveFile.create(path, contents: key, permissions: 0o600) {
        case .success:
            return key
        case .failure(let error):
            // Made by someone else in between: that one is the key.
            if error == .fileExists, let existing = try loadKey(at: path) { return existing }
            throw DaemonError(code: .stateDirectory, message: "Cannot write the action-link key to \(path): \(error). Check the state directory's owner and permissions.")
        }
    }

    /// The key at `path`, or nil when there is none yet. It is a secret file
    /// like any other: one that others may write or every user may read is
    /// refused.
    public static func loadKey(at path: String) throws(DaemonError) -> [UInt8]? {
        let data: [UInt8]
        do { data = try SecretFile.contents(path) } catch {
            if error.problem == .missing { return nil }
            throw DaemonError(code: .stateDirectory, message: "Cannot use the action-link key: \(error.message).")
        }
        guard data.count >= 32 else {
            throw DaemonError(code: .stateDirectory, message: "The action-link key \(path) is shorter than 32 bytes; delete it to make a new one (old links stop working).")
        }
        return data
    }
}

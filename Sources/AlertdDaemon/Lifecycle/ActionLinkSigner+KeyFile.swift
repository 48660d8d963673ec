import FoundationEssentials
import AlertdCrypto
import AlertdDelivery

extension ActionLinkSigner {
    /// Loads the key from `path`, creating a new random one (mode 0600) when absent.
    public static func loadOrCreateKey(at path: String) throws(DaemonError) -> [UInt8] {
        if let key = try loadKey(at: path) { return key }
        let key = SecureRandom.bytes(32)
        guard FileManager.default.createFile(atPath: path, contents: Data(key), attributes: [.posixPermissions: 0o600]) else {
            throw DaemonError(code: .stateDirectory, message: "Cannot write the action-link key to \(path); check the state directory's permissions.")
        }
        return key
    }

    /// The key at `path`, or nil when there is none yet.
    public static func loadKey(at path: String) throws(DaemonError) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: path) else {
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            throw DaemonError(code: .stateDirectory, message: "Cannot read the action-link key \(path); check its owner and permissions.")
        }
        guard data.count >= 32 else {
            throw DaemonError(code: .stateDirectory, message: "The action-link key \(path) is shorter than 32 bytes; delete it to make a new one (old links stop working).")
        }
        return Array(data)
    }
}

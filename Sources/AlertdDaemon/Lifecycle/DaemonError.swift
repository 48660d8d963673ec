import AlertdStore

/// Why `alertd` could not start or go on. Each case carries a message an
/// operator can act on; the executable prints it and picks the exit code.
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let configuration = Code(rawValue: "configuration")
        public static let stateDirectory = Code(rawValue: "state_directory")
        /// Another alertd holds the state directory's lock.
        public static let stateLocked = Code(rawValue: "state_locked")
        /// The state directory or the store cannot be written (read-only, full, permissions).
        public static let stateUnwritable = Code(rawValue: "state_unwritable")
        public static let store = Code(rawValue: "store")
        public static let listener = Code(rawValue: "listener")
        public static let presenter = Code(rawValue: "presenter")
        /// A service failed or stopped on its own while the daemon ran.
        public static let service = Code(rawValue: "service")
    }

    public let code: Code
    public let message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// A store that cannot be opened, under the store's own code
    /// (`store_incompatible`, `store_cannot_open`, …), so the log says
    /// what the API would.
    public init(_ error: StoreError) {
        self.init(code: Code(rawValue: error.code.rawValue), message: error.message)
    }

    public var description: String { message }
}

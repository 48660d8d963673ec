/// Why `alertd` could not start or go on. Each case carries a message an
/// operator can act on; the executable prints it and picks the exit code.
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let configuration = Code(rawValue: "configuration")
        public static let stateDirectory = Code(rawValue: "state_directory")
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

    public var description: String { message }
}

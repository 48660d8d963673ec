import FoundationEssentials

/// Why a notification could not be sent. The daemon logs these and carries
/// on: a missing service manager is no reason to stop delivering alerts.
public struct SystemdNotifierError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `$NOTIFY_SOCKET` is neither a path nor an `@abstract` name.
        public static let unsupportedAddress = Code(rawValue: "unsupported_address")
        /// `$NOTIFY_SOCKET` does not fit in a `sockaddr_un`.
        public static let socketPathTooLong = Code(rawValue: "socket_path_too_long")
        /// A field name that is empty or holds `=` or a newline.
        public static let invalidField = Code(rawValue: "invalid_field")
        /// `sendto(2)` failed: the socket is gone, or refuses us.
        public static let sendFailed = Code(rawValue: "send_failed")
        /// Another system call failed.
        public static let system = Code(rawValue: "system")
    }

    public let code: Code
    public let message: String
    /// The `errno` of the failed call, if one failed.
    public let errno: Int32?

    public init(code: Code, message: String, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    public var description: String { message }

    package static func unsupportedAddress(_ raw: String) -> Self {
        Self(code: .unsupportedAddress,
             message: "NOTIFY_SOCKET=\(raw) is not a socket path or an @abstract name; notifications are off.")
    }

    package static func socketPathTooLong(_ raw: String) -> Self {
        Self(code: .socketPathTooLong, message: "NOTIFY_SOCKET=\(raw) is too long for a Unix socket address.")
    }

    package static func invalidField(_ key: String) -> Self {
        Self(code: .invalidField, message: "\"\(key)\" is not a notification field name (empty, or holds '=' or a newline).")
    }

    package static func sendFailed(destination: SystemdNotifier.Destination, errno e: Int32) -> Self {
        let name: String
        switch destination {
        case .path(let p): name = p
        case .abstract(let n): name = "@" + n
        }
        return Self(code: .sendFailed,
                    message: "Cannot notify the service manager at \(name): \(Errno(e).description).", errno: e)
    }

    package static func system(operation: String, errno e: Int32) -> Self {
        Self(code: .system, message: "\(operation) failed: \(Errno(e).description).", errno: e)
    }
}

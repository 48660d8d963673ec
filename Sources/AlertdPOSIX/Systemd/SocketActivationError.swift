import FoundationEssentials

/// Socket activation variables that cannot be right. alertd refuses to start
/// on these rather than guess which descriptor is which.
public struct SocketActivationError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `LISTEN_PID` or `LISTEN_FDS` is not a number in range.
        public static let invalidVariable = Code(rawValue: "invalid_variable")
        /// `LISTEN_FDNAMES` names more or fewer sockets than `LISTEN_FDS` counts.
        public static let nameCountMismatch = Code(rawValue: "name_count_mismatch")
        /// A descriptor `LISTEN_FDS` promised is not open.
        public static let badDescriptor = Code(rawValue: "bad_descriptor")
    }

    public let code: Code
    public let message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    package static func invalidVariable(_ name: String, _ value: String) -> Self {
        Self(code: .invalidVariable, message: "\(name)=\(value) is not valid for socket activation; it must be a positive number.")
    }

    package static func nameCountMismatch(names: Int, descriptors: Int) -> Self {
        Self(code: .nameCountMismatch,
             message: "LISTEN_FDNAMES has \(names) names but LISTEN_FDS says \(descriptors) sockets were passed; check the socket units' FileDescriptorName=.")
    }

    package static func badDescriptor(_ fd: Int32, errno e: Int32) -> Self {
        Self(code: .badDescriptor,
             message: "Socket activation passed descriptor \(fd), but it is not usable: \(Errno(e).description).")
    }
}

import AlertdCommandLine

extension CommandLineError.Code {
    /// The socket found by default belongs to another user (``AlertdConnectionOptions/strangerOwns(_:)``).
    public static let untrustedSocket = CommandLineError.Code(rawValue: "untrusted_socket")
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A signal alertd acts on, by name rather than number.
public struct ProcessSignal: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    /// `SIGTERM`.
    public let description: String

    private init(_ rawValue: Int32, _ name: String) {
        self.rawValue = rawValue
        self.description = name
    }

    /// Stop, gracefully (systemd's stop).
    public static let terminate = ProcessSignal(SIGTERM, "SIGTERM")
    /// Stop, gracefully (Ctrl-C).
    public static let interrupt = ProcessSignal(SIGINT, "SIGINT")
    /// Reload the configuration.
    public static let hangUp = ProcessSignal(SIGHUP, "SIGHUP")
    /// The test-only fault hook.
    public static let user2 = ProcessSignal(SIGUSR2, "SIGUSR2")
}

/// The running process itself.
public enum CurrentProcess {
    /// `getpid(2)`.
    public static var id: Int32 { getpid() }

    /// Ends the process with `status` (`exit(3)`).
    public static func exit(_ status: Int32) -> Never { Glibc.exit(status) }
}

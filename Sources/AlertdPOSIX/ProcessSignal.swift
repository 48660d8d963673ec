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

    /// Lets malloc keep up to `bytes` free at the top of each heap rather
    /// than hand it back at once (`M_TRIM_THRESHOLD`). glibc's default
    /// (128 KiB, growing with large frees) has the heap of every thread
    /// that handles a request shrink and grow again with each burst: an
    /// `madvise` and a TLB shootdown on every core each time, about a tenth
    /// of the daemon's CPU under one-alert-per-request load.
    public static func keepFreedMemory(upTo bytes: Int) {
        // <malloc.h> is not in Swift's Glibc module: found by name instead.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let trimThreshold: Int32 = -1  // M_TRIM_THRESHOLD
        guard let symbol = dlsym(nil, "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Mallopt.self)(trimThreshold, Int32(clamping: bytes))
    }
}

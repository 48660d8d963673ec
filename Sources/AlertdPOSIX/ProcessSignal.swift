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

    /// Runs `main` on Swift's task pool and ends the process with the status
    /// it returns. An executable's top-level code calls this instead of
    /// awaiting: an `async` top level ends in `dispatch_main`, which retires
    /// the main thread with `pthread_exit`, a forced unwind of its stack. That
    /// loads libgcc's unwinder and reads the executable's unwind tables, about
    /// 0.8 MB an idle daemon keeps resident and every `alertctl` call pays to
    /// load, for nothing. The main thread waits for signals instead, as
    /// `dispatch_main` leaves it once unwound. Nothing may run on the main
    /// actor: its queue is never drained.
    ///
    /// The process ends with `_exit` once stdio is flushed: `main` has closed
    /// what needed closing, and the other threads (the task pool, libcurl's
    /// drivers, the store's threads) are still alive, so `exit`'s handlers
    /// and the libraries' destructors would tear down state they may be
    /// using. They did: the daemon died of SIGSEGV after "alertd stopped" in
    /// 4 of 25 runs of `ShutdownGraceTests` on a loaded machine.
    public static func exit(running main: @escaping @Sendable () async -> Int32) -> Never {
        Task.detached {
            let status = await main()
            fflush(nil)
            _exit(status)
        }
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        while true { sigsuspend(&none) }
    }
}

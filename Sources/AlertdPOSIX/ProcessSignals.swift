import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Synchronization

/// The process's signals as an async sequence. Only `alertd`'s `main` uses
/// it: signals belong to the executable, which hands them to the daemon.
public enum ProcessSignals {
    /// The live sources; a signal source stops when its last reference goes.
    private static let sources = Mutex<[ProcessSignal: any DispatchSourceSignal]>([:])

    /// Stops default handling of `signals` and yields each one as it arrives.
    public static func stream(_ signals: [ProcessSignal]) -> AsyncStream<ProcessSignal> {
        AsyncStream { continuation in
            for sig in signals {
                signal(sig.rawValue, SIG_IGN)
                sources.withLock { all in
                    let source = DispatchSource.makeSignalSource(signal: sig.rawValue, queue: .global())
                    source.setEventHandler { continuation.yield(sig) }
                    source.resume()
                    all[sig] = source
                }
            }
            continuation.onTermination = { _ in
                sources.withLock { all in
                    for sig in signals { all.removeValue(forKey: sig)?.cancel() }
                }
            }
        }
    }

    /// Makes a write to a pipe or socket whose reader has gone fail with
    /// `EPIPE` instead of ending the process: stderr under a log collector
    /// that restarted, or a peer that closed early. Programs alertd starts
    /// get every signal's default back (``ChildProcess``), this one too.
    public static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }
}

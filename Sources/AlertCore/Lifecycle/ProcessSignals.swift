import Dispatch
import Foundation

/// The process's signals as an async sequence. Only `alertd`'s command uses
/// it: signals belong to the executable, not to the services it runs.
public enum ProcessSignals {
    /// Stops default handling of `signals` and yields each one as it arrives.
    public static func stream(_ signals: [Int32]) -> AsyncStream<Int32> {
        AsyncStream { continuation in
            let sources = signals.map { sig -> DispatchSourceSignal in
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                source.setEventHandler { continuation.yield(sig) }
                source.resume()
                return source
            }
            continuation.onTermination = { _ in sources.forEach { $0.cancel() } }
        }
    }
}

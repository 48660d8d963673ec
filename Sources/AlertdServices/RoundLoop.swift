import Synchronization
import AlertModel

/// The loop of a service that works in rounds (maintenance, the group
/// timer): a round, then sleep until the time the round asked for or a
/// wake-up, whichever is first, until asked to stop or cancelled. A
/// wake-up that comes while a round runs is not lost: the next sleep
/// returns at once.
public final class RoundLoop: Sendable {
    private let signal = ChangeSignal()
    private let stopped = Mutex(false)

    public init() {}

    /// Ends the current sleep: something may be due sooner.
    public func wake() { signal.notify() }

    /// Lets the round under way finish, then ends ``run(isolation:_:)``.
    public func stop() {
        stopped.withLock { $0 = true }
        signal.notify()
    }

    /// Runs `round` until stopped or cancelled; each returns how long to
    /// sleep before the next (zero: go again at once).
    public func run(isolation: isolated (any Actor)? = #isolation, _ round: () async -> Duration) async {
        var seen: UInt64 = 0
        let done = { self.stopped.withLock { $0 } || Task.isCancelled }
        await withTaskCancellationHandler {
            while !done() {
                let wait = await round()
                if done() { break }
                if wait == .zero { continue }
                seen = await signal.wait(changedFrom: seen, timeout: wait)
            }
        } onCancel: {
            signal.notify()
        }
    }
}

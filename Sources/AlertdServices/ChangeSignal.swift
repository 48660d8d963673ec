import Dispatch
import Synchronization

/// alertd's one wake-up primitive: a generation counter that `notify()`
/// bumps, and waits that return once it differs from the generation the
/// waiter last saw. Nothing is lost between a check and a wait (a waiter
/// that saw generation 4 returns at once if it is 5 by then), any number
/// may wait, and a one-shot (shutdown) is a wait from generation 0. The
/// store's commits, the dispatcher's and maintenance's wake-ups and the
/// services' shutdown all go through it.
public final class ChangeSignal: Sendable {
    private struct Waiter {
        var continuation: CheckedContinuation<Void, Never>
        var deadline: DispatchTime?
    }

    private struct State {
        var generation: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
        /// The deadline the timer is set for, while it is set.
        var armed: DispatchTime?
    }

    private let state = Mutex(State())
    /// One timer for every timed wait, set for the soonest deadline. A wait
    /// of its own (`Task.sleep` raced against the change) left a timer in
    /// Dispatch each time a change ended the wait first: the dispatcher,
    /// woken by every hand-off, filled Dispatch's timer heap with them.
    /// A Dispatch source is safe to use from any thread; the type is not
    /// marked `Sendable`, hence `nonisolated(unsafe)`.
    private nonisolated(unsafe) let timer: DispatchSourceTimer

    public init() {
        timer = DispatchSource.makeTimerSource(queue: .global())
        timer.setEventHandler { [weak self] in self?.expire() }
        timer.activate()
    }

    deinit {
        timer.cancel()
    }

    /// The current generation; pass it to `wait` to sleep until it changes.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// Bumps the generation and wakes every waiter.
    public func notify() {
        let waiters = state.withLock { s -> [Waiter] in
            s.generation &+= 1
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for w in waiters { w.continuation.resume() }
    }

    /// Returns once the generation differs from `seen`, after `timeout`
    /// (nil: no limit), or on cancellation; the generation then, to pass to
    /// the next wait.
    @discardableResult
    public func wait(changedFrom seen: UInt64, timeout: Duration? = nil) async -> UInt64 {
        let deadline = timeout.map { DispatchTime.now() + Self.interval($0) }
        let id = state.withLock { s -> UInt64 in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.generation != seen || Task.isCancelled { return true }
                    if let deadline, deadline <= .now() { return true }
                    s.waiters[id] = Waiter(continuation: c, deadline: deadline)
                    if let deadline, s.armed.map({ deadline < $0 }) ?? true {
                        s.armed = deadline
                        timer.schedule(deadline: deadline, leeway: .microseconds(500))
                    }
                    return false
                }
                if resumeNow { c.resume() }
            }
        } onCancel: {
            let w = state.withLock { $0.waiters.removeValue(forKey: id) }
            w?.continuation.resume()
        }
        return generation
    }

    /// `timeout` for Dispatch; beyond a day is as good as for ever, and stays clear of overflow.
    private static func interval(_ timeout: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = min(max(timeout, .zero), .seconds(86_400)).components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }

    /// The timer fired: ends the waits whose deadline has come, and sets it
    /// for the next one.
    private func expire() {
        let now = DispatchTime.now()
        let due = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            var due: [CheckedContinuation<Void, Never>] = []
            var next: DispatchTime?
            for (id, w) in s.waiters {
                guard let deadline = w.deadline else { continue }
                if deadline <= now {
                    due.append(w.continuation)
                    s.waiters[id] = nil
                } else if next.map({ deadline < $0 }) ?? true {
                    next = deadline
                }
            }
            s.armed = next
            if let next { timer.schedule(deadline: next, leeway: .microseconds(500)) }
            return due
        }
        for c in due { c.resume() }
    }
}

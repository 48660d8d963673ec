import Synchronization

/// alertd's one wake-up primitive: a generation counter that `notify()`
/// bumps, and waits that return once it differs from the generation the
/// waiter last saw. Nothing is lost between a check and a wait (a waiter
/// that saw generation 4 returns at once if it is 5 by then), any number
/// may wait, and a one-shot (shutdown) is a wait from generation 0. The
/// store's commits, the dispatcher's and maintenance's wake-ups and the
/// services' shutdown all go through it.
public final class ChangeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// The current generation; pass it to `wait` to sleep until it changes.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// Bumps the generation and wakes every waiter.
    public func notify() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.generation &+= 1
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for w in waiters { w.resume() }
    }

    /// Returns once the generation differs from `seen`, after `timeout`
    /// (nil: no limit), or on cancellation; the generation then, to pass to
    /// the next wait.
    @discardableResult
    public func wait(changedFrom seen: UInt64, timeout: Duration? = nil) async -> UInt64 {
        if let timeout {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await Task.sleep(for: timeout) }
                group.addTask { await self.waitForChange(from: seen) }
                await group.next()
                // Both children end on cancellation by themselves.
                group.cancelAll()
            }
        } else {
            await waitForChange(from: seen)
        }
        return generation
    }

    private func waitForChange(from seen: UInt64) async {
        let id = state.withLock { s -> UInt64 in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.generation != seen || Task.isCancelled { return true }
                    s.waiters[id] = c
                    return false
                }
                if resumeNow { c.resume() }
            }
        } onCancel: {
            let w = state.withLock { $0.waiters.removeValue(forKey: id) }
            w?.resume()
        }
    }
}

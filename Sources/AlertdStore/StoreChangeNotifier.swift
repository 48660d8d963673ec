import Synchronization

/// Tells any number of waiters that the store committed something, so an
/// event stream can read new events at once instead of polling.
public final class StoreChangeNotifier: Sendable {
    private struct State {
        package var generation: UInt64 = 0
        package var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        package var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// The current generation; pass it to `wait` to sleep until it changes.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// Wakes every waiter.
    public func notify() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.generation &+= 1
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for w in waiters { w.resume() }
    }

    /// Returns once the generation differs from `seen`, after `timeout`, or on cancellation.
    public func wait(changedFrom seen: UInt64, timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask { await self.waitForChange(from: seen) }
            await group.next()
            group.cancelAll()
        }
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

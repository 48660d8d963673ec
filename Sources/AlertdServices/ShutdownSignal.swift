import Synchronization

/// The switch a service's ``Service/shutdownGracefully()`` flips and its
/// ``Service/run()`` waits on. Once triggered it stays triggered, so a
/// request that comes before `run()` begins is not lost.
public final class ShutdownSignal: Sendable {
    private struct State {
        var triggered = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Whether shutdown has been asked for.
    public var isTriggered: Bool { state.withLock { $0.triggered } }

    /// Asks for shutdown; wakes every waiter. Later calls change nothing.
    public func trigger() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.triggered = true
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until shutdown is asked for, `timeout` passes (nil: no limit),
    /// or the task is cancelled; true only in the first case.
    @discardableResult
    public func wait(for timeout: Duration? = nil) async -> Bool {
        if let timeout {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.waitForTrigger() }
                group.addTask { try? await Task.sleep(for: timeout) }
                await group.next()
                // Both children end on cancellation by themselves.
                group.cancelAll()
            }
        } else {
            await waitForTrigger()
        }
        return isTriggered
    }

    private func waitForTrigger() async {
        let id = state.withLock { s in
            defer { s.nextWaiter += 1 }
            return s.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.triggered || Task.isCancelled { return true }
                    s.waiters[id] = c
                    return false
                }
                if resumeNow { c.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}

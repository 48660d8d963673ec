import Synchronization

/// A level-triggered wake-up for one waiter: `fire()` from anywhere, and the
/// next (or current) `wait(for:)` returns early. Fires that arrive while
/// nobody waits are remembered once, so none is lost between checks.
package final class WakeSignal: Sendable {
    private struct State {
        package var pending = false
        package var waiter: CheckedContinuation<Void, Never>?
        package var generation = 0
    }

    private let state = Mutex(State())

    package func fire() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if let w = s.waiter {
                s.waiter = nil
                return w
            }
            s.pending = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns when fired, when `timeout` passes, or when the task is cancelled.
    package func wait(for timeout: Duration) async {
        if state.withLock({ s in defer { s.pending = false }; return s.pending }) { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask { await self.waitForFire() }
            await group.next()
            group.cancelAll()
            // The sleeper ends on cancel by itself; the fire-waiter needs resuming.
            self.releaseWaiter()
        }
    }

    private func waitForFire() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.pending {
                        s.pending = false
                        return true
                    }
                    s.waiter = c
                    return false
                }
                if resumeNow { c.resume() }
            }
        } onCancel: {
            self.releaseWaiter()
        }
    }

    private func releaseWaiter() {
        let w = state.withLock { s -> CheckedContinuation<Void, Never>? in
            defer { s.waiter = nil }
            return s.waiter
        }
        w?.resume()
    }
}

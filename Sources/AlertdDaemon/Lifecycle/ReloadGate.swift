import Synchronization

/// Lets a reload apply its configuration only while the daemon is not
/// stopping, and the stop wait for one already applying before the store
/// closes: a reload past its read when SIGTERM came went on applying routes
/// and group changes alongside the shutdown, through a store being closed
/// under it.
final class ReloadGate: Sendable {
    private struct State {
        var applying = false
        var closed = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Whether a reload may apply now; one that may calls ``leave()`` when done.
    func enter() -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.applying = true
            return true
        }
    }

    /// The reload that entered is done.
    func leave() {
        let waiting = state.withLock { state in
            state.applying = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiter in waiting { waiter.resume() }
    }

    /// No reload applies from now on.
    func close() {
        state.withLock { $0.closed = true }
    }

    /// Closes, and returns once no reload is applying.
    func closeAndWait() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                state.closed = true
                guard state.applying else { return true }
                state.waiting.append(waiter)
                return false
            }
            if now { waiter.resume() }
        }
    }
}

import Synchronization

/// Lets a reload apply its configuration only while the daemon is not
/// stopping, and the stop wait for one already applying before the store
/// closes: a reload past its read when SIGTERM came went on applying routes
/// and group changes alongside the shutdown, through a store being closed
/// under it. The wait has an end: a reload stuck on an unreachable store
/// must not hold the stop for good.
final class ReloadGate: Sendable {
    private struct State {
        var applying = 0
        var closed = false
        /// The stop no longer waits (its time ran out, or a second signal came).
        var givenUp = false
        var waiting: [CheckedContinuation<Void, Never>] = []

        mutating func take() -> [CheckedContinuation<Void, Never>] {
            defer { waiting = [] }
            return waiting
        }
    }

    private let state = Mutex(State())

    /// Whether a reload may apply now; one that may calls ``leave()`` when done.
    func enter() -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.applying += 1
            return true
        }
    }

    /// A reload that entered is done.
    func leave() {
        let waiting = state.withLock { state in
            state.applying -= 1
            return state.applying == 0 ? state.take() : []
        }
        for waiter in waiting { waiter.resume() }
    }

    /// Whether the stop has begun: a reload that sees it says nothing more
    /// to systemd, which READY=1 after STOPPING=1 would mislead.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// No reload applies from now on.
    func close() {
        state.withLock { $0.closed = true }
    }

    /// Closes, and returns once no reload is applying, `limit` has passed,
    /// or ``stopWaiting()`` is called, whichever comes first.
    func closeAndWait(atMost limit: Duration) async {
        let timer = Task {
            try? await Task.sleep(for: limit)
            stopWaiting()
        }
        defer { timer.cancel() }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                state.closed = true
                guard state.applying > 0, !state.givenUp else { return true }
                state.waiting.append(waiter)
                return false
            }
            if now { waiter.resume() }
        }
    }

    /// Ends the stop's wait for a reload applying, now and from now on.
    func stopWaiting() {
        let waiting = state.withLock { state in
            state.givenUp = true
            return state.take()
        }
        for waiter in waiting { waiter.resume() }
    }
}

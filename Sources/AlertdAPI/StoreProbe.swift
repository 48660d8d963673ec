import Synchronization
import AlertdStore

/// The store's counts for the probes (`/v1/health`, `/-/ready`,
/// `/metrics`) within a deadline: on a frozen or hung disk the store's
/// read never returned, each probe hung with it, and a load balancer or
/// systemd could not tell a hung store from a hung network. One read at a
/// time: while one is out, probes wait on it rather than queue more reads
/// behind it, all of them until the deadline at most; once it is older
/// than that, they are answered at once.
public final class StoreProbe: Sendable {
    private typealias Waiter = CheckedContinuation<Result<StoreCounts, StoreError>?, Never>

    private struct Reading {
        /// Tells this read from a later one, for the deadline's timer.
        let number: Int
        let started: ContinuousClock.Instant
        /// Probes waiting for it; none once its deadline has passed.
        var waiters: [Waiter] = []
    }

    private struct State {
        var reading: Reading?
        var reads = 0
    }

    private let store: any AlertStore
    private let deadline: Duration
    private let state = Mutex(State())

    public init(store: any AlertStore, deadline: Duration = .seconds(3)) {
        self.store = store
        self.deadline = deadline
    }

    /// The counts, or why the store gave none: its own error, or
    /// `store_unresponsive` once a read has been out for the deadline.
    public func counts() async -> Result<StoreCounts, StoreError> {
        let now = ContinuousClock.now
        var started = now
        let result = await withCheckedContinuation { (waiter: Waiter) in
            let (late, new) = state.withLock { state -> (Bool, Int?) in
                var new: Int?
                if state.reading == nil {
                    state.reads += 1
                    state.reading = Reading(number: state.reads, started: now)
                    new = state.reads
                }
                started = state.reading!.started
                if now - started >= deadline { return (true, new) }
                state.reading!.waiters.append(waiter)
                return (false, new)
            }
            if let new { read(number: new) }
            if late { waiter.resume(returning: nil) }
        }
        if let result { return result }
        let seconds = (ContinuousClock.now - started).components.seconds
        return .failure(StoreError(code: .unresponsive, message: """
            The store has not answered for \(seconds) s: its disk may be hung or frozen (an NFS server gone, fsfreeze); \
            alertd answers again once it does.
            """))
    }

    /// Reads the counts for every waiter, and lets them go at the deadline
    /// if the read has not come back by then (it goes on; the next probe
    /// after it starts another).
    private func read(number: Int) {
        Task { [self] in
            let result: Result<StoreCounts, StoreError>
            do throws(StoreError) { result = .success(try await self.store.counts()) } catch { result = .failure(error) }
            let waiters = state.withLock { state -> [Waiter] in
                defer { state.reading = nil }
                return state.reading?.waiters ?? []
            }
            for waiter in waiters { waiter.resume(returning: result) }
        }
        Task { [self] in
            try? await Task.sleep(for: self.deadline)
            let waiters = state.withLock { state -> [Waiter] in
                guard state.reading?.number == number else { return [] }
                defer { state.reading?.waiters = [] }
                return state.reading?.waiters ?? []
            }
            for waiter in waiters { waiter.resume(returning: nil) }
        }
    }
}

import Synchronization
import AlertdStore

/// The store's counts for the probes (`/v1/health`, `/-/ready`,
/// `/metrics`) within a deadline: on a frozen or hung disk the store's
/// read never returned, each probe hung with it, and a load balancer or
/// systemd could not tell a hung store from a hung network. One read at a
/// time: while one is out, probes wait on it rather than queue more reads
/// behind it, and once it is older than the deadline they are answered at
/// once.
public final class StoreProbe: Sendable {
    private struct Reading {
        let task: Task<Result<StoreCounts, StoreError>, Never>
        let started: ContinuousClock.Instant
    }

    /// Resumes a continuation once, whichever of its racers comes first.
    private final class Once<T: Sendable>: Sendable {
        let continuation: Mutex<CheckedContinuation<T?, Never>?>
        init(_ continuation: CheckedContinuation<T?, Never>) { self.continuation = Mutex(continuation) }
        func resume(_ value: T?) { continuation.withLock { $0.take() }?.resume(returning: value) }
    }

    private let store: any AlertStore
    private let deadline: Duration
    private let reading = Mutex<Reading?>(nil)

    public init(store: any AlertStore, deadline: Duration = .seconds(3)) {
        self.store = store
        self.deadline = deadline
    }

    /// The counts, or why the store gave none: its own error, or
    /// `store_unresponsive` once a read has been out for the deadline.
    public func counts() async -> Result<StoreCounts, StoreError> {
        let now = ContinuousClock.now
        let current = reading.withLock { reading in
            if let reading { return reading }
            let task = Task { [store] () -> Result<StoreCounts, StoreError> in
                let result: Result<StoreCounts, StoreError>
                do throws(StoreError) { result = .success(try await store.counts()) } catch { result = .failure(error) }
                // Only this read is ever out: a new one starts once it is gone.
                self.reading.withLock { $0 = nil }
                return result
            }
            reading = Reading(task: task, started: now)
            return reading!
        }
        let left = current.started + deadline - now
        guard left > .zero, let result = await Self.value(of: current.task, within: left) else {
            let seconds = (ContinuousClock.now - current.started).components.seconds
            return .failure(StoreError(code: .unresponsive, message: """
                The store has not answered for \(seconds) s: its disk may be hung or frozen (an NFS server gone, fsfreeze); \
                alertd answers again once it does.
                """))
        }
        return result
    }

    /// The task's value, or nil if it takes longer than `limit` (the task
    /// goes on; nothing here waits for it).
    private static func value<T: Sendable>(of task: Task<T, Never>, within limit: Duration) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let once = Once(continuation)
            let timer = Task {
                // Cancelled, it says nothing: the value is on its way.
                do {
                    try await Task.sleep(for: limit)
                    once.resume(nil)
                } catch {}
            }
            Task {
                let value = await task.value
                timer.cancel()
                once.resume(value)
            }
        }
    }
}

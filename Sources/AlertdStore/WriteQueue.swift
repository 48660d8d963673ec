import Dispatch
import Synchronization

/// The queue in front of a backend's writer thread, which takes all the
/// jobs waiting at once into one transaction (group commit): callers queue
/// work and are answered when the writer has finished it; the writer sleeps
/// until there is work, takes it in batches, and is stopped by ``close()``
/// once everything queued is done. Each backend's writer owns one and runs
/// the transactions its own way.
///
/// Public, where the rest of the store's plumbing is `package`: this
/// toolchain specializes `@inlinable` code in another module only when it is
/// public (measured: `package` left every call generic).
public final class WriteQueue<Context, Failure: Error>: Sendable {
    /// A unit of work inside a batch's transaction. It may run more than
    /// once (a batch that fails is retried job by job), so it must only
    /// touch the database.
    public struct Job: Sendable {
        public let work: @Sendable (Context) throws(Failure) -> Void
        /// Whether the caller's answer promises the change survives a power
        /// (or database server) loss; a batch waits for the disk only when
        /// one of its jobs needs that.
        public let durable: Bool
        /// Writes to disk whatever the data, so its commit proves the store
        /// writable even though no row changed (a probe).
        public let provesWritability: Bool
        public let finish: @Sendable (Failure?) -> Void

        public init(work: @escaping @Sendable (Context) throws(Failure) -> Void, durable: Bool, provesWritability: Bool = false,
                    finish: @escaping @Sendable (Failure?) -> Void) {
            self.work = work
            self.durable = durable
            self.provesWritability = provesWritability
            self.finish = finish
        }
    }

    // `submit` and `take` run for every write, and are inlinable so each
    // backend's writer gets them specialized for its own types: run
    // generically, each call looked up the metadata of `Result`, `Mutex`,
    // the continuation and the job at run time, about 12 k instructions a
    // write.
    @usableFromInline struct State {
        @usableFromInline var jobs: [Job] = []
        @usableFromInline var closed = false
        @usableFromInline init() {}
    }

    @usableFromInline let state = Mutex(State())
    @usableFromInline let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    public init() {}

    /// Queues `work` and returns its result once the writer has run it and
    /// called its `finish`; nil when the queue is closed.
    @inlinable
    public func submit<T: Sendable>(durable: Bool, _ work: @escaping @Sendable (Context) throws(Failure) -> T) async -> Result<T, Failure>? {
        await withCheckedContinuation { continuation in
            let box = Mutex<T?>(nil)
            let job = Job(
                work: { context throws(Failure) in
                    let value = try work(context)
                    box.withLock { $0 = value }
                },
                durable: durable,
                finish: { error in
                    if let error {
                        continuation.resume(returning: .failure(error))
                    } else {
                        continuation.resume(returning: box.withLock { $0 }.map { .success($0) })
                    }
                })
            let accepted = state.withLock { s -> Bool in
                guard !s.closed else { return false }
                s.jobs.append(job)
                return true
            }
            if accepted { wake.signal() } else { continuation.resume(returning: nil) }
        }
    }

    /// For the writer: sleeps until work is queued (or the queue closes),
    /// or until `deadline`; false when the deadline passed first.
    package func waitForWork(until deadline: DispatchTime? = nil) -> Bool {
        guard let deadline else {
            wake.wait()
            return true
        }
        return wake.wait(timeout: deadline) == .success
    }

    /// For the writer: up to `limit` queued jobs, oldest first, and whether
    /// the queue is closed with nothing left (then the writer ends, calling
    /// ``writerStopped()``).
    @inlinable
    public func take(limit: Int) -> (jobs: [Job], finished: Bool) {
        state.withLock { s in
            let n = min(s.jobs.count, limit)
            let taken = Array(s.jobs.prefix(n))
            s.jobs.removeFirst(n)
            // More than one batch waiting: make sure the writer comes round again.
            if !s.jobs.isEmpty { wake.signal() }
            return (taken, s.closed && s.jobs.isEmpty)
        }
    }

    /// Jobs queued and not yet taken by the writer: lets a test know its
    /// jobs wait in the order it queued them, without guessing with sleeps.
    package var waiting: Int { state.withLock { $0.jobs.count } }

    /// For the writer, as it ends: lets ``close()`` return.
    package func writerStopped() { stopped.signal() }

    /// Refuses new work, lets the writer finish what is queued, and waits
    /// for it to stop. Later calls return at once.
    package func close() {
        let first = state.withLock { s -> Bool in
            defer { s.closed = true }
            return !s.closed
        }
        guard first else { return }
        wake.signal()
        stopped.wait()
    }
}

/// Why a store's writes fail for want of its storage (a disk, a database
/// server), until one works again; tells `onChange` only when the store
/// turns unwritable or writable again.
package final class WriteFailure: Sendable {
    private let current = Mutex<StoreError?>(nil)
    private let onChange: @Sendable (StoreError?) -> Void

    package init(onChange: @escaping @Sendable (StoreError?) -> Void) { self.onChange = onChange }

    /// The latest failure, nil while writes work.
    package var error: StoreError? { current.withLock { $0 } }

    /// Keeps the latest failure's words (nil: writes work). A damaged
    /// database (`store_corrupt`) stays the failure: a write that happens
    /// to miss the damaged pages does not repair them, and health that
    /// went back to ok while every claim failed hid that nothing was delivered.
    package func record(_ failure: StoreError?) {
        let turned = current.withLock { c -> Bool in
            if c?.code == .corrupt { return false }
            defer { c = failure }
            return (c == nil) != (failure == nil) || failure?.code == .corrupt
        }
        if turned { onChange(failure) }
    }

    /// Whether the failure is a damaged database, which nothing but a restart on a repaired file clears.
    package var isDamage: Bool { current.withLock { $0?.code == .corrupt } }
}

import AlertdPOSIX
import Dispatch
import FoundationEssentials
import Synchronization
import AlertModel
import AlertdSQLite
import AlertdStore

/// Runs write jobs on one dedicated thread, many jobs to a transaction.
///
/// While one batch commits (and fsyncs), new jobs queue up; the next batch
/// takes all of them, so the cost of an fsync is shared by everyone who
/// arrived during the previous one. No job's caller is answered before the
/// transaction holding its job has committed.
///
/// It also knows whether the store can be written at all: a batch that
/// fails for want of disk, permission or I/O leaves that failure as
/// ``lastWriteFailure`` until a commit reaches the disk again. While it
/// stands, the writer runs `probe` every few seconds, so a recovery is
/// seen even when nobody writes.
package final class GroupCommitter: Sendable {
    /// A unit of work inside a batch's transaction. It may run twice (see
    /// `runBatch`), so it must only touch the database.
    package typealias Work = @Sendable (SQLiteConnection) throws(SQLiteError) -> Void

    private struct Job: Sendable {
        package let work: Work
        /// Whether the caller's answer promises the change survives a power
        /// loss. A batch fsyncs only when one of its jobs needs that.
        package let durable: Bool
        /// Writes to disk whatever the data, so its commit proves the store
        /// writable even though no row changed (the probe).
        package var provesWritability = false
        package let finish: @Sendable (SQLiteError?) -> Void
    }

    private struct Queue {
        package var jobs: [Job] = []
        package var closed = false
    }

    private let connection: SQLiteConnection
    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let maxBatch: Int
    /// The writer thread's view of `PRAGMA synchronous`; only it touches this.
    private let synchronousFull = Mutex(true)
    /// Called after each commit with the number of jobs in it.
    private let onCommit: @Sendable (Int) -> Void
    /// Why the last write failed for want of storage, until one commits again.
    private let writeFailure = Mutex<StoreError?>(nil)
    private let onWriteFailureChange: @Sendable (StoreError?) -> Void
    /// A write that always reaches the disk, run while writes fail.
    private let probe: Work?
    private let probeInterval: Duration

    /// `probe` must write to disk whatever the data (see ``lastWriteFailure``);
    /// `onWriteFailureChange` hears when writes start failing (with why) and
    /// when they work again (nil).
    package init(
        connection: SQLiteConnection, maxBatch: Int = 4_096, probe: Work? = nil, probeInterval: Duration = .seconds(5),
        onCommit: @escaping @Sendable (Int) -> Void = { _ in },
        onWriteFailureChange: @escaping @Sendable (StoreError?) -> Void = { _ in }
    ) {
        self.connection = connection
        self.maxBatch = maxBatch
        self.probe = probe
        self.probeInterval = probeInterval
        self.onCommit = onCommit
        self.onWriteFailureChange = onWriteFailureChange
        DetachedThread.start(name: "alertd-store-writer") { [self] in self.loop() }
    }

    /// Runs `work` in the next batch and returns its result once committed.
    /// `durable: false` is for bookkeeping whose loss in a power cut is
    /// harmless (claims and outcomes of deliveries, which are retried):
    /// such a batch commits without an fsync. A process crash loses
    /// neither kind; WAL mode keeps both consistent.
    package func write<T: Sendable>(
        durable: Bool = true, _ work: @escaping @Sendable (SQLiteConnection) throws(SQLiteError) -> T
    ) async throws(StoreError) -> T {
        let result: Result<T, SQLiteError>? = await withCheckedContinuation { continuation in
            let box = Mutex<T?>(nil)
            let job = Job(
                work: { conn throws(SQLiteError) in
                    let value = try work(conn)
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
            let accepted = queue.withLock { q -> Bool in
                guard !q.closed else { return false }
                q.jobs.append(job)
                return true
            }
            if accepted { wake.signal() } else { continuation.resume(returning: nil) }
        }
        switch result {
        case .none: throw StoreError(code: .closed, message: "The store is closing and takes no more writes.")
        case .success(let value): return value
        case .failure(let error): throw StoreError.from(error, doing: "Writing to the store")
        }
    }

    /// Why the last batch failed for want of disk, permission or I/O (a
    /// read-only file system, a full disk), until a later commit reaches the
    /// disk; nil while writes work. Failures of the work itself (a
    /// constraint) say nothing about the disk and leave it as it was.
    package var lastWriteFailure: StoreError? { writeFailure.withLock { $0 } }

    /// Finishes queued work, then stops the thread. Later writes fail with `.closed`.
    package func close() {
        let first = queue.withLock { q -> Bool in
            defer { q.closed = true }
            return !q.closed
        }
        guard first else { return }
        wake.signal()
        stopped.wait()
    }

    private func loop() {
        var nextProbe = DispatchTime.now()
        while true {
            if let probe, writeFailure.withLock({ $0 != nil }) {
                // On a clock of its own, not only when idle: the dispatcher's
                // frequent claims would keep an idle wait from ever running
                // out, and they change no row, so they prove nothing.
                if DispatchTime.now() >= nextProbe {
                    runBatch([Job(work: probe, durable: true, provesWritability: true, finish: { _ in })])
                    nextProbe = .now() + .milliseconds(probeInterval.milliseconds)
                }
                _ = wake.wait(timeout: nextProbe)
            } else {
                wake.wait()
            }
            let (jobs, closed) = queue.withLock { q -> ([Job], Bool) in
                let n = min(q.jobs.count, maxBatch)
                let taken = Array(q.jobs.prefix(n))
                q.jobs.removeFirst(n)
                // More than one batch waiting: make sure we come round again.
                if !q.jobs.isEmpty { wake.signal() }
                return (taken, q.closed && q.jobs.isEmpty)
            }
            if !jobs.isEmpty { runBatch(jobs) }
            if closed {
                stopped.signal()
                return
            }
        }
    }

    /// One transaction for the whole batch. If any job fails, the batch is
    /// rolled back and each job is run again in a transaction of its own, so
    /// one bad job cannot fail its neighbours.
    private func runBatch(_ jobs: [Job]) {
        let durable = jobs.contains { $0.durable }
        // Whether the commit wrote anything: a transaction that changed no
        // row commits without touching the disk, and proves nothing.
        var wrote = jobs.contains { $0.provesWritability }
        let outcome: SQLiteError? = connection.withLock { (conn: SQLiteConnection) throws(Never) -> SQLiteError? in
            let changesBefore = conn.totalChanges
            do throws(SQLiteError) {
                // FULL fsyncs the WAL at commit; NORMAL leaves that to the next
                // FULL commit or checkpoint, which then covers these frames too.
                if synchronousFull.withLock({ $0 }) != durable {
                    try conn.execute(durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL")
                    synchronousFull.withLock { $0 = durable }
                }
                try conn.execute("BEGIN IMMEDIATE")
            } catch {
                return error
            }
            do throws(SQLiteError) {
                for job in jobs { try job.work(conn) }
                try conn.execute("COMMIT")
                if conn.totalChanges != changesBefore { wrote = true }
                return nil
            } catch {
                try? conn.execute("ROLLBACK")
                return error
            }
        }
        guard let outcome else {
            if wrote { recordWriteFailure(nil) }
            let work = jobs.filter { !$0.provesWritability }.count
            if work > 0 { onCommit(work) }
            for job in jobs { job.finish(nil) }
            return
        }
        if outcome.isStorageFailure { recordWriteFailure(StoreError.from(outcome, doing: "Writing to the store")) }
        if jobs.count == 1 {
            jobs[0].finish(outcome)
            return
        }
        for job in jobs { runBatch([job]) }
    }

    /// Keeps the latest failure's words; tells the listener only when the
    /// store turns unwritable or writable again.
    private func recordWriteFailure(_ failure: StoreError?) {
        let turned = writeFailure.withLock { current -> Bool in
            defer { current = failure }
            return (current == nil) != (failure == nil)
        }
        if turned { onWriteFailureChange(failure) }
    }
}

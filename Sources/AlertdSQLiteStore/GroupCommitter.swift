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
    private typealias Job = WriteQueue<SQLiteConnection, SQLiteError>.Job

    private let connection: SQLiteConnection
    private let queue = WriteQueue<SQLiteConnection, SQLiteError>()
    private let maxBatch: Int
    /// The writer thread's view of `PRAGMA synchronous`; only it touches this.
    private let synchronousFull = Mutex(true)
    /// Set by a write that failed at the disk, until the WAL is rewritten
    /// (``runBatch(_:)``); only the writer thread touches this.
    private let walInDoubt = Mutex(false)
    /// Why every write fails from now on (``refuseWrites(_:)``).
    private let refusal = Mutex<SQLiteError?>(nil)
    /// Another program's lock that failed the last batch, until a commit
    /// works again; only the writer thread touches this.
    private let lockedOut = Mutex<SQLiteError?>(nil)
    /// Called after each commit with the number of jobs in it.
    private let onCommit: @Sendable (Int) -> Void
    /// Why the last write failed for want of storage, until one commits again.
    private let writeFailure: WriteFailure
    /// A write that always reaches the disk, run while writes fail.
    private let probe: Work?
    private let probeInterval: Duration
    /// Whether the database's files are still the ones written (not
    /// removed, replaced or emptied): asked before each durable batch, and
    /// on the probe's clock when idle, so health says so too.
    private let files: StoreFileWatch?

    /// `probe` must write to disk whatever the data (see ``lastWriteFailure``);
    /// `onWriteFailureChange` hears when writes start failing (with why) and
    /// when they work again (nil).
    package init(
        connection: SQLiteConnection, maxBatch: Int = 4_096, probe: Work? = nil, probeInterval: Duration = .seconds(5),
        files: StoreFileWatch? = nil, onCommit: @escaping @Sendable (Int) -> Void = { _ in },
        onWriteFailureChange: @escaping @Sendable (StoreError?) -> Void = { _ in }
    ) {
        self.connection = connection
        self.maxBatch = maxBatch
        self.probe = probe
        self.probeInterval = probeInterval
        self.files = files
        self.onCommit = onCommit
        writeFailure = WriteFailure(onChange: onWriteFailureChange)
        DetachedThread.start(name: "alertd-store-writer") { [self] in self.loop() }
    }

    /// Runs `work` in the next batch and returns its result once committed.
    /// `durable: false` is for bookkeeping whose loss in a power cut is
    /// harmless (claims and outcomes of deliveries, which are retried):
    /// such a batch commits without an fsync. A process crash loses
    /// neither kind; WAL mode keeps both consistent.
    ///
    /// `sharingRows`: the new rows of `work`'s transactions join the
    /// batch's ``PendingRows``, written at its end. Only for work that reads
    /// and changes alerts, deliveries and events through
    /// ``SQLiteStoreTransaction`` or by the ids of rows committed before it
    /// (a delivery the dispatcher got back from an earlier write): another
    /// job's rows may still be held. Other work finds every row of the jobs
    /// before it written.
    package func write<T: Sendable>(
        durable: Bool = true, sharingRows: Bool = false, _ work: @escaping @Sendable (SQLiteConnection) throws(SQLiteError) -> T
    ) async throws(StoreError) -> T {
        let result: Result<T, SQLiteError>?
        if sharingRows {
            result = await queue.submit(durable: durable, work)
        } else {
            result = await queue.submit(durable: durable) { conn throws(SQLiteError) -> T in
                try PendingRows.current?.write(in: conn)
                return try Self.withoutBatchRows(conn, work)
            }
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
    package var lastWriteFailure: StoreError? { writeFailure.error }

    /// Refuses writes for good once the database's files are not the ones written.
    private func lookAtFiles() {
        guard refusal.withLock({ $0 }) == nil, let changed = files?.change() else { return }
        refuseWrites(changed)
    }

    /// Takes no more writes, for good: `damage` (the database file found
    /// damaged, or gone from under the store) fails every batch from now
    /// on, as the store's ``lastWriteFailure``.
    package func refuseWrites(_ damage: SQLiteError) {
        refusal.withLock { $0 = $0 ?? damage }
        writeFailure.record(StoreError.from(damage, doing: "Writing to the store"))
    }

    /// Jobs queued behind the batch being written (for tests).
    package var waitingJobs: Int { queue.waiting }

    /// Finishes queued work, then stops the thread. Later writes fail with `.closed`.
    package func close() {
        queue.close()
    }

    private func loop() {
        var nextProbe = DispatchTime.now()
        let interval = DispatchTimeInterval.milliseconds(probeInterval.milliseconds)
        var nextLook = DispatchTime.now() + interval
        while true {
            if files != nil, DispatchTime.now() >= nextLook {
                lookAtFiles()
                nextLook = .now() + interval
            }
            // A damaged file is not probed: no write proves it repaired.
            if let probe, writeFailure.error != nil, !writeFailure.isDamage {
                // On a clock of its own, not only when idle: the dispatcher's
                // frequent claims would keep an idle wait from ever running
                // out, and they change no row, so they prove nothing.
                if DispatchTime.now() >= nextProbe {
                    runBatch([Job(work: probe, durable: true, provesWritability: true, finish: { _ in })])
                    nextProbe = .now() + interval
                }
                _ = queue.waitForWork(until: min(nextProbe, nextLook))
            } else if files != nil {
                _ = queue.waitForWork(until: nextLook)
            } else {
                _ = queue.waitForWork()
            }
            let (jobs, finished) = queue.take(limit: maxBatch)
            if !jobs.isEmpty { runBatch(jobs) }
            if finished {
                queue.writerStopped()
                return
            }
        }
    }

    /// One transaction for the whole batch. If a job fails, the batch is
    /// rolled back and each job is run again in a transaction of its own, so
    /// one bad job cannot fail its neighbours; if the disk or a lock does,
    /// every job fails with it at once.
    private func runBatch(_ jobs: [Job]) {
        let durable = jobs.contains { $0.durable }
        // An acknowledgement promises the next start reads it.
        if durable { lookAtFiles() }
        if let refused = refusal.withLock({ $0 }) {
            for job in jobs { job.finish(refused) }
            return
        }
        // While another program holds the lock, only the probe waits for it:
        // every batch waiting its own 5 s in turn held a request 15 s for a 503.
        if let locked = lockedOut.withLock({ $0 }), !jobs.contains(where: { $0.provesWritability }) {
            for job in jobs { job.finish(locked) }
            return
        }
        // Whether the commit wrote anything: a transaction that changed no
        // row commits without touching the disk, and proves nothing.
        var wrote = jobs.contains { $0.provesWritability }
        let outcome: SQLiteError? = connection.withLock { (conn: SQLiteConnection) throws(Never) -> SQLiteError? in
            let changesBefore = conn.totalChanges
            do throws(SQLiteError) {
                if walInDoubt.withLock({ $0 }) {
                    // An I/O error reported at a commit may have been an earlier
                    // one's: the kernel reports a page it could not write once,
                    // at the next fsync, and then counts it clean. So frames
                    // SQLite holds committed (a non-durable batch, never synced
                    // by itself) may be missing on disk, and WAL recovery after
                    // a crash stops at the first, dropping every commit after it,
                    // acknowledged ones too. Nothing more is committed until the
                    // WAL, as this process still reads it, is in the database
                    // file, that file synced, and the WAL empty.
                    try conn.checkpointAndEmptyWAL()
                    files?.walEmptied()
                    walInDoubt.withLock { $0 = false }
                }
                // FULL fsyncs the WAL at commit; NORMAL leaves that to the next
                // FULL commit or checkpoint, which then covers these frames too.
                // Prepared once and kept, as every statement here is: `sqlite3_exec`
                // parsed these again for every transaction.
                if synchronousFull.withLock({ $0 }) != durable {
                    try conn.statement(durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL").run()
                    synchronousFull.withLock { $0 = durable }
                }
                try conn.statement("BEGIN IMMEDIATE").run()
            } catch {
                return error
            }
            do throws(SQLiteError) {
                let ledger = CounterLedger()
                let rows = PendingRows()
                try Self.run(jobs, on: conn, counting: ledger, holding: rows)
                try rows.write(in: conn)
                try ledger.write(in: conn)
                try conn.statement("COMMIT").run()
                if conn.totalChanges != changesBefore { wrote = true }
                return nil
            } catch {
                try? conn.execute("ROLLBACK")
                return error
            }
        }
        guard let outcome else {
            lockedOut.withLock { $0 = nil }
            if wrote { writeFailure.record(nil) }
            let work = jobs.filter { !$0.provesWritability }.count
            if work > 0 { onCommit(work) }
            for job in jobs { job.finish(nil) }
            return
        }
        if outcome.isDamage { refusal.withLock { $0 = $0 ?? outcome } }
        if outcome.isStorageFailure || outcome.isDamage {
            writeFailure.record(StoreError.from(outcome, doing: "Writing to the store"))
            // Another program's lock took nothing from the disk.
            if outcome.name == "busy" || outcome.name == "locked" {
                lockedOut.withLock { $0 = outcome }
            } else {
                walInDoubt.withLock { $0 = true }
            }
            // The disk's failure, not a job's: each job on its own would fail
            // the same way, each after its own wait for a lock held elsewhere.
            for job in jobs { job.finish(outcome) }
            return
        }
        if jobs.count == 1 {
            jobs[0].finish(outcome)
            return
        }
        for job in jobs { runBatch([job]) }
    }

    /// Runs the batch's jobs with `ledger` bound as ``CounterLedger/current``
    /// and `rows` as ``PendingRows/current``.
    private static func run(_ jobs: [Job], on conn: SQLiteConnection, counting ledger: CounterLedger,
                            holding rows: PendingRows) throws(SQLiteError) {
        // Caught inside: `withValue` rethrows untyped.
        var failure: SQLiteError?
        CounterLedger.$current.withValue(ledger) {
            PendingRows.$current.withValue(rows) {
                do throws(SQLiteError) {
                    for job in jobs { try job.work(conn) }
                } catch {
                    failure = error
                }
            }
        }
        if let failure { throw failure }
    }

    /// Runs `body` with no batch rows bound: its transactions hold their own.
    private static func withoutBatchRows<T>(_ conn: SQLiteConnection, _ body: (SQLiteConnection) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        // Carried out as a value: `withValue` rethrows untyped.
        let result = PendingRows.$current.withValue(nil) { Result { () throws(SQLiteError) -> T in try body(conn) } }
        return try result.get()
    }
}

import AlertdPOSIX
import Dispatch
import FoundationEssentials
import Synchronization
import AlertdPostgres
import AlertdStore

/// Runs write jobs on one dedicated thread and connection, many jobs to a
/// transaction, as the SQLite store's `GroupCommitter` does: while one
/// transaction commits (and waits for the WAL flush), new jobs queue up and
/// the next transaction takes all of them. No caller is answered before the
/// transaction holding its job has committed.
///
/// A batch that fails because another node got in the way (a deadlock, a
/// dedup key taken meanwhile) is rolled back and each job run again on its
/// own, a few times, so it sees what the other node committed. A batch that
/// fails because the database is unreachable, or takes no writes (a hot
/// standby), fails its callers (a 503 for intake) and leaves
/// ``lastWriteFailure`` set until a transaction commits again; meanwhile
/// the thread probes the database every second, so the recovery is seen
/// even when nobody writes.
final class PostgresCommitter: Sendable {
    private typealias Job = WriteQueue<PostgresWriteSession, PostgresError>.Job

    private let connection: PostgresConnection
    private let queue = WriteQueue<PostgresWriteSession, PostgresError>()
    private let maxBatch: Int
    private let onCommit: @Sendable (Int) -> Void
    private let writeFailure: WriteFailure
    /// Set while the failure is a grant missing: then only a probe that
    /// finds every table writable ends it. Other tables' writes succeed
    /// meanwhile, and each cleared it, the next refusal set it again.
    private let privilegeRefused = Atomic<Bool>(false)

    /// How often a job that lost to another node is run again.
    private static let conflictRetries = 5

    init(
        connection: PostgresConnection, maxBatch: Int = 2_048,
        onCommit: @escaping @Sendable (Int) -> Void, onWriteFailureChange: @escaping @Sendable (StoreError?) -> Void
    ) {
        self.connection = connection
        self.maxBatch = maxBatch
        self.onCommit = onCommit
        writeFailure = WriteFailure(onChange: onWriteFailureChange)
        DetachedThread.start(name: "alertd-pg-writer") { [self] in self.loop() }
    }

    /// Runs `work` in the next batch and returns its result once committed.
    /// `durable: false` is for claims and outcomes of deliveries, which are
    /// retried if lost: such a batch commits without waiting for the flush
    /// (`synchronous_commit` off for that transaction only).
    func write<T: Sendable>(
        durable: Bool = true, _ work: @escaping @Sendable (PostgresWriteSession) throws(PostgresError) -> T
    ) async throws(StoreError) -> T {
        switch await queue.submit(durable: durable, work) {
        case .none: throw StoreError(code: .closed, message: "The store is closing and takes no more writes.")
        case .success(let value): return value
        case .failure(let error): throw StoreError.from(error, doing: "Writing to the store")
        }
    }

    /// Why the last batch failed for want of the database, until one commits
    /// again; nil while writes work.
    var lastWriteFailure: StoreError? { writeFailure.error }

    /// Finishes queued work, then stops the thread. Later writes fail with `.closed`.
    func close() {
        queue.close()
    }

    private func loop() {
        var probed = ContinuousClock.now
        while true {
            if writeFailure.error != nil {
                // A missing grant is ended by a probe alone (writes to other tables
                // succeed meanwhile), so then one each second even while work keeps
                // coming: waiting for a quiet second, a node writing steadily
                // stayed unwritable for good once the grant was back.
                let idle = !queue.waitForWork(until: .now() + .seconds(1))
                if idle || (privilegeRefused.load(ordering: .relaxed) && ContinuousClock.now - probed >= .seconds(1)) {
                    probe()
                    probed = .now
                }
            } else {
                _ = queue.waitForWork()
            }
            let (jobs, finished) = queue.take(limit: maxBatch)
            if !jobs.isEmpty { runBatch(jobs, retries: Self.conflictRetries) }
            if finished {
                queue.writerStopped()
                return
            }
        }
    }

    /// A round trip that proves the database answers again, and would
    /// take a write: a standby, a read-only database or a user without its
    /// grants answers reads.
    private func probe() {
        let writable = connection.withLock { conn -> Bool in
            do throws(PostgresError) {
                let state = try conn.scalar("""
                    SELECT CASE WHEN pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on' THEN 1
                        WHEN (\(PostgresSchema.unwritableRelations)) IS NOT NULL THEN 2 ELSE 0 END
                    """)
                // A session keeps the read-only default it started with; its grants it does not.
                if state == 1 { conn.disconnect(after: PostgresError(sqlState: "25006", message: "the database takes no writes", context: "probe", connectionLost: false)) }
                return state == 0
            } catch {
                return false
            }
        }
        if writable {
            privilegeRefused.store(false, ordering: .relaxed)
            writeFailure.record(nil)
        }
    }

    private func runBatch(_ jobs: [Job], retries: Int) {
        let durable = jobs.contains { $0.durable }
        let outcome = connection.withLock { conn -> PostgresError? in
            do throws(PostgresError) {
                try conn.retryingIfDeadWhileIdle { c throws(PostgresError) in
                    try c.execute(durable ? "BEGIN" : "BEGIN; SET LOCAL synchronous_commit = off")
                }
            } catch {
                return error
            }
            do throws(PostgresError) {
                let session = PostgresWriteSession(conn: conn)
                for job in jobs { try job.work(session) }
                if session.notifies { try conn.execute("NOTIFY \(PostgresSchema.channel)") }
                try conn.execute("COMMIT")
                return nil
            } catch {
                if conn.isConnected { try? conn.execute("ROLLBACK") }
                // Another session may find the primary, or write again (``PostgresConnection/disconnect(after:)``).
                if error.isReadOnlyRefusal { conn.disconnect(after: error) }
                return error
            }
        }
        guard let outcome else {
            if !privilegeRefused.load(ordering: .relaxed) { writeFailure.record(nil) }
            onCommit(jobs.count)
            for job in jobs { job.finish(nil) }
            return
        }
        if outcome.isConnectionFailure || outcome.isReadOnlyRefusal {
            // Nothing to gain from running the jobs one by one: the database
            // is gone, or takes no writes. Either is the store's failure,
            // for health too, until a probe finds it writable again.
            writeFailure.record(StoreError.from(outcome, doing: "Writing to the store"))
            for job in jobs { job.finish(outcome) }
            return
        }
        if outcome.isPrivilegeRefusal {
            // The store's failure too, but a grant missing on one table leaves
            // the others writable: the jobs are still run one by one below.
            privilegeRefused.store(true, ordering: .relaxed)
            writeFailure.record(StoreError.from(outcome, doing: "Writing to the store"))
        }
        if jobs.count > 1 {
            for job in jobs { runBatch([job], retries: retries) }
        } else if outcome.isConflict && retries > 0 {
            runBatch(jobs, retries: retries - 1)
        } else {
            jobs[0].finish(outcome)
        }
    }
}

import Foundation
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
/// fails because the database is unreachable fails its callers (a 503 for
/// intake) and leaves ``lastWriteFailure`` set until a transaction commits
/// again; meanwhile the thread probes the database every second, so the
/// recovery is seen even when nobody writes.
final class PostgresCommitter: Sendable {
    typealias Work = @Sendable (PostgresWriteSession) throws(PostgresError) -> Void

    private struct Job: Sendable {
        let work: Work
        /// Whether the caller's answer promises the change survives a crash
        /// of the database server: such a batch commits with
        /// `synchronous_commit` on, the others (claims and outcomes of
        /// deliveries, which are retried) without waiting for the flush.
        let durable: Bool
        let finish: @Sendable (PostgresError?) -> Void
    }

    private struct Queue {
        var jobs: [Job] = []
        var closed = false
    }

    private let connection: PostgresConnection
    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let maxBatch: Int
    private let onCommit: @Sendable (Int) -> Void
    private let writeFailure = Mutex<StoreError?>(nil)
    private let onWriteFailureChange: @Sendable (StoreError?) -> Void

    /// How often a job that lost to another node is run again.
    private static let conflictRetries = 5

    init(
        connection: PostgresConnection, maxBatch: Int = 2_048,
        onCommit: @escaping @Sendable (Int) -> Void, onWriteFailureChange: @escaping @Sendable (StoreError?) -> Void
    ) {
        self.connection = connection
        self.maxBatch = maxBatch
        self.onCommit = onCommit
        self.onWriteFailureChange = onWriteFailureChange
        let thread = Thread { [self] in self.loop() }
        thread.name = "alertd-pg-writer"
        thread.qualityOfService = .userInitiated
        thread.start()
    }

    /// Runs `work` in the next batch and returns its result once committed.
    func write<T: Sendable>(
        durable: Bool = true, _ work: @escaping @Sendable (PostgresWriteSession) throws(PostgresError) -> T
    ) async throws(StoreError) -> T {
        let result: Result<T, PostgresError>? = await withCheckedContinuation { continuation in
            let box = Mutex<T?>(nil)
            let job = Job(
                work: { session throws(PostgresError) in
                    let value = try work(session)
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

    /// Why the last batch failed for want of the database, until one commits
    /// again; nil while writes work.
    var lastWriteFailure: StoreError? { writeFailure.withLock { $0 } }

    /// Finishes queued work, then stops the thread. Later writes fail with `.closed`.
    func close() {
        let first = queue.withLock { q -> Bool in
            defer { q.closed = true }
            return !q.closed
        }
        guard first else { return }
        wake.signal()
        stopped.wait()
    }

    private func loop() {
        while true {
            if writeFailure.withLock({ $0 != nil }) {
                if wake.wait(timeout: .now() + .seconds(1)) == .timedOut { probe() }
            } else {
                wake.wait()
            }
            let (jobs, closed) = queue.withLock { q -> ([Job], Bool) in
                let n = min(q.jobs.count, maxBatch)
                let taken = Array(q.jobs.prefix(n))
                q.jobs.removeFirst(n)
                if !q.jobs.isEmpty { wake.signal() }
                return (taken, q.closed && q.jobs.isEmpty)
            }
            if !jobs.isEmpty { runBatch(jobs, retries: Self.conflictRetries) }
            if closed {
                stopped.signal()
                return
            }
        }
    }

    /// A round trip that proves the database answers again.
    private func probe() {
        let failure = connection.withLock { conn -> PostgresError? in
            do throws(PostgresError) {
                _ = try conn.scalar("SELECT 1")
                return nil
            } catch {
                return error
            }
        }
        if failure == nil { recordWriteFailure(nil) }
    }

    private func runBatch(_ jobs: [Job], retries: Int) {
        let durable = jobs.contains { $0.durable }
        let outcome = connection.withLock { conn -> PostgresError? in
            do throws(PostgresError) {
                try conn.execute(durable ? "BEGIN" : "BEGIN; SET LOCAL synchronous_commit = off")
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
                return error
            }
        }
        guard let outcome else {
            recordWriteFailure(nil)
            onCommit(jobs.count)
            for job in jobs { job.finish(nil) }
            return
        }
        if outcome.isConnectionFailure {
            // Nothing to gain from running the jobs one by one: the database is gone.
            recordWriteFailure(StoreError.from(outcome, doing: "Writing to the store"))
            for job in jobs { job.finish(outcome) }
            return
        }
        if jobs.count > 1 {
            for job in jobs { runBatch([job], retries: retries) }
        } else if outcome.isConflict && retries > 0 {
            runBatch(jobs, retries: retries - 1)
        } else {
            jobs[0].finish(outcome)
        }
    }

    private func recordWriteFailure(_ failure: StoreError?) {
        let turned = writeFailure.withLock { current -> Bool in
            defer { current = failure }
            return (current == nil) != (failure == nil)
        }
        if turned { onWriteFailureChange(failure) }
    }
}

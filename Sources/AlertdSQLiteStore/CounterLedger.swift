import Synchronization
import AlertdSQLite

/// The counter changes (``CounterMoves``) of every transaction in one
/// group-commit batch, summed and written once just before its `COMMIT`.
/// Written per transaction, one alert per request paid two `counters`
/// updates each, some 15 k instructions of its ingest, where the batch it
/// shares with a few others needs two.
///
/// ``GroupCommitter`` binds one to ``current`` while it runs a batch's jobs
/// on its thread; ``SQLiteStoreTransaction/run(in:_:)`` adds to it there,
/// and writes its own moves at once anywhere else. A batch that fails is
/// rolled back and run again job by job, each with a fresh ledger, so no
/// failed job's moves are written.
final class CounterLedger: Sendable {
    /// Bound on the writer's thread for one batch (a task-local outside a
    /// task is held by the thread), so the jobs need not pass it along.
    @TaskLocal static var current: CounterLedger?

    private let moves = Mutex(CounterMoves())

    /// Adds a transaction's moves to the batch's.
    func add(_ more: CounterMoves) {
        moves.withLock { $0.add(more) }
    }

    /// Writes the batch's sums; call it after the last job, before `COMMIT`.
    func write(in conn: SQLiteConnection) throws(SQLiteError) {
        var sums = moves.withLock { moves in
            defer { moves = CounterMoves() }
            return moves
        }
        try sums.write(in: conn)
    }
}

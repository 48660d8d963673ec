import Synchronization
import AlertModel
import AlertdSQLite

/// New alerts, deliveries and events not yet written: held until a
/// statement must see them or the transaction ends, then written with
/// multi-row `INSERT`s (``RowBatch``), alerts first (a delivery names its
/// alert).
///
/// A transaction outside a group-commit batch holds its own. Inside one,
/// ``GroupCommitter`` binds the batch's to ``current`` for the jobs that
/// share it (intake and delivery outcomes), and writes it just before
/// `COMMIT`: one alert per request otherwise wrote three one-row `INSERT`s
/// per request, where the few requests of a batch together need three.
/// A batch that fails is rolled back and run again job by job, each with
/// rows of its own, so a failing row is its own job's failure.
final class PendingRows: Sendable {
    /// Bound on the writer's thread while a batch's sharing jobs run (a
    /// task-local outside a task is held by the thread).
    @TaskLocal static var current: PendingRows?

    private static let alertRows = RowBatch.Shape(
        "INSERT INTO alerts (id, spec, state, severity, dedup_key, created_at, updated_at, expires_at, escalate_at, escalate_to, "
            + "escalate_follow_ups, resolves_at)",
        row: "(?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?)", width: 11)
    private static let deliveryRows = RowBatch.Shape(
        "INSERT INTO deliveries (id, alert_id, presenter, kind, state, attempts, next_attempt_at, created_at, updated_at, follow_up_of, "
            + "takes_follow_up)",
        row: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", width: 11)
    private static let eventRows = RowBatch.Shape("INSERT INTO events (type, alert_id, at, data)", row: "(?, ?, ?, ?)", width: 4)

    private struct Held {
        var alerts = RowBatch(PendingRows.alertRows)
        var deliveries = RowBatch(PendingRows.deliveryRows)
        var events = RowBatch(PendingRows.eventRows)
        /// The dedup keys of the alerts held, which the table cannot yet
        /// answer for. Keyed by their bytes, as SQLite compares them: Swift's
        /// == takes the same text in two Unicode forms as one key.
        var dedupKeys: [[UInt8]: AlertID] = [:]

        var isEmpty: Bool { alerts.isEmpty && deliveries.isEmpty && events.isEmpty }
    }

    private let held = Mutex(Held())

    init() {}

    /// Holds an alert's row (``RowBatch/Shape`` of `alerts`).
    func addAlert(_ row: [SQLiteValue], id: AlertID, dedupKey: String?) {
        held.withLock { held in
            held.alerts.append(row)
            if let dedupKey { held.dedupKeys[Array(dedupKey.utf8)] = id }
        }
    }

    func addDelivery(_ row: [SQLiteValue]) {
        held.withLock { $0.deliveries.append(row) }
    }

    func addEvent(_ row: [SQLiteValue]) {
        held.withLock { $0.events.append(row) }
    }

    /// The held alert with `dedupKey`, if one is held.
    func alert(dedupKey: String) -> AlertID? {
        held.withLock { $0.dedupKeys[Array(dedupKey.utf8)] }
    }

    /// Writes every row held, in the order it came, and forgets them.
    func write(in conn: SQLiteConnection) throws(SQLiteError) {
        try held.withLock { (held: inout Held) throws(SQLiteError) in
            guard !held.isEmpty else { return }
            try held.alerts.write(in: conn)
            try held.deliveries.write(in: conn)
            try held.events.write(in: conn)
            held.dedupKeys.removeAll()
        }
    }
}

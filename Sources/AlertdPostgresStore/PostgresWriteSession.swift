import AlertdPostgres

/// One write transaction of the ``PostgresCommitter``, as its jobs see it:
/// the connection, and what the transaction has taken on so far.
final class PostgresWriteSession {
    let conn: PostgresConnection
    /// Whether this transaction holds ``PostgresSchema/eventLock``.
    private(set) var holdsEventLock = false
    /// Whether the commit should wake the other nodes.
    private(set) var notifies = false

    init(conn: PostgresConnection) { self.conn = conn }

    /// Takes the event-log lock for the rest of the transaction (once), and
    /// makes the commit notify: whoever logs an event has news for the others.
    func lockEvents() throws(PostgresError) {
        guard !holdsEventLock else { return }
        try conn.query("SELECT pg_advisory_xact_lock($1)", [.integer(PostgresSchema.eventLock)])
        holdsEventLock = true
        notifies = true
    }

    /// Makes the commit wake the other nodes' dispatchers and event streams.
    func notifyOthers() { notifies = true }

    /// Takes `key` for the rest of the transaction if no other node holds
    /// it; false when one does (it is doing the same work right now).
    func tryLock(_ key: Int64) throws(PostgresError) -> Bool {
        try conn.query("SELECT pg_try_advisory_xact_lock($1)", [.integer(key)]).rows.first?.bool(0) ?? false
    }
}

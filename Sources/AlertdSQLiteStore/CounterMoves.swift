import AlertdSQLite

/// The delivery moves the counter trigger leaves to the statements that
/// make them (schema migration 12): claimed, pending → in_flight, and
/// delivered, in_flight → delivered. Counted as the statements run and
/// written once, inside the same transaction, so a rollback takes them too.
struct CounterMoves {
    private var claims: Int64 = 0
    private var deliveries: Int64 = 0

    mutating func claimed(_ count: Int = 1) { claims += Int64(count) }
    mutating func delivered(_ count: Int = 1) { deliveries += Int64(count) }

    /// Writes the counts; call it once the batch's statements have run.
    func write(in conn: SQLiteConnection) throws(SQLiteError) {
        guard claims != 0 || deliveries != 0 else { return }
        let add = try conn.statement("UPDATE counters SET value = value + ?1 WHERE name = ?2")
        for (name, change) in [("deliveries.pending", -claims), ("deliveries.in_flight", claims - deliveries),
                               ("deliveries.delivered", deliveries)] where change != 0 {
            try add.run([.integer(change), .text(name)])
        }
    }
}

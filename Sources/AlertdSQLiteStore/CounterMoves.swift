import AlertModel
import AlertdSQLite

/// What a transaction changed of the live totals in `counters`: alerts
/// opened, deliveries added and moved between states. Since schema
/// migration 13 no trigger counts inserts or delivery moves; the statements
/// that make them count here as they run, and the sum is written once,
/// inside the same transaction, so a rollback takes it too: once per
/// group-commit batch on the writer (``CounterLedger``). A row trigger cost
/// SQLite a frame per row; this is two or three updates per batch.
///
/// Closing or deleting an alert, deleting a delivery and a silence's first
/// hold are rare and still counted by triggers.
struct CounterMoves {
    private var opened: Int64 = 0
    /// The net change per delivery state, a field each: a dictionary keyed
    /// by the state hashed its raw string at every move, several a write.
    private var netPending: Int64 = 0
    private var netInFlight: Int64 = 0
    private var netDelivered: Int64 = 0
    private var netDead: Int64 = 0
    private var netSilenced: Int64 = 0

    private subscript(state: DeliveryState) -> Int64 {
        get {
            switch state {
            case .pending: netPending
            case .inFlight: netInFlight
            case .delivered: netDelivered
            case .dead: netDead
            case .silenced: netSilenced
            }
        }
        set {
            switch state {
            case .pending: netPending = newValue
            case .inFlight: netInFlight = newValue
            case .delivered: netDelivered = newValue
            case .dead: netDead = newValue
            case .silenced: netSilenced = newValue
            }
        }
    }

    /// `count` alerts stored open.
    mutating func openedAlerts(_ count: Int = 1) { opened += Int64(count) }

    /// `count` deliveries stored in `state`.
    mutating func added(_ count: Int = 1, to state: DeliveryState) {
        self[state] += Int64(count)
    }

    /// `count` deliveries moved from `old` to `new`.
    mutating func moved(_ count: Int = 1, from old: DeliveryState, to new: DeliveryState) {
        guard old != new else { return }
        self[old] -= Int64(count)
        self[new] += Int64(count)
    }

    /// `count` deliveries claimed: pending → in flight.
    mutating func claimed(_ count: Int = 1) { moved(count, from: .pending, to: .inFlight) }

    /// One delivery delivered from in flight.
    mutating func delivered() { moved(from: .inFlight, to: .delivered) }

    /// Adds another transaction's changes (``CounterLedger``).
    mutating func add(_ other: CounterMoves) {
        opened += other.opened
        for state in DeliveryState.allCases { self[state] += other[state] }
    }

    /// Writes the sums and starts again from zero; call it once the
    /// transaction's statements have run.
    mutating func write(in conn: SQLiteConnection) throws(SQLiteError) {
        guard opened != 0 || DeliveryState.allCases.contains(where: { self[$0] != 0 }) else { return }
        let add = try conn.statement("UPDATE counters SET value = value + ?1 WHERE name = ?2")
        if opened != 0 { try add.run([.integer(opened), .text("alerts.open")]) }
        for state in DeliveryState.allCases where self[state] != 0 {
            try add.run([.integer(self[state]), .text("deliveries.\(state.rawValue)")])
        }
        self = CounterMoves()
    }
}

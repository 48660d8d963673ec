import AlertModel
import AlertdSQLite
import AlertdStore
import Synchronization

/// The open alerts that are a source of some inhibition rule, kept on the
/// writer between claims: a claim under inhibition rules reads what
/// changed since the last one, not every open alert. With one rule and
/// 200,000 open alerts, each claim read and decoded all of them (1–3 s a
/// claim, 760 MB), and intake waited behind it on the writer.
///
/// What changed since: alerts inserted (a `rowid` above the highest seen)
/// and alerts closed or deleted, which two `TEMP` triggers on the writer's
/// connection note in `temp.alert_closings` as it happens, inside the same
/// transaction. Everything is read again after a rollback on the connection
/// (what was noted may never have happened), when the rules change, and
/// when a row at or above the highest `rowid` seen is deleted (SQLite may
/// give that `rowid` again; an alert opened and closed since is just not
/// open, and costs nothing). A source's labels and creation never change;
/// its `resolves_at` does, so a hold reads the source's row again
/// (``StoreRules/screen(_:kind:heldBy:of:silences:inhibitions:now:in:)``).
final class InhibitionSources: Sendable {
    private struct Kept {
        var rules: [InhibitRule] = []
        /// The connection's ``SQLiteConnection/rollbacks`` when last read; nil before the first read.
        var rollbacks: Int?
        var highestRowid: Int64 = 0
        var sources: [AlertID: Alert] = [:]
        var inhibitions = Inhibitions.none
    }

    /// Used by the writer's thread alone; the lock is never contended.
    private let kept = Mutex(Kept())

    init() {}

    static let notingClosings = """
        CREATE TEMP TABLE IF NOT EXISTS alert_closings (row INTEGER NOT NULL, id TEXT NOT NULL, deleted INTEGER NOT NULL);
        CREATE TEMP TRIGGER IF NOT EXISTS alert_closed AFTER UPDATE OF state ON main.alerts
            WHEN old.state = 'open' AND new.state != 'open' BEGIN
            INSERT INTO alert_closings (row, id, deleted) VALUES (old.rowid, old.id, 0);
        END;
        CREATE TEMP TRIGGER IF NOT EXISTS alert_deleted AFTER DELETE ON main.alerts BEGIN
            INSERT INTO alert_closings (row, id, deleted) VALUES (old.rowid, old.id, 1);
        END;
        DELETE FROM alert_closings;
        """

    /// The inhibitions in force under `rules`, as of `tx`.
    func inhibitions(under rules: [InhibitRule], in tx: inout SQLiteStoreTransaction) throws(SQLiteError) -> Inhibitions {
        try tx.flush()
        let conn = tx.conn
        return try kept.withLock { kept throws(SQLiteError) -> Inhibitions in
            guard !rules.isEmpty else {
                // Nobody reads the closings without rules; they would pile up.
                if kept.rollbacks != nil { try conn.execute("DROP TRIGGER IF EXISTS temp.alert_closed; DROP TRIGGER IF EXISTS temp.alert_deleted; DROP TABLE IF EXISTS temp.alert_closings") }
                kept = Kept()
                return .none
            }
            if kept.rules == rules, kept.rollbacks == conn.rollbacks, try Self.catchUp(&kept, in: &tx) {
                return kept.inhibitions
            }
            try conn.execute(Self.notingClosings)
            kept = Kept(rules: rules, rollbacks: conn.rollbacks, highestRowid: try Self.highestRowid(conn))
            for alert in try tx.openAlerts(where: { Inhibitions.isSource($0, under: rules) }) {
                kept.sources[alert.id] = alert
            }
            kept.inhibitions = Self.index(kept)
            return kept.inhibitions
        }
    }

    /// Brings `kept` up to what `tx` sees; false when it must be read whole.
    private static func catchUp(_ kept: inout Kept, in tx: inout SQLiteStoreTransaction) throws(SQLiteError) -> Bool {
        let conn = tx.conn
        let closings = try conn.statement("SELECT row, id, deleted FROM temp.alert_closings").query([]) {
            (row: $0.int(0), id: $0.text(1), deleted: $0.int(2) != 0)
        }
        var changed = false
        if !closings.isEmpty {
            try conn.statement("DELETE FROM temp.alert_closings").run()
            // An alert opened and closed since is simply not open; only a
            // deleted row may see its rowid again.
            guard !closings.contains(where: { $0.deleted && $0.row >= kept.highestRowid }) else { return false }
            for closing in closings where kept.sources.removeValue(forKey: AlertID(trusted: closing.id)) != nil { changed = true }
        }
        let highest = try highestRowid(conn)
        if highest > kept.highestRowid {
            let opened = try conn.statement("SELECT \(StoreCoding.alertColumns) FROM alerts WHERE rowid > ? AND state = 'open'")
                .query([.integer(kept.highestRowid)]) { StoreCoding.AlertRow($0) }
            for row in opened {
                guard let alert = try? StoreCoding.openAlert(row), Inhibitions.isSource(alert, under: kept.rules) else { continue }
                kept.sources[alert.id] = alert
                changed = true
            }
            kept.highestRowid = highest
        }
        if changed { kept.inhibitions = index(kept) }
        return true
    }

    private static func highestRowid(_ conn: SQLiteConnection) throws(SQLiteError) -> Int64 {
        try conn.scalar("SELECT COALESCE(MAX(rowid), 0) FROM alerts") ?? 0
    }

    /// The sources in the order a full read gives them (by id, which is by
    /// creation), so ties between equally old sources break the same way.
    private static func index(_ kept: Kept) -> Inhibitions {
        Inhibitions(rules: kept.rules, openAlerts: kept.sources.values.sorted { $0.id < $1.id })
    }
}

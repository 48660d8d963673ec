import FoundationEssentials
import AlertModel
import AlertdSQLite
import AlertdStore
import Synchronization

/// The silences every claim and group flush screens against, filed once
/// and kept on the writer until one of them changes, ends or starts: each
/// claim read, decoded (compiling every regex) and filed them all again.
/// With a thousand regex silences in force that was most of a claim, and
/// posting 20,000 alerts took 2.5 s where Alertmanager took 1.6.
///
/// A change is seen by a `TEMP` trigger on the writer's connection that
/// counts every insert, update and delete of a silence in
/// `temp.silence_changes`, inside the transaction that makes it, so a
/// screening later in the same transaction sees it too. After a rollback on
/// the connection the silences are read again: the count rolled back with
/// it, and a later change could bring it back to what was kept.
final class SilenceScreeningCache: Sendable {
    private struct Kept {
        /// The connection's ``SQLiteConnection/rollbacks``, and the count of
        /// changes, when `index` was read.
        var rollbacks: Int
        var changes: Int64
        var index: SilenceIndex
    }

    static let countingChanges = """
        CREATE TEMP TABLE IF NOT EXISTS silence_changes (n INTEGER NOT NULL);
        INSERT INTO silence_changes (n) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM silence_changes);
        CREATE TEMP TRIGGER IF NOT EXISTS silence_inserted AFTER INSERT ON main.silences BEGIN
            UPDATE silence_changes SET n = n + 1;
        END;
        CREATE TEMP TRIGGER IF NOT EXISTS silence_updated AFTER UPDATE ON main.silences BEGIN
            UPDATE silence_changes SET n = n + 1;
        END;
        CREATE TEMP TRIGGER IF NOT EXISTS silence_deleted AFTER DELETE ON main.silences BEGIN
            UPDATE silence_changes SET n = n + 1;
        END;
        """

    /// The budget of the silences not yet expired (``SilenceBudget``), with
    /// the rollbacks and the count of changes it is as of. Unlike the
    /// filing, each save keeps it (``saving(_:in:_:)``): a save's change is
    /// known to it, and worked out again from every silence, the budget was
    /// most of a save.
    private struct KeptBudget {
        var rollbacks: Int
        var changes: Int64
        var budget: SilenceBudget
    }

    /// Used by the writer's thread alone; the locks are never contended.
    private let kept = Mutex<Kept?>(nil)
    private let keptBudget = Mutex<KeptBudget?>(nil)

    init() {}

    /// The silences not yet expired at `now`, filed, as `tx` sees them.
    func silences(at now: Date, in tx: inout SQLiteStoreTransaction) throws(SQLiteError) -> SilenceIndex {
        let conn = tx.conn
        return try kept.withLock { kept throws(SQLiteError) -> SilenceIndex in
            if let known = kept, known.rollbacks == conn.rollbacks,
               let changes = try Self.changes(conn), changes == known.changes,
               let index = known.index.moved(to: now) {
                // Kept as moved: moved again from the first filing after a
                // silence started, each claim's active silences differed
                // from that one's, and its costly screenings were dropped.
                kept?.index = index
                return index
            }
            try conn.execute(Self.countingChanges)
            let index = SilenceIndex(try tx.unexpiredSilences(at: now), at: now)
            kept = Kept(rollbacks: conn.rollbacks, changes: try Self.changes(conn) ?? 0, index: index)
            return index
        }
    }

    /// What the silences not expired at `now` could cost one alert once
    /// `new` (if any) is saved over `replaced`, as `tx` sees them.
    func stepsInForce(saving new: Silence?, replacing replaced: SilenceID?, at now: Date,
                      in tx: inout SQLiteStoreTransaction) throws(SQLiteError) -> Int {
        let conn = tx.conn
        return try keptBudget.withLock { kept throws(SQLiteError) -> Int in
            // Asked about a time before it was read, or let go of expired
            // silences (the clock set back), it would miss those that ended between.
            if try !Self.isCurrent(kept, conn) || now < kept!.budget.droppedThrough {
                try conn.execute(Self.countingChanges)
                let budget = SilenceBudget(try tx.unexpiredSilences(at: now), unexpiredAt: now)
                kept = KeptBudget(rollbacks: conn.rollbacks, changes: try Self.changes(conn) ?? 0, budget: budget)
            }
            return kept!.budget.stepsInForce(at: now, saving: new, replacing: replaced)
        }
    }

    /// Runs `write`, which stores `silence` on `conn`, and takes the
    /// silence into the kept budget when nothing else changed since it was
    /// made; else the budget is made again at the next save.
    func saving(_ silence: Silence, in conn: SQLiteConnection, _ write: () throws(SQLiteError) -> Void) throws(SQLiteError) {
        try keptBudget.withLock { kept throws(SQLiteError) in
            let current = try Self.isCurrent(kept, conn)
            try write()
            guard current, let changes = try Self.changes(conn) else { return kept = nil }
            kept!.budget.save(silence)
            kept!.changes = changes
        }
    }

    private static func isCurrent(_ kept: KeptBudget?, _ conn: SQLiteConnection) throws(SQLiteError) -> Bool {
        guard let kept, kept.rollbacks == conn.rollbacks else { return false }
        return try changes(conn) == kept.changes
    }

    /// The count of changes, nil before the trigger is made.
    private static func changes(_ conn: SQLiteConnection) throws(SQLiteError) -> Int64? {
        try conn.statement("SELECT n FROM temp.silence_changes").query([]) { $0.int(0) }.first
    }
}

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

    /// Used by the writer's thread alone; the lock is never contended.
    private let kept = Mutex<Kept?>(nil)

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

    /// The count of changes, nil before the trigger is made.
    private static func changes(_ conn: SQLiteConnection) throws(SQLiteError) -> Int64? {
        try conn.statement("SELECT n FROM temp.silence_changes").query([]) { $0.int(0) }.first
    }
}

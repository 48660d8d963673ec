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
        /// changes, when `silences` were read.
        var rollbacks: Int
        var changes: Int64
        /// The silences not expired when read, with those saved since
        /// (``saving(_:in:_:)``), decoded and their regexes compiled: read
        /// again at each change, a thousand silences cost every claim after
        /// a silence's save more than the save did.
        var silences: [SilenceID: Silence]
        /// Those that expired by then were let go of: asked about an
        /// earlier time (the clock set back), they are read again.
        var droppedThrough: Date
        /// Their filing; nil until the next claim once one is saved.
        var index: SilenceIndex?
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
            if let known = kept, known.rollbacks == conn.rollbacks, now >= known.droppedThrough,
               let changes = try Self.changes(conn), changes == known.changes {
                if let index = known.index?.moved(to: now) {
                    // Kept as moved: moved again from the first filing after a
                    // silence started, each claim's active silences differed
                    // from that one's, and its costly screenings were dropped.
                    kept?.index = index
                    return index
                }
                // Filed again from the silences kept, those expired let go of.
                let unexpired = known.silences.filter { $0.value.endsAt > now }
                let index = try filed(Array(unexpired.values), at: now, conn)
                kept?.silences = unexpired
                kept?.droppedThrough = now
                kept?.index = index
                return index
            }
            try conn.execute(Self.countingChanges)
            let unexpired = try tx.unexpiredSilences(at: now)
            let index = SilenceIndex(unexpired, at: now)
            kept = Kept(rollbacks: conn.rollbacks, changes: try Self.changes(conn) ?? 0,
                        silences: Dictionary(unexpired.map { ($0.id, $0) }) { _, later in later }, droppedThrough: now, index: index)
            return index
        }
    }

    /// `silences` filed as the kept budget files them, when it is as of
    /// the same changes; else filed anew.
    private func filed(_ silences: [Silence], at now: Date, _ conn: SQLiteConnection) throws(SQLiteError) -> SilenceIndex {
        try keptBudget.withLock { kept throws(SQLiteError) -> SilenceIndex in
            if try Self.isCurrent(kept, conn), let index = SilenceIndex(silences, filedAs: &kept!.budget, at: now) { return index }
            return SilenceIndex(silences, at: now)
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
    /// silence into the kept budget and silences when nothing else changed
    /// since they were read; else they are read again when next asked for.
    func saving(_ silence: Silence, in conn: SQLiteConnection, _ write: () throws(SQLiteError) -> Void) throws(SQLiteError) {
        try kept.withLock { kept throws(SQLiteError) in
            try keptBudget.withLock { keptBudget throws(SQLiteError) in
                // The count exists once either was read.
                let before = kept == nil && keptBudget == nil ? nil : try Self.changes(conn)
                let silencesCurrent = kept.map { $0.rollbacks == conn.rollbacks && $0.changes == before } ?? false
                let budgetCurrent = keptBudget.map { $0.rollbacks == conn.rollbacks && $0.changes == before } ?? false
                try write()
                let after = silencesCurrent || budgetCurrent ? try Self.changes(conn) : nil
                if silencesCurrent, let after {
                    kept!.silences[silence.id] = silence
                    kept!.index = nil
                    kept!.changes = after
                } else {
                    kept = nil
                }
                if budgetCurrent, let after {
                    keptBudget!.budget.save(silence)
                    keptBudget!.changes = after
                } else {
                    keptBudget = nil
                }
            }
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

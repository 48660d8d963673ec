import Dispatch
import FoundationEssentials
import Synchronization
import AlertModel
import AlertdSQLite
import AlertdStore

/// The durable store: one SQLite file in WAL mode with `synchronous=FULL`,
/// written through a `GroupCommitter` and read through a second connection,
/// so reads never wait for an fsync.
public final class SQLiteAlertStore: AlertStore {
    public let path: String
    let writer: GroupCommitter
    private let writeConnection: SQLiteConnection
    private let reader: SQLiteConnection
    /// The inhibition sources claims and group flushes screen against, kept between them.
    private let inhibitionSources = InhibitionSources()
    private let groupSnapshots = GroupSnapshotCache()
    let silenceIndex = SilenceScreeningCache()
    private let checkpointer: WALCheckpointer
    /// Why the file cannot give back the space of pruned alerts, or nil
    /// when it can (see `SQLiteAlertStore+FreePages.swift`).
    public let cannotShrink: String?
    /// What this open did to the schema; nil when it was this alertd's already.
    public let schemaUpgrade: SchemaUpgrade?
    /// ``silenceEpoch``: moved by each silence saved, in the writer, so a
    /// submission's write reads it in order with the saves around it.
    let silenceSaves = Atomic<UInt64>(0)

    public var silenceEpoch: UInt64 { silenceSaves.load(ordering: .acquiring) }

    /// Opens the store at `path`, creating it and running migrations as
    /// needed; a file that is another program's SQLite database is refused
    /// (`store_incompatible`) before anything is written to it. Every open
    /// writes to the file, so a store that cannot be written fails here
    /// rather than at the first alert. `onCommit` sees the size of every
    /// committed batch (for metrics); `onWriteFailureChange` hears when
    /// writes start failing for want of disk, permission or I/O (with why)
    /// and when they work again (nil). A thread of the store's own copies
    /// the WAL into the file whenever it holds `checkpointFrames` pages
    /// (16 MB by default). Measured with wrk, one alert per request and 128
    /// in flight: p99 9.0–10.3 ms, against 9.7–10.9 ms with SQLite's own
    /// checkpoint at the same size, run inside a commit on the writer's
    /// thread, and 18–19.5 ms with that at 64 MB (bench/analysis.md).
    public init(
        path: String, onCommit: @escaping @Sendable (Int) -> Void = { _ in },
        onWriteFailureChange: @escaping @Sendable (StoreError?) -> Void = { _ in },
        checkpointFrames: Int = 4_000
    ) throws(StoreError) {
        self.path = path
        try Self.refuseOrphanedJournal(path)
        do throws(SQLiteError) {
            writeConnection = try SQLiteConnection(path: path)
        } catch {
            throw StoreError.opening(error, doing: "Opening the store at \(path)")
        }
        try Self.refuseIncompatible(writeConnection)
        do throws(SQLiteError) {
            try writeConnection.withLock { conn throws(SQLiteError) in
                // Before WAL mode, whose switch writes the first page: a new
                // file takes the mode only while it has none. Pages freed by
                // pruning can then go back to the file system
                // (`giveBackFreePages`); without it the file kept its largest
                // size for good. An older store is converted in `migrate`.
                try conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
                try conn.execute("PRAGMA journal_mode=WAL")
                try conn.execute("PRAGMA synchronous=FULL")
                try conn.execute("PRAGMA foreign_keys=ON")
                // The writer's TEMP table of closings (``InhibitionSources``)
                // lives in memory: no temporary file for a claim to need.
                try conn.execute("PRAGMA temp_store=MEMORY")
                // Checkpoints are the checkpointer's (below). Should one let
                // the WAL grow past 64 MB (a long read), the file is cut back
                // when the WAL starts over.
                try conn.execute("PRAGMA journal_size_limit=67108864")
            }
        } catch {
            throw StoreError.opening(error, doing: "Opening the store at \(path)")
        }
        schemaUpgrade = try Self.migrate(writeConnection)
        cannotShrink = Self.convertToIncrementalVacuum(writeConnection)
        do throws(SQLiteError) {
            reader = try SQLiteConnection(path: path, readOnly: true)
        } catch {
            throw StoreError.opening(error, doing: "Opening the store at \(path) for reading")
        }
        // Last of what can fail: its thread would outlive a failed init.
        do throws(SQLiteError) {
            checkpointer = try WALCheckpointer(path: path, wakeAt: checkpointFrames)
        } catch {
            throw StoreError.opening(error, doing: "Opening the store at \(path) for checkpoints")
        }
        let pageSize = (try? writeConnection.withLock { conn throws(SQLiteError) in try conn.scalar("PRAGMA page_size") }).flatMap { $0 }
        let files = StoreFileWatch(path: path, pageSize: pageSize ?? 4096)
        writeConnection.onCommit(checkpointingAt: max(WALCheckpointer.writerCheckpointsAt, 4 * checkpointFrames)) { [checkpointer] frames in
            files.walHolds(frames)
            return checkpointer.walHolds(frames)
        }
        writer = GroupCommitter(
            connection: writeConnection, probe: { conn throws(SQLiteError) in try conn.execute(StoreSchema.stamp) },
            files: files, onCommit: onCommit, onWriteFailureChange: onWriteFailureChange)
    }

    /// Why the last write failed for want of disk, permission or I/O, until
    /// a later one works; nil while the store takes writes.
    public var lastWriteFailure: StoreError? { writer.lastWriteFailure }

    /// Finishes queued writes, stops the writer, and moves what the WAL
    /// holds into the database file. Further writes fail.
    ///
    /// After a clean stop `alertd.db` is then whole by itself: until now a
    /// stopped store kept its recent alerts in `alertd.db-wal`, and a copy
    /// of the database file alone (the backup an operator makes after
    /// `systemctl stop`) missed them.
    public func close() {
        // What is queued behind another program's lock fails now rather
        // than wait its turn: the stop's grace is over by the time this runs.
        writeConnection.limitLockWaits(to: 0)
        writer.close()
        // The checkpoint below waits for readers, a backup perhaps, but briefly.
        writeConnection.limitLockWaits(to: 1_000)
        checkpointer.stop()
        writeConnection.withLock { conn in
            // Fails only while a read is under way (none is, once the daemon's
            // services have stopped); the WAL then stays, as after a crash,
            // and the next open still reads it.
            try? conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    deinit {
        writer.close()
        checkpointer.stop()
    }

    /// What opening `path` would refuse, found without writing to it:
    /// another program's database, or one from a newer alertd. For
    /// `--check-config`; nothing when the file does not exist.
    /// Refuses a journal (`-wal`) that holds frames beside a database file
    /// that is missing or empty: deleted or cut outside alertd. SQLite
    /// would start an empty store over it and discard the journal, and
    /// with it every alert it held, without a word.
    package static func refuseOrphanedJournal(_ path: String) throws(StoreError) {
        func size(_ file: String) -> Int? {
            guard let value = (try? FileManager.default.attributesOfItem(atPath: file))?[.size] else { return nil }
            // FoundationEssentials gives UInt; others have given Int or UInt64.
            if let size = value as? UInt { return Int(clamping: size) }
            if let size = value as? UInt64 { return Int(clamping: size) }
            return value as? Int
        }
        guard let journal = size(path + "-wal"), journal > 0, (size(path) ?? 0) == 0 else { return }
        throw StoreError(code: .corrupt, message: "The store \(path) is missing or empty, but its journal \(path)-wal holds \(journal) bytes: "
            + "the database was deleted or cut short outside alertd, and opening it would throw the journal away with the alerts in it. "
            + "Restore the database from a backup, or move both files aside to start with an empty store.")
    }

    public static func checkCompatible(path: String) throws(StoreError) {
        let connection: SQLiteConnection
        do throws(SQLiteError) {
            connection = try SQLiteConnection(path: path, readOnly: true)
        } catch {
            throw StoreError.from(error, doing: "Reading the store at \(path)")
        }
        try refuseIncompatible(connection)
    }

    /// Refuses another program's database, or a newer alertd's, before
    /// journal mode or a migration could change it. Reads only.
    private static func refuseIncompatible(_ connection: SQLiteConnection) throws(StoreError) {
        let identity: StoreIdentity, version: Int
        do throws(SQLiteError) {
            (identity, version) = try connection.withLock { conn throws(SQLiteError) in
                (try StoreIdentity.read(conn), Int(try conn.scalar("PRAGMA user_version") ?? 0))
            }
        } catch {
            throw StoreError.opening(error, doing: "Opening the store at \(connection.path)")
        }
        if case .foreign(let why) = identity {
            throw StoreError(code: .incompatible, message: "The file \(connection.path) is not an alertd store: \(why). alertd leaves it alone; point store.path (or --state-dir) at another file, or move this one away.")
        }
        let latest = StoreSchema.migrations.count
        if version > latest {
            throw StoreError(code: .incompatible, message: "The store at \(connection.path) was written by a newer alertd (schema \(version), this alertd knows \(latest)); it is left as it is. Run that alertd again, or to go back to this one, restore the backup taken before the upgrade (a store is never migrated back), or use another state directory.")
        }
    }

    /// Runs the migrations not yet run, in one transaction with the stamp.
    private static func migrate(_ connection: SQLiteConnection) throws(StoreError) -> SchemaUpgrade? {
        let latest = StoreSchema.migrations.count
        do throws(SQLiteError) {
            return try connection.withLock { conn throws(SQLiteError) -> SchemaUpgrade? in
                try conn.execute("BEGIN IMMEDIATE")
                do throws(SQLiteError) {
                    // Checked to be at most `latest` by `refuseIncompatible`, under the state directory's lock.
                    let version = min(Int(try conn.scalar("PRAGMA user_version") ?? 0), latest)
                    for v in version..<latest {
                        try conn.execute(StoreSchema.migrations[v])
                    }
                    if version < latest { try conn.execute("PRAGMA user_version = \(latest)") }
                    // Written on every open, changed or not: see `StoreSchema.stamp`.
                    try conn.execute(StoreSchema.stamp)
                    try conn.execute("COMMIT")
                    return version < latest ? SchemaUpgrade(from: version, to: latest) : nil
                } catch {
                    try? conn.execute("ROLLBACK")
                    throw error
                }
            }
        } catch {
            throw StoreError.opening(error, doing: "Opening the store at \(connection.path) for writing")
        }
    }

    // MARK: Writes

    public func submit(_ submissions: [AlertSubmission]) async throws(StoreError) -> [SubmissionResult] {
        // Intake goes through the transaction alone: its rows may wait for the batch's end.
        try await writer.write(sharingRows: true) { conn throws(SQLiteError) in
            try SQLiteStoreTransaction.run(in: conn) { tx throws(SQLiteError) in try StoreRules.submit(submissions, in: &tx) }
        }
    }

    public func submit(_ submissions: [AlertSubmission], claiming kinds: Set<DeliveryKind>) async throws(StoreError) -> SubmittedAlerts {
        try await writer.write(sharingRows: true) { conn throws(SQLiteError) in
            try SQLiteStoreTransaction.run(in: conn) { tx throws(SQLiteError) in
                try StoreRules.submit(submissions, claiming: kinds, epoch: self.silenceSaves.load(ordering: .acquiring), now: Date(), in: &tx)
            }
        }
    }

    public func openAlert(dedupKey: String) async throws(StoreError) -> AlertID? {
        try await read("Looking up a dedup key") { conn throws(SQLiteError) in
            try SQLiteStoreTransaction.run(in: conn) { tx throws(SQLiteError) in try tx.openAlert(dedupKey: dedupKey) }
        }
    }

    public func decide(_ id: AlertID, _ decision: AlertDecision) async throws(StoreError) -> DecisionOutcome {
        try await writer.write { conn throws(SQLiteError) in
            try SQLiteStoreTransaction.run(in: conn) { tx throws(SQLiteError) in try StoreRules.decide(id, decision, in: &tx) }
        }
    }

    public func decideOpen(dedupKeys: [String], _ decision: AlertDecision) async throws(StoreError) -> [DecisionOutcome?] {
        try await writer.write { conn throws(SQLiteError) in
            try SQLiteStoreTransaction.run(in: conn) { tx throws(SQLiteError) in try StoreRules.decideOpen(dedupKeys: dedupKeys, decision, in: &tx) }
        }
    }

    public func followEscalations(_ plan: @escaping @Sendable (Alert) -> Escalation?) async throws(StoreError) -> Int {
        try await StoreRules.followInPages { after throws(StoreError) in
            try await writer.write { conn throws(SQLiteError) in
                let scheduled = try conn.statement("""
                    SELECT id, escalate_at, escalate_to, escalate_follow_ups FROM alerts INDEXED BY alerts_escalation
                    WHERE state = 'open' AND escalate_at IS NOT NULL AND escalated_at IS NULL AND (escalate_at, id) > (?, ?)
                    ORDER BY escalate_at, id LIMIT ?
                    """).query([.integer(after.at), .text(after.id), .integer(Int64(StoreRules.escalationPage))]) {
                    StoreCoding.scheduledEscalation(id: $0.text(0), at: $0.int(1), presenters: $0.text(2), followUps: $0.optionalText(3))
                }
                let changed = try SQLiteStoreTransaction.run(in: conn) { tx throws(SQLiteError) in
                    try StoreRules.follow(scheduled, plan: plan, in: &tx)
                }
                return (changed, scheduled)
            }
        }
    }

    public func runMaintenance(now: Date, resendGraceFrom start: Date) async throws(StoreError) -> MaintenanceReport {
        let nowMs = StoreCoding.millis(now), startMs = StoreCoding.millis(start)
        // Expiry and escalation are recomputed from the alerts after a power cut.
        return try await writer.write(durable: false) { conn throws(SQLiteError) in
            try SQLiteStoreTransaction.run(in: conn) { tx throws(SQLiteError) in
                var report = MaintenanceReport()
                // Escalations first, as the clock had them: one due before the
                // alert's expiry or resolve (both overdue after a restart) fires.
                let escalating = try conn.statement("""
                    SELECT id, escalate_to, escalate_follow_ups FROM alerts INDEXED BY alerts_escalation
                    WHERE state = 'open' AND escalate_at IS NOT NULL AND escalated_at IS NULL AND escalate_at <= ?
                    AND (expires_at IS NULL OR escalate_at < expires_at) AND (resolves_at IS NULL OR escalate_at < resolves_at)
                    ORDER BY escalate_at LIMIT 500
                    """).query([.integer(nowMs)]) { (id: $0.text(0), presenters: $0.text(1), followUps: $0.optionalText(2)) }
                report.escalated = try StoreRules.escalateDue(escalating, at: now, in: &tx)
                try tx.flush()
                let expiring = try conn.statement("""
                    SELECT id FROM alerts INDEXED BY alerts_expiry
                    WHERE state = 'open' AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT 500
                    """).query([.integer(nowMs)]) { AlertID(trusted: $0.text(0)) }
                for id in expiring where try StoreRules.expire(id, at: now, in: &tx) { report.expired.append(id) }
                try tx.flush()
                // The grace after a start (StoreRules.lapse) held in the query, so a
                // page of lapses held back does not hide the due ones behind it.
                let lapsed = try conn.statement("""
                    SELECT id FROM alerts INDEXED BY alerts_lapse
                    WHERE state = 'open' AND resolves_at IS NOT NULL AND resolves_at <= ?1
                    AND (COALESCE(last_seen_at, created_at) >= ?2
                         OR ?2 + min(resolves_at - COALESCE(last_seen_at, created_at), ?3) <= ?1) ORDER BY resolves_at LIMIT 500
                    """).query([.integer(nowMs), .integer(startMs), .integer(Int64(StoreRules.maxResendGrace.milliseconds))]) { AlertID(trusted: $0.text(0)) }
                for id in lapsed where try StoreRules.resolveLapsed(id, at: now, resendGraceFrom: start, in: &tx) { report.resolved.append(id) }
                try tx.flush()
                return report
            }
        }
    }

    public func prune(closedBefore cutoff: Date, limit: Int) async throws(StoreError) -> Int {
        let cutoffMs = StoreCoding.millis(cutoff)
        // Losing a prune to a power cut only means doing it again.
        return try await writer.write(durable: false) { conn throws(SQLiteError) in
            let ids = try conn.statement("""
                SELECT id FROM alerts INDEXED BY alerts_closed WHERE state != 'open' AND updated_at < ?
                AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.alert_id = alerts.id AND d.state IN ('pending', 'in_flight'))
                AND NOT EXISTS (SELECT 1 FROM group_members m WHERE m.alert_id = alerts.id)
                LIMIT ?
                """).query([.integer(cutoffMs), .integer(Int64(limit))]) { $0.text(0) }
            let deleteSnapshots = try conn.statement("DELETE FROM group_snapshots WHERE delivery_id IN (SELECT id FROM deliveries WHERE alert_id = ?)")
            let deleteDeliveries = try conn.statement("DELETE FROM deliveries WHERE alert_id = ?")
            let deleteAlert = try conn.statement("DELETE FROM alerts WHERE id = ?")
            for id in ids {
                try deleteSnapshots.run([.text(id)])
                try deleteDeliveries.run([.text(id)])
                try deleteAlert.run([.text(id)])
            }
            try conn.statement(Self.pruneEvents).run([.integer(cutoffMs), .integer(Int64(limit * 8))])
            try conn.statement("DELETE FROM silences WHERE ends_at < ?").run([.integer(cutoffMs)])
            return ids.count
        }
    }

    /// Of the `limit` oldest events by `seq`, those before a cutoff. `seq`
    /// follows time, so these are the oldest by `at` but for a clock set
    /// back, whose events wait for a later batch. The read is a batch,
    /// whatever the log's size: with the cutoff inside the walk, it read
    /// every event when none was old enough (350 ms at 1,000,000 events,
    /// every minute, holding the write lock that intake waits for), and the
    /// index on `at` that avoided it cost every event a second b-tree write.
    /// The newest event is kept whatever its age, so `since=now` and
    /// resuming clients still find where the log stands.
    static let pruneEvents = """
        DELETE FROM events WHERE at < ?1 AND seq IN (
            SELECT seq FROM events WHERE seq < (SELECT MAX(seq) FROM events) ORDER BY seq LIMIT ?2)
        """

    public func claimDueDeliveries(now: Date, capacity: [DeliveryKind: Int], orphanLimit: Int,
                                   inhibitRules: [InhibitRule]) async throws(StoreError) -> [ClaimedDelivery] {
        let nowMs = StoreCoding.millis(now)
        let sources = inhibitionSources, snapshots = groupSnapshots, silences = silenceIndex
        let rows: [(DeliveryRecord, StoreCoding.AlertRow, StoredSnapshot?, DeliveryID?)] = try await writer.write(durable: false) { conn throws(SQLiteError) in
            // A delivery a silence or an inhibition holds leaves the due set,
            // but it took a row of the page read for a free slot: the page is
            // read again for the room it left, a bounded number of times, so
            // that a poll with room left has taken everything due (which the
            // dispatcher counts on). Else a thousand silenced deliveries due
            // first held the rest back a page a second.
            var out: [(DeliveryRecord, StoreCoding.AlertRow, StoredSnapshot?, DeliveryID?)] = []
            var room = capacity
            var orphanRoom = orphanLimit
            // Read at the first page and kept for the others: this claim is
            // the writer's only work meanwhile, and held deliveries change no alert.
            var screening: Screening?
            for _ in 0..<StoreRules.claimPages {
                let ids = try Self.due(room: room, orphanRoom: orphanRoom, nowMs: nowMs, in: conn)
                if ids.isEmpty { break }
                let (claimed, held) = try Self.claimPage(ids, now: now, inhibitRules: inhibitRules, screening: &screening, sources: sources, silences: silences,
                                                         snapshots: snapshots, in: conn)
                out += claimed
                for (delivery, _, _, _) in claimed {
                    if let left = room[delivery.kind] { room[delivery.kind] = left - 1 } else { orphanRoom -= 1 }
                }
                if held == 0 { break }
            }
            return out
        }
        var claimed: [ClaimedDelivery] = []
        for ((delivery, row, _, later), snapshot) in zip(rows, StoredSnapshot.values(rows.map(\.2))) {
            claimed.append(ClaimedDelivery(delivery: delivery, alert: try StoreCoding.alert(row), group: snapshot, supersededBy: later))
        }
        return claimed
    }

    /// The due deliveries a page holds: per presenter as many as it has
    /// room for, oldest due first, and orphans (a presenter no longer
    /// configured) up to `orphanRoom`, due or not.
    private static func due(room: [DeliveryKind: Int], orphanRoom: Int, nowMs: Int64,
                            in conn: SQLiteConnection) throws(SQLiteError) -> [(id: String, heldBy: String?, orphan: Bool)] {
        var ids: [(id: String, heldBy: String?, orphan: Bool)] = []
        let due = try conn.statement("""
            SELECT id, silenced_by FROM deliveries WHERE state = 'pending' AND presenter = ? AND next_attempt_at <= ?
            ORDER BY next_attempt_at LIMIT ?
            """)
        for (kind, slots) in room.sorted(by: { $0.key < $1.key }) where slots > 0 {
            ids += try due.query([.text(kind.name), .integer(nowMs), .integer(Int64(slots))]) { ($0.text(0), $0.optionalText(1), false) }
        }
        if orphanRoom > 0 {
            let known = room.keys.map(\.name).sorted()
            let placeholders = known.isEmpty ? "''" : known.map { _ in "?" }.joined(separator: ",")
            let orphans = try conn.statement("""
                \(Self.pendingPresenters)
                SELECT d.id, d.silenced_by FROM pending_presenters p
                JOIN deliveries d ON d.state = 'pending' AND d.presenter = p.name
                WHERE p.name IS NOT NULL AND p.name NOT IN (\(placeholders)) LIMIT ?
                """)
            ids += try orphans.query(known.map(SQLiteValue.text) + [.integer(Int64(orphanRoom))]) {
                ($0.text(0), $0.optionalText(1), true)
            }
        }
        return ids
    }

    /// What a claim screens its deliveries against: the active silences and
    /// the inhibitions in force.
    private typealias Screening = (active: SilenceIndex, inhibitions: Inhibitions)

    /// Screens and claims one page of due deliveries; also says how many a
    /// silence or an inhibition held instead. `screening` is read by the
    /// first page and kept for the claim's others.
    private static func claimPage(_ ids: [(id: String, heldBy: String?, orphan: Bool)], now: Date, inhibitRules: [InhibitRule],
                              screening: inout Screening?, sources: InhibitionSources, silences: SilenceScreeningCache,
                              snapshots: GroupSnapshotCache,
                              in conn: SQLiteConnection) throws(SQLiteError)
        -> (claimed: [(DeliveryRecord, StoreCoding.AlertRow, StoredSnapshot?, DeliveryID?)], held: Int) {
        let known = screening
        let (out, held, used) = try SQLiteStoreTransaction.run(in: conn, sources: sources, snapshots: snapshots, silences: silences) { tx throws(SQLiteError) in
            // Reading the open alerts costs; only rules in force and something to screen need it.
            let active: SilenceIndex, inhibitions: Inhibitions
            if let known {
                (active, inhibitions) = known
            } else {
                active = try tx.screeningSilences(at: now)
                inhibitions = try tx.inhibitions(under: inhibitRules)
            }
            let screened = try conn.statement("SELECT alert_id, presenter, kind FROM deliveries WHERE id = ?")
            let alertRow = try conn.statement("SELECT \(StoreCoding.alertColumns) FROM alerts WHERE id = ?")
            var out: [(DeliveryRecord, StoreCoding.AlertRow, StoredSnapshot?, DeliveryID?)] = []
            var held = 0
            for (id, heldBy, orphan) in ids {
                // Decoding the alert costs; only a silence in play needs it.
                // An orphan is not: it cannot be sent (see DeliveryQueue's claim).
                if !orphan && (!active.isEmpty || heldBy != nil || !inhibitions.sources.isEmpty) {
                    let rows = try screened.query([.text(id)]) { row in
                        (AlertID(trusted: row.text(0)), StoreCoding.deliveryKind(category: row.text(2), name: row.text(1)))
                    }
                    if let (alertID, kind) = rows.first, let alert = try tx.alert(alertID),
                       try !StoreRules.screen(DeliveryID(rawValue: id), kind: kind, heldBy: heldBy.map(SilenceID.init), of: alert,
                                              silences: active,
                                              inhibitions: inhibitions, now: now, in: &tx) {
                        held += 1
                        continue
                    }
                }
                guard let delivery = try Self.claim(id, now: now, in: conn) else { continue }
                tx.moves.claimed()
                guard let a = try alertRow.query([.text(delivery.alertID.rawValue)], { StoreCoding.AlertRow($0) }).first else { continue }
                let nextQueued = try delivery.id.nextGroupNotification.map { next throws(SQLiteError) in try tx.delivery(next) != nil } ?? false
                let formedAt = nextQueued ? nil : try delivery.id.groupNotification.flatMap { n throws(SQLiteError) in try tx.group(n.group)?.generation }
                let later = delivery.id.superseding(nextQueued: nextQueued, groupFormedAt: formedAt)
                // One a later notification supersedes is never sent, and its snapshot was dropped.
                out.append((delivery, a, later == nil ? try tx.snapshot(delivery.id) : nil, later))
            }
            return (out, held, (active, inhibitions))
        }
        screening = used
        return (out, held)
    }

    public func claimAccepted(_ accepted: [AcceptedDelivery], now: Date) async throws(StoreError) -> [DeliveryRecord] {
        guard !accepted.isEmpty else { return [] }
        return try await writer.write(durable: false) { [silenceIndex] conn throws(SQLiteError) in
            try Self.claimAccepted(accepted, now: now, silences: silenceIndex, in: conn)
        }
    }

    public func settle(_ settlements: [DeliverySettlement], thenClaim accepted: [AcceptedDelivery],
                       now: Date) async throws(StoreError) -> (queued: Int, claimed: [DeliveryRecord]) {
        guard !accepted.isEmpty else { return (try await settle(settlements), []) }
        return try await writer.write(durable: false, sharingRows: true) { [silenceIndex] conn throws(SQLiteError) in
            (try Self.settle(settlements, in: conn), try Self.claimAccepted(accepted, now: now, silences: silenceIndex, in: conn))
        }
    }

    /// Claims only rows still as storing the alert wrote them (no attempt,
    /// no error, no silence, the same alert, presenter and follow-up flag):
    /// then the claimed delivery is known without reading it back. A
    /// `RETURNING` clause cost SQLite a third of the claim. Any other is
    /// left to the poll's claim.
    private static func claimAccepted(_ accepted: [AcceptedDelivery], now: Date, silences: SilenceScreeningCache,
                                      in conn: SQLiteConnection) throws(SQLiteError) -> [DeliveryRecord] {
        try SQLiteStoreTransaction.run(in: conn, silences: silences) { tx throws(SQLiteError) in
            guard try tx.screeningSilences(at: now).isEmpty else { return [] }
            let claim = try conn.statement("""
                UPDATE deliveries SET state = 'in_flight', attempts = 1, updated_at = ?1
                WHERE id = ?2 AND state = 'pending' AND next_attempt_at <= ?1 AND attempts = 0 AND last_error IS NULL
                    AND silenced_by IS NULL AND alert_id = ?3 AND presenter = ?4 AND kind = ?5 AND takes_follow_up = ?6
                """)
            let nowMs = StoreCoding.millis(now)
            var out: [DeliveryRecord] = []
            out.reserveCapacity(accepted.count)
            for a in accepted {
                try claim.run([.integer(nowMs), .text(a.id.rawValue), .text(a.alert.id.rawValue), .text(a.kind.name), .text(a.kind.category),
                               .integer(a.takesFollowUp ? 1 : 0)])
                if conn.changes == 1 { out.append(a.record.claimed(at: now)) }
            }
            tx.moves.claimed(out.count)
            return out
        }
    }

    /// Marks one pending delivery, found due by the poll, in flight and
    /// counts the attempt; nil when it was not pending. The caller counts
    /// the move (``CounterMoves``).
    private static func claim(_ id: String, now: Date, in conn: SQLiteConnection) throws(SQLiteError) -> DeliveryRecord? {
        let statement = try conn.statement("""
            UPDATE deliveries SET state = 'in_flight', attempts = attempts + 1, updated_at = ?1, silenced_by = NULL WHERE id = ?2 AND state = 'pending'
            RETURNING id, alert_id, presenter, kind, attempts, last_error, created_at, silenced_by, follow_up_of, takes_follow_up
            """)
        return try statement.query([.integer(StoreCoding.millis(now)), .text(id)]) { row in
            StoreCoding.claimedDelivery(id: row.text(0), alertID: row.text(1), presenter: row.text(2), category: row.text(3),
                                        attempts: row.int(4), lastError: row.optionalText(5), createdAt: row.int(6),
                                        silencedBy: row.optionalText(7), followUpOf: row.optionalText(8),
                                        takesFollowUp: row.int(9) != 0, at: now)
        }.first
    }

    @discardableResult
    public func settle(_ settlements: [DeliverySettlement]) async throws(StoreError) -> Int {
        guard !settlements.isEmpty else { return 0 }
        // A lost outcome means one more attempt with the same delivery id: harmless.
        // Outcomes and claims name deliveries an earlier write committed, so
        // rows other jobs of the batch still hold are none of theirs.
        return try await writer.write(durable: false, sharingRows: true) { conn throws(SQLiteError) -> Int in try Self.settle(settlements, in: conn) }
    }

    private static func settle(_ settlements: [DeliverySettlement], in conn: SQLiteConnection) throws(SQLiteError) -> Int {
        try SQLiteStoreTransaction.run(in: conn) { tx throws(SQLiteError) in
            var queued = 0
            // Delivered from in flight, as nearly always, is known to move from
            // in flight; any other outcome reads where its delivery stands
            // first, to count the move (``CounterMoves``). With the delivery
            // known and no follow-up due (its presenter takes none, or the
            // alert is still open), nothing need be read back: a `RETURNING`
            // clause cost SQLite a third of the settle. Whether the alert is
            // open is read from the `(state, id)` index alone: through the
            // primary key it was a second look-up, in the alert's row (settle
            // 25.1 k → 23.4 k instructions an outcome, bench/instructions.sh).
            let deliveredKnown = try conn.statement("""
                UPDATE deliveries SET state = 'delivered', next_attempt_at = NULL, last_error = NULL, updated_at = ?1, delivered_at = ?1
                WHERE id = ?2 AND state = 'in_flight' AND alert_id = ?3 AND presenter = ?4 AND kind = ?5 AND takes_follow_up = ?6
                    AND (takes_follow_up = 0
                         OR EXISTS (SELECT 1 FROM alerts INDEXED BY alerts_state WHERE alerts.state = 'open' AND alerts.id = ?3))
                """)
            let deliveredInFlight = try conn.statement("""
                UPDATE deliveries SET state = 'delivered', next_attempt_at = NULL, last_error = NULL,
                updated_at = ?1, delivered_at = ?1 WHERE id = ?2 AND state = 'in_flight' RETURNING alert_id, presenter, kind, takes_follow_up,
                (SELECT state FROM alerts WHERE alerts.id = deliveries.alert_id)
                """)
            let delivered = try conn.statement("""
                UPDATE deliveries SET state = 'delivered', next_attempt_at = NULL, last_error = NULL,
                updated_at = ?1, delivered_at = ?1 WHERE id = ?2 RETURNING alert_id, presenter, kind, takes_follow_up,
                (SELECT state FROM alerts WHERE alerts.id = deliveries.alert_id)
                """)
            let retry = try conn.statement("""
                UPDATE deliveries SET state = 'pending', next_attempt_at = ?1, last_error = ?2, updated_at = ?3, attempts = MAX(attempts - ?5, 0)
                WHERE id = ?4 RETURNING alert_id, presenter, kind, takes_follow_up,
                (SELECT state FROM alerts WHERE alerts.id = deliveries.alert_id)
                """)
            let dead = try conn.statement("""
                UPDATE deliveries SET state = 'dead', next_attempt_at = NULL, last_error = ?1, updated_at = ?2, attempts = MAX(attempts - ?4, 0)
                WHERE id = ?3 RETURNING alert_id, presenter, kind, takes_follow_up,
                (SELECT state FROM alerts WHERE alerts.id = deliveries.alert_id)
                """)
            let stateOf = try conn.statement("SELECT state FROM deliveries WHERE id = ?")
            for s in settlements {
                let at = StoreCoding.millis(s.at)
                let id = SQLiteValue.text(s.deliveryID.rawValue)
                // The alert's state comes with the row: while it is open, as it
                // mostly is, no follow-up can be due and nothing more is read.
                let read = { (row: SQLiteRow) in
                    (AlertID(trusted: row.text(0)), StoreCoding.deliveryKind(category: row.text(2), name: row.text(1)), row.int(3) != 0,
                     row.optionalText(4).flatMap(AlertState.init(rawValue:))?.isFinal ?? true)
                }
                var rows: [(AlertID, DeliveryKind, Bool, Bool)] = []
                if s.result == .delivered {
                    if let d = s.delivery {
                        try deliveredKnown.run([.integer(at), id, .text(d.alertID.rawValue), .text(d.kind.name), .text(d.kind.category),
                                                .integer(d.takesFollowUp ? 1 : 0)])
                        if conn.changes == 1 { rows = [(d.alertID, d.kind, d.takesFollowUp, false)] }
                    }
                    if rows.isEmpty { rows = try deliveredInFlight.query([.integer(at), id], read) }
                    if !rows.isEmpty { tx.moves.delivered() }
                }
                if rows.isEmpty {
                    let old = try stateOf.query([id]) { DeliveryState(rawValue: $0.text(0)) }.first ?? nil
                    switch s.result {
                    case .delivered: rows = try delivered.query([.integer(at), id], read)
                    case .retry(let next, let e):
                        rows = try retry.query([.integer(StoreCoding.millis(next)), .text(e), .integer(at), id, .integer(s.sent ? 0 : 1)], read)
                    case .dead(let e): rows = try dead.query([.text(e), .integer(at), id, .integer(s.sent ? 0 : 1)], read)
                    }
                    if !rows.isEmpty, let old { tx.moves.moved(from: old, to: s.result.state) }
                }
                if let (alertID, kind, takesFollowUp, alertClosed) = rows.first {
                    try tx.append(s.result.eventKind, alert: alertID, at: s.at, data: StoreRules.eventData(s, kind: kind))
                    if s.result == .delivered,
                       try StoreRules.delivered(s.deliveryID, at: s.at, thread: s.thread, listed: s.listed,
                                                takesFollowUp: takesFollowUp && alertClosed,
                                                in: &tx) { queued += 1 }
                }
            }
            return queued
        }
    }

    public func recoverInFlight(now: Date) async throws(StoreError) -> Int {
        try await writer.write(durable: false) { conn throws(SQLiteError) in
            try SQLiteStoreTransaction.run(in: conn) { tx throws(SQLiteError) in
                try conn.statement("UPDATE deliveries SET state = 'pending', next_attempt_at = ?1, updated_at = ?1 WHERE state = 'in_flight'")
                    .run([.integer(StoreCoding.millis(now))])
                tx.moves.moved(conn.changes, from: .inFlight, to: .pending)
                return conn.changes
            }
        }
    }

    /// One node's own store: `lease` is its own, as is every claim.
    public func releaseStaleClaims(claimedBefore: Date, keeping: Set<DeliveryID>, lease: Duration, now: Date) async throws(StoreError) -> Int {
        let (cutoff, nowMs) = (StoreCoding.millis(claimedBefore), StoreCoding.millis(now))
        // Losing a release to a power cut only means doing it again.
        return try await writer.write(durable: false) { conn throws(SQLiteError) in
            try SQLiteStoreTransaction.run(in: conn) { tx throws(SQLiteError) in
                // The IN term repeats the partial index's own condition, which is
                // how SQLite knows it may use it rather than scan every delivery.
                let stale = try conn.statement("""
                    SELECT id FROM deliveries WHERE state IN ('in_flight', 'dead') AND state = 'in_flight' AND updated_at < ?
                    """).query([.integer(cutoff)]) { DeliveryID(rawValue: $0.text(0)) }
                let release = try conn.statement("""
                    UPDATE deliveries SET state = 'pending', next_attempt_at = ?1, updated_at = ?1 WHERE id = ?2 AND state = 'in_flight'
                    """)
                var released = 0
                for id in stale where !keeping.contains(id) {
                    try release.run([.integer(nowMs), .text(id.rawValue)])
                    released += conn.changes
                }
                tx.moves.moved(released, from: .inFlight, to: .pending)
                return released
            }
        }
    }

    public func hastenRetries(of presenter: DeliveryKind, now: Date) async throws(StoreError) -> Int {
        try await writer.write(durable: false) { conn throws(SQLiteError) in
            try SQLiteStoreTransaction.run(in: conn) { _ throws(SQLiteError) in
                try conn.statement("""
                    UPDATE deliveries SET next_attempt_at = ?1, updated_at = ?1
                    WHERE presenter = ?2 AND kind = ?3 AND state = 'pending' AND attempts > 0 AND silenced_by IS NULL AND next_attempt_at > ?1
                    """).run([.integer(StoreCoding.millis(now)), .text(presenter.name), .text(presenter.category)])
                return conn.changes
            }
        }
    }

    public func releaseClaims(_ ids: [DeliveryID], now: Date) async throws(StoreError) -> Int {
        guard !ids.isEmpty else { return 0 }
        return try await writer.write(durable: false) { conn throws(SQLiteError) in
            try SQLiteStoreTransaction.run(in: conn) { tx throws(SQLiteError) in
                let release = try conn.statement("""
                    UPDATE deliveries SET state = 'pending', attempts = max(attempts - 1, 0), next_attempt_at = ?1, updated_at = ?1
                    WHERE id = ?2 AND state = 'in_flight'
                    """)
                var released = 0
                for id in ids {
                    try release.run([.integer(StoreCoding.millis(now)), .text(id.rawValue)])
                    released += conn.changes
                }
                tx.moves.moved(released, from: .inFlight, to: .pending)
                return released
            }
        }
    }

    public func replayDead(alert: AlertID?, now: Date) async throws(StoreError) -> Int {
        try await writer.write { conn throws(SQLiteError) in
            try SQLiteStoreTransaction.run(in: conn) { tx throws(SQLiteError) in
                let nowMs = StoreCoding.millis(now)
                if let alert {
                    try conn.statement("""
                        UPDATE deliveries SET state = 'pending', next_attempt_at = ?1, updated_at = ?1, attempts = 0
                        WHERE state = 'dead' AND alert_id = ?2
                        """).run([.integer(nowMs), .text(alert.rawValue)])
                } else {
                    try conn.statement("""
                        UPDATE deliveries SET state = 'pending', next_attempt_at = ?1, updated_at = ?1, attempts = 0
                        WHERE state = 'dead'
                        """).run([.integer(nowMs)])
                }
                tx.moves.moved(conn.changes, from: .dead, to: .pending)
                return conn.changes
            }
        }
    }

    // MARK: Groups

    public func flushDueGroups(now: Date, inhibitRules: [InhibitRule], limit: Int) async throws(StoreError) -> [GroupNotice] {
        // Lost to a power cut, a flush is made again from the same state:
        // the same notifications, with the same delivery ids.
        try await writer.write(durable: false) { [inhibitionSources, groupSnapshots, silenceIndex] conn throws(SQLiteError) in
            let due = try conn.statement("SELECT id FROM alert_groups WHERE next_due_at <= ? ORDER BY next_due_at LIMIT ?")
                .query([.integer(StoreCoding.millis(now)), .integer(Int64(limit))]) { AlertGroupID(trusted: $0.text(0)) }
            return try SQLiteStoreTransaction.run(in: conn, sources: inhibitionSources, snapshots: groupSnapshots,
                                                  silences: silenceIndex) { tx throws(SQLiteError) in
                try StoreRules.flush(due, now: now, inhibitRules: inhibitRules, in: &tx)
            }
        }
    }

    public func followRoutes(
        _ routes: [String: AlertGroupSettings], rerouting: GroupRerouting?, now: Date
    ) async throws(StoreError) -> Int {
        return try await writer.write { conn throws(SQLiteError) in
            let ids = try conn.statement("SELECT id FROM alert_groups ORDER BY id").query([]) { AlertGroupID(trusted: $0.text(0)) }
            return try SQLiteStoreTransaction.run(in: conn) { tx throws(SQLiteError) in
                try StoreRules.follow(ids, routes: routes, rerouting: rerouting, now: now, in: &tx)
            }
        }
    }

    public func nextGroupDueTime() async throws(StoreError) -> Date? {
        try await readOnWriter("Reading group timers") { conn throws(SQLiteError) in
            try conn.statement("SELECT MIN(next_due_at) FROM alert_groups").query { $0.optionalInt(0) }.first ?? nil
        }.map(StoreCoding.date)
    }

    public func groups() async throws(StoreError) -> [AlertGroup] {
        let rows = try await read("Listing groups") { conn throws(SQLiteError) in
            try conn.statement("SELECT \(StoreCoding.groupColumns) FROM alert_groups ORDER BY next_due_at, id")
                .query([], SQLiteStoreTransaction.groupRow)
        }
        var groups: [AlertGroup] = []
        for row in rows { groups.append(try StoreCoding.group(row)) }
        return groups
    }

    public func group(id: AlertGroupID) async throws(StoreError) -> AlertGroupRecord? {
        try await read("Reading group \(id)") { conn throws(SQLiteError) in
            try SQLiteStoreTransaction.run(in: conn) { tx throws(SQLiteError) in try StoreRules.groupRecord(id, in: &tx) }
        }
    }

    // MARK: Reads

    public func record(id: AlertID) async throws(StoreError) -> AlertRecord? {
        let rows = try await read("Reading alert \(id)") { conn throws(SQLiteError) in
            let alert = try conn.statement("SELECT \(StoreCoding.alertColumns) FROM alerts WHERE id = ?")
                .query([.text(id.rawValue)]) { StoreCoding.AlertRow($0) }.first
            let deliveries = try conn.statement("""
                SELECT \(StoreCoding.deliveryColumns) FROM deliveries WHERE alert_id = ? ORDER BY created_at, id
                """).query([.text(id.rawValue)], StoreCoding.delivery)
            let groups = try SQLiteStoreTransaction.run(in: conn) { tx throws(SQLiteError) in try tx.groups(containing: id) }
            return (alert, deliveries, groups)
        }
        guard let row = rows.0 else { return nil }
        return AlertRecord(alert: try StoreCoding.alert(row), deliveries: rows.1, groups: rows.2)
    }

    public func alerts(matching query: AlertQuery) async throws(StoreError) -> AlertPage {
        var sql = "SELECT \(StoreCoding.alertColumns) FROM alerts WHERE 1=1"
        var args: [SQLiteValue] = []
        if let state = query.state {
            sql += " AND state = ?"
            args.append(.text(state.rawValue))
        }
        if let before = query.before {
            sql += " AND id < ?"
            args.append(.text(before.rawValue))
        }
        if let deliveryState = query.deliveryState {
            sql += " AND EXISTS (SELECT 1 FROM deliveries WHERE deliveries.alert_id = alerts.id AND deliveries.state = ?)"
            args.append(.text(deliveryState.rawValue))
        }
        for (name, value) in query.labels {
            // Label names are validated identifiers, so the JSON path cannot be abused;
            // the caller checks that before building the query.
            sql += " AND json_extract(spec, ?) = ?"
            args.append(.text("$.labels.\(name)"))
            args.append(.text(value))
        }
        let limit = max(1, min(query.limit, 1_000))
        sql += " ORDER BY id DESC LIMIT ?"
        args.append(.integer(Int64(limit + 1)))
        let (statement, values) = (sql, args)
        let rows = try await read("Listing alerts") { conn throws(SQLiteError) in
            try conn.statement(statement).query(values) { StoreCoding.AlertRow($0) }
        }
        var alerts: [Alert] = []
        for row in rows.prefix(limit) { alerts.append(try StoreCoding.alert(row)) }
        return AlertPage(alerts: alerts, nextCursor: rows.count > limit ? alerts.last?.id : nil)
    }

    public func nextDueTime(after: Date?) async throws(StoreError) -> Date? {
        let after = after.map(StoreCoding.millis) ?? Int64.min
        return try await readOnWriter("Reading the delivery queue") { conn throws(SQLiteError) in
            try conn.statement(Self.nextDue).query([.integer(after)]) { $0.optionalInt(0) }.first ?? nil
        }.map(StoreCoding.date)
    }

    /// The presenters with a pending delivery, found by skipping along
    /// `deliveries_due` (presenter, next_attempt_at) one presenter at a
    /// time: a few seeks, however many deliveries wait. Since schema 14
    /// that index also answers "when is anything due": a second index on
    /// `next_attempt_at` alone cost every new delivery and every claim.
    static let pendingPresenters = """
        WITH RECURSIVE pending_presenters(name) AS (
            SELECT (SELECT MIN(presenter) FROM deliveries WHERE state = 'pending')
            UNION ALL
            SELECT (SELECT MIN(presenter) FROM deliveries WHERE state = 'pending' AND presenter > name)
            FROM pending_presenters WHERE name IS NOT NULL)
        """

    /// The soonest pending delivery due after `?`: the soonest of each presenter's.
    static let nextDue = """
        \(pendingPresenters)
        SELECT MIN((SELECT MIN(next_attempt_at) FROM deliveries WHERE state = 'pending' AND presenter = name AND next_attempt_at > ?1))
        FROM pending_presenters WHERE name IS NOT NULL
        """

    public func nextMaintenanceTime() async throws(StoreError) -> Date? {
        try await readOnWriter("Reading expiries") { conn throws(SQLiteError) -> Int64? in
            // INDEXED BY: left alone, the planner picks alerts_state and walks
            // every open alert to find the minimum.
            let expiry = try conn.statement("""
                SELECT expires_at FROM alerts INDEXED BY alerts_expiry
                WHERE state = 'open' AND expires_at IS NOT NULL ORDER BY expires_at LIMIT 1
                """).query { $0.optionalInt(0) }.first ?? nil
            let escalation = try conn.statement("""
                SELECT escalate_at FROM alerts INDEXED BY alerts_escalation
                WHERE state = 'open' AND escalate_at IS NOT NULL AND escalated_at IS NULL AND escalate_at < ? ORDER BY escalate_at LIMIT 1
                """).query([.integer(StoreCoding.heldEscalation)]) { $0.optionalInt(0) }.first ?? nil
            let lapse = try conn.statement("""
                SELECT resolves_at FROM alerts INDEXED BY alerts_lapse
                WHERE state = 'open' AND resolves_at IS NOT NULL ORDER BY resolves_at LIMIT 1
                """).query { $0.optionalInt(0) }.first ?? nil
            return [expiry, escalation, lapse].compactMap { $0 }.min()
        }.map(StoreCoding.date)
    }

    public func events(after sequence: Int64, limit: Int) async throws(StoreError) -> [StoredEvent] {
        try await read("Reading events") { conn throws(SQLiteError) in
            let rows = try conn.statement("SELECT seq, type, alert_id, at, data FROM events WHERE seq > ? ORDER BY seq LIMIT ?")
                .query([.integer(sequence), .integer(Int64(max(1, limit)))]) { row in
                    (row.int(0), row.text(1), AlertID(trusted: row.text(2)), StoreCoding.date(row.int(3)), row.optionalText(4))
                }
            var events: [StoredEvent] = []
            for (sequence, type, alert, at, data) in rows {
                events.append(StoredEvent(sequence: sequence, kind: try StoreCoding.eventKind(type), alertID: alert, at: at,
                                          data: StoreCoding.decodeMap(data)))
            }
            return events
        }
    }

    public func lastEventSequence() async throws(StoreError) -> Int64 {
        try await read("Reading events") { conn throws(SQLiteError) in
            try conn.scalar("SELECT COALESCE(MAX(seq), 0) FROM events") ?? 0
        }
    }

    public func counts() async throws(StoreError) -> StoreCounts {
        try await read("Counting alerts") { conn throws(SQLiteError) in
            var c = StoreCounts()
            for (name, value) in try conn.statement("SELECT name, value FROM counters").query([], { ($0.text(0), Int($0.int(1))) }) {
                switch name {
                case "alerts.open": c.openAlerts = value
                case "deliveries.pending": c.pending = value
                case "deliveries.in_flight": c.inFlight = value
                case "deliveries.dead": c.dead = value
                case "deliveries.silenced_total": c.silencedDeliveries = value
                default: break
                }
            }
            c.openGroups = Int(try conn.scalar("SELECT COUNT(*) FROM alert_groups") ?? 0)
            // Walks the deliveries_due index, which holds only pending deliveries.
            let backlog = "SELECT presenter, COUNT(*) FROM deliveries WHERE state = 'pending' GROUP BY presenter"
            for (name, value) in try conn.statement(backlog).query([], { ($0.text(0), Int($0.int(1))) }) {
                c.pendingByPresenter[name] = value
            }
            return c
        }
    }

    /// For the dispatcher's small queries after every wake. In WAL mode a
    /// connection throws its page cache away whenever another one has
    /// committed, so the reader would re-read its pages after every batch;
    /// the writer's own cache is always current. It waits for a batch in
    /// progress, which the dispatcher can afford.
    private func readOnWriter<T: Sendable>(_ what: String, _ body: @escaping @Sendable (SQLiteConnection) throws(SQLiteError) -> T) async throws(StoreError) -> T {
        try await blocking(writeConnection, what, body)
    }

    func read<T: Sendable>(_ what: String, _ body: @escaping @Sendable (SQLiteConnection) throws(SQLiteError) -> T) async throws(StoreError) -> T {
        try await blocking(reader, what, body)
    }

    /// Runs a blocking SQLite call on a thread of its own (Dispatch's, not
    /// Swift's cooperative pool), so a slow disk stalls no task but its caller.
    private func blocking<T: Sendable>(
        _ connection: SQLiteConnection, _ what: String, _ body: @escaping @Sendable (SQLiteConnection) throws(SQLiteError) -> T
    ) async throws(StoreError) -> T {
        let result: Result<T, SQLiteError> = await withCheckedContinuation { continuation in
            Self.readQueue.async {
                continuation.resume(returning: Result { () throws(SQLiteError) -> T in
                    try connection.withLock { conn throws(SQLiteError) in try body(conn) }
                })
            }
        }
        do {
            return try result.get()
        } catch {
            // Damage a read finds is the writes' too: an alert acknowledged
            // into a damaged file may be out of reach after the restart,
            // which refuses the file.
            if error.isDamage { writer.refuseWrites(error) }
            throw StoreError.from(error, doing: what)
        }
    }

    /// Reads run here, concurrently with each other and with the writer's thread.
    private static let readQueue = DispatchQueue(label: "alertd.store.read", attributes: .concurrent)
}

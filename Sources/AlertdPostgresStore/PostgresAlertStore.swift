import Dispatch
import FoundationEssentials
import Synchronization
import AlertModel
import AlertdPostgres
import AlertdStore

/// The store on a PostgreSQL database that several alertd nodes share,
/// each taking alerts, decisions and deliveries (active-active).
///
/// Writes go through a ``PostgresCommitter`` (group commit; intake and
/// decisions commit with `synchronous_commit` on), reads through a small
/// pool. The rules are ``StoreRules``, run inside the committer's
/// transactions; what makes them hold across nodes is PostgreSQL's:
/// a unique index on open dedup keys, row locks on decided alerts,
/// `FOR UPDATE SKIP LOCKED` claims with a lease, advisory locks for the
/// event log's order and for maintenance. Each commit that brings news
/// sends a `NOTIFY`, which wakes the other nodes' dispatchers and event
/// streams through ``PostgresListener``.
public final class PostgresAlertStore: AlertStore {
    /// The URL without its password, for logs.
    public let redactedURL: String
    /// This node's name in `claimed_by`: whose claims ``recoverInFlight(now:)`` may take back.
    public let node: String
    let writer: PostgresCommitter
    let pool: PostgresConnectionPool
    private let listener: PostgresListener
    private let onRemoteChange = RemoteChangeHandler()
    /// Sessions another running node of this node's name held when this
    /// one started (its listener's, by `application_name`). Two nodes of
    /// one name take back each other's claims as their own at a start, and
    /// deliver again what the other is delivering.
    public let namesakes: Int
    /// What this node's start did to the schema; nil when it was this
    /// alertd's already (another node starting with it may have migrated it).
    public let schemaUpgrade: SchemaUpgrade?

    /// Connects to `url`, migrating the schema (once across nodes starting
    /// together), and listens for the other nodes' news. `node` names this
    /// node's claims; it should stay the same across restarts of one node
    /// and differ between nodes. `onCommit` sees each committed batch's
    /// size; `onWriteFailureChange` hears when writes start failing for
    /// want of the database (with why) and when they work again (nil).
    public init(
        url: String, node: String, readers: Int = 4,
        onCommit: @escaping @Sendable (Int) -> Void = { _ in },
        onWriteFailureChange: @escaping @Sendable (StoreError?) -> Void = { _ in }
    ) throws(StoreError) {
        let redacted = URLRedaction.redactingPassword(url)
        redactedURL = redacted
        self.node = node
        let what = "Opening the store at \(redacted)"
        do throws(PostgresError) {
            let setup = try PostgresConnection(url: url, redactedURL: redacted)
            schemaUpgrade = try Self.migrate(setup, redactedURL: redacted)
            let listenerName = Self.listenerName(node)
            namesakes = Int(try setup.withLock { conn throws(PostgresError) in
                // Of this database only: a node of the same name on another database of the server shares nothing.
                try conn.scalar("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()",
                                [.text(listenerName)])
            } ?? 0)
            let writeConnection = try PostgresConnection(url: url, redactedURL: redacted) { conn throws(PostgresError) in
                // The server's default may be off; a 202 promises the commit is on disk.
                try conn.execute("SET synchronous_commit = on")
            }
            writer = PostgresCommitter(connection: writeConnection, onCommit: onCommit, onWriteFailureChange: onWriteFailureChange)
            var readConnections: [PostgresConnection] = []
            for _ in 0..<max(1, readers) { readConnections.append(try PostgresConnection(url: url, redactedURL: redacted)) }
            pool = PostgresConnectionPool(readConnections)
            let handler = onRemoteChange
            listener = try PostgresListener(url: url, redactedURL: redacted, channel: PostgresSchema.channel,
                                            applicationName: listenerName, onNotify: { handler.call() })
        } catch {
            throw StoreError.from(error, doing: what)
        }
    }

    /// The `application_name` of a node's listener session, which it holds
    /// while it runs: `alertd node <name>`, or, for a name the server would
    /// not keep as it is (past its 63 bytes, or not printable ASCII, which it
    /// rewrites), `alertd node #` and a fingerprint of the name.
    static func listenerName(_ node: String) -> String {
        let name = "alertd node " + node
        if name.utf8.count <= 63, name.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) { return name }
        return "alertd node #" + LabelFingerprint(["node": node]).description
    }

    /// Called on every commit by any node that brings news (events, due
    /// deliveries), this one's included, and after the database comes back.
    public func setRemoteChangeHandler(_ handler: @escaping @Sendable () -> Void) {
        onRemoteChange.handler.withLock { $0 = handler }
    }

    /// Why the last write failed for want of the database, until one works again.
    public var lastWriteFailure: StoreError? { writer.lastWriteFailure }

    /// Finishes queued writes, stops the writer and the listener.
    public func close() {
        writer.close()
        listener.stop()
    }

    // The writer's and the listener's threads hold them, not the store: a
    // store let go of without `close()` would leave both, and their
    // connections, behind.
    deinit { close() }

    /// Runs the migrations not yet run, under an advisory lock, so of nodes
    /// starting together one migrates and the others wait and find it done.
    private static func migrate(_ connection: PostgresConnection, redactedURL: String) throws(PostgresError) -> SchemaUpgrade? {
        let latest = PostgresSchema.migrations.count
        let (refusal, upgrade) = try connection.withLock { conn throws(PostgresError) -> (String?, SchemaUpgrade?) in
            // Another node may be migrating; a migration may take long on a large database.
            try conn.query("SELECT pg_advisory_lock($1)", [.integer(PostgresSchema.migrationLock)], timeout: PostgresSchema.migrationTimeout)
            defer { _ = try? conn.query("SELECT pg_advisory_unlock($1)", [.integer(PostgresSchema.migrationLock)]) }
            if let refusal = try Self.refusal(conn, redactedURL: redactedURL) { return (refusal, nil) }
            if try conn.scalar("SELECT (to_regclass('alertd_schema') IS NULL)::int") == 1 {
                try conn.execute("CREATE TABLE alertd_schema (version INTEGER NOT NULL)")
            }
            let version = Int(try conn.scalar("SELECT COALESCE(MAX(version), 0) FROM alertd_schema") ?? 0)
            guard version < latest else { return (nil, nil) }
            try conn.execute("BEGIN")
            do throws(PostgresError) {
                for v in version..<latest { try conn.execute(PostgresSchema.migrations[v], timeout: PostgresSchema.migrationTimeout) }
                try conn.query("INSERT INTO alertd_schema (version) VALUES ($1)", [.integer(Int64(latest))])
                try conn.execute("COMMIT")
            } catch {
                if conn.isConnected { try? conn.execute("ROLLBACK") }
                throw error
            }
            return (nil, SchemaUpgrade(from: version, to: latest))
        }
        if let refusal { throw PostgresError(sqlState: PostgresSchema.refusalState, message: refusal, context: "migrate", connectionLost: false) }
        return upgrade
    }

    /// Why alertd must leave the database alone (another program's
    /// tables, a newer alertd's schema), or nil. Reads only.
    private static func refusal(_ conn: PostgresConnection, redactedURL: String) throws(PostgresError) -> String? {
        let tables = Set(try conn.query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()").rows.map { $0.text(0) })
        guard tables.contains("alertd_schema") else {
            guard tables.isDisjoint(with: ["alerts", "deliveries", "events"]) else {
                return "The database at \(redactedURL) holds another program's tables (\(tables.sorted().prefix(5).joined(separator: ", "))); alertd leaves it alone. Point store.url at a database of its own."
            }
            return nil
        }
        // Read as alertd writes it: a table of that name with a version of
        // another type is not alertd's (reading it failed with a bare SQL error).
        // From the catalog: information_schema shows only the columns the user
        // may read, and a user without its grants read as another program's table.
        let type = try conn.query("""
            SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
            WHERE a.attrelid = format('%I.alertd_schema', current_schema())::regclass AND a.attname = 'version' AND NOT a.attisdropped
            """).rows.first?.optionalText(0)
        guard type == "integer" else {
            return "The database at \(redactedURL) holds a table alertd_schema that is not alertd's (its version is \(type ?? "missing")); alertd leaves it alone. Point store.url at a database of its own."
        }
        let version = Int(try conn.scalar("SELECT COALESCE(MAX(version), 0) FROM alertd_schema") ?? 0)
        let latest = PostgresSchema.migrations.count
        guard version <= latest else {
            return "The database at \(redactedURL) was written by a newer alertd (schema \(version), this alertd knows \(latest)). Upgrade alertd on this node."
        }
        return nil
    }

    /// Why libpq cannot read `url` (``PostgresConnection/urlProblem(_:)``),
    /// for the configuration to refuse it: connecting, it read as a
    /// database that "cannot be reached".
    public static func urlProblem(_ url: String) -> String? { PostgresConnection.urlProblem(url) }

    /// What `--check-config` asks of the database: that it can be reached
    /// with these credentials and that alertd could use it (its own or an
    /// empty one, in whose schema the user may create the tables). Changes nothing.
    public static func checkCompatible(url: String) throws(StoreError) {
        let redacted = URLRedaction.redactingPassword(url)
        let refusal: String?
        do throws(PostgresError) {
            let connection = try PostgresConnection(url: url, redactedURL: redacted)
            refusal = try connection.withLock { conn throws(PostgresError) -> String? in
                if let refusal = try Self.refusal(conn, redactedURL: redacted) { return refusal }
                let empty = try conn.scalar("SELECT (to_regclass('alertd_schema') IS NULL)::int") == 1
                if !empty, let unwritable = try conn.query(PostgresSchema.unwritableRelations).rows.first?.optionalText(0) {
                    return "The user in the URL may not write alertd's tables in the database at \(redacted) (\(unwritable)); "
                        + "grant it SELECT, INSERT, UPDATE and DELETE on them and USAGE on their sequences, or use the user that made them."
                }
                guard empty,
                      try conn.scalar("SELECT has_schema_privilege(current_schema(), 'CREATE')::int") != 1 else { return nil }
                let schema = try conn.query("SELECT current_schema()").rows.first?.optionalText(0)
                return "The user in the URL may not create tables in the database at \(redacted) "
                    + (schema.map { "(schema \"\($0)\")" } ?? "(its search_path names no schema that exists)")
                    + "; grant it CREATE on the schema, or make it the database's owner."
            }
        } catch {
            throw StoreError.from(error, doing: "Checking the store at \(redacted)")
        }
        if let refusal { throw StoreError(code: .incompatible, message: refusal) }
    }

    // MARK: Decisions and intake

    public func submit(_ submissions: [AlertSubmission]) async throws(StoreError) -> [SubmissionResult] {
        try await writer.write { session throws(PostgresError) in
            // First, so two nodes taking the same dedup key take turns and
            // the second folds into the first's alert.
            try session.lockEvents()
            var tx = PostgresStoreTransaction(session: session)
            return try StoreRules.submit(submissions, in: &tx)
        }
    }

    public func openAlert(dedupKey: String) async throws(StoreError) -> AlertID? {
        try await pool.run("Looking up a dedup key") { conn throws(PostgresError) in
            try conn.query("SELECT id FROM alerts WHERE dedup_key = $1 AND state = 'open'", [.text(dedupKey)])
                .rows.first.map { AlertID(trusted: $0.text(0)) }
        }
    }

    public func decide(_ id: AlertID, _ decision: AlertDecision) async throws(StoreError) -> DecisionOutcome {
        try await writer.write { session throws(PostgresError) in
            // First, as intake does: a decision locks its alert's row, then
            // logs an event; taking the two in the other order than another
            // node's transaction deadlocked them (resolved by PostgreSQL a
            // second later, as a retried conflict).
            try session.lockEvents()
            var tx = PostgresStoreTransaction(session: session)
            return try StoreRules.decide(id, decision, in: &tx)
        }
    }

    public func decideOpen(dedupKeys: [String], _ decision: AlertDecision) async throws(StoreError) -> [DecisionOutcome?] {
        try await writer.write { session throws(PostgresError) in
            try session.lockEvents()  // as `decide`
            var tx = PostgresStoreTransaction(session: session)
            return try StoreRules.decideOpen(dedupKeys: dedupKeys, decision, in: &tx)
        }
    }

    // MARK: Maintenance

    public func followEscalations(_ plan: @escaping @Sendable (Alert) -> Escalation?) async throws(StoreError) -> Int {
        try await StoreRules.followInPages { after throws(StoreError) in
            try await writer.write { session throws(PostgresError) in
                let scheduled = try session.conn.query("""
                    SELECT id, escalate_at, escalate_to, escalate_follow_ups FROM alerts
                    WHERE state = 'open' AND escalate_at IS NOT NULL AND escalated_at IS NULL AND (escalate_at, id) > ($1, $2)
                    ORDER BY escalate_at, id LIMIT $3 FOR UPDATE
                    """, [.integer(after.at), .text(after.id), .integer(Int64(StoreRules.escalationPage))]).rows.map {
                    StoreCoding.scheduledEscalation(id: $0.text(0), at: $0.int(1), presenters: $0.text(2), followUps: $0.optionalText(3))
                }
                var tx = PostgresStoreTransaction(session: session)
                return (try StoreRules.follow(scheduled, plan: plan, in: &tx), scheduled)
            }
        }
    }

    public func runMaintenance(now: Date, resendGraceFrom start: Date) async throws(StoreError) -> MaintenanceReport {
        let nowMs = StoreCoding.millis(now), startMs = StoreCoding.millis(start)
        return try await writer.write(durable: false) { session throws(PostgresError) in
            var report = MaintenanceReport()
            // Another node is at it: its round covers these alerts.
            guard try session.tryLock(PostgresSchema.maintenanceLock) else { return report }
            var tx = PostgresStoreTransaction(session: session)
            // Escalations first, as the clock had them: one due before the
            // alert's expiry or resolve (both overdue after a restart) fires.
            let escalating = try session.conn.query("""
                SELECT id, escalate_to, escalate_follow_ups FROM alerts
                WHERE state = 'open' AND escalate_at IS NOT NULL AND escalated_at IS NULL AND escalate_at <= $1
                AND (expires_at IS NULL OR escalate_at < expires_at) AND (resolves_at IS NULL OR escalate_at < resolves_at)
                ORDER BY escalate_at LIMIT 500
                """, [.integer(nowMs)]).rows.map { (id: $0.text(0), presenters: $0.text(1), followUps: $0.optionalText(2)) }
            let expiring = try session.conn.query("""
                SELECT id FROM alerts WHERE state = 'open' AND expires_at IS NOT NULL AND expires_at <= $1 ORDER BY expires_at LIMIT 500
                """, [.integer(nowMs)]).rows.map { AlertID(trusted: $0.text(0)) }
            // The grace after a start (StoreRules.lapse) held in the query, as the SQLite store does.
            let lapsed = try session.conn.query("""
                SELECT id FROM alerts WHERE state = 'open' AND resolves_at IS NOT NULL AND resolves_at <= $1
                AND (COALESCE(last_seen_at, created_at) >= $2
                     OR $2 + LEAST(resolves_at - COALESCE(last_seen_at, created_at), $3) <= $1) ORDER BY resolves_at LIMIT 500
                """, [.integer(nowMs), .integer(startMs), .integer(Int64(StoreRules.maxResendGrace.milliseconds))]).rows.map { AlertID(trusted: $0.text(0)) }
            guard !escalating.isEmpty || !expiring.isEmpty || !lapsed.isEmpty else { return report }
            // The event lock before any alert's row, as `decide` takes them:
            // in the other order an expiry and another node's decision of
            // the same alert deadlocked (PostgreSQL broke it after a second).
            try session.lockEvents()
            report.escalated = try StoreRules.escalateDue(escalating, at: now, in: &tx)
            for id in expiring where try StoreRules.expire(id, at: now, in: &tx) { report.expired.append(id) }
            for id in lapsed where try StoreRules.resolveLapsed(id, at: now, resendGraceFrom: start, in: &tx) { report.resolved.append(id) }
            return report
        }
    }

    public func nextMaintenanceTime() async throws(StoreError) -> Date? {
        try await pool.run("Reading expiries") { conn throws(PostgresError) -> Int64? in
            try conn.scalar("""
                SELECT LEAST(
                    (SELECT MIN(expires_at) FROM alerts WHERE state = 'open' AND expires_at IS NOT NULL),
                    (SELECT MIN(escalate_at) FROM alerts WHERE state = 'open' AND escalate_at IS NOT NULL AND escalated_at IS NULL
                        AND escalate_at < \(StoreCoding.heldEscalation)),
                    (SELECT MIN(resolves_at) FROM alerts WHERE state = 'open' AND resolves_at IS NOT NULL))
                """)
        }.map(StoreCoding.date)
    }

    public func prune(closedBefore cutoff: Date, limit: Int) async throws(StoreError) -> Int {
        let cutoffMs = StoreCoding.millis(cutoff)
        return try await writer.write(durable: false) { session throws(PostgresError) in
            guard try session.tryLock(PostgresSchema.pruneLock) else { return 0 }
            let conn = session.conn
            let ids = try conn.query("""
                SELECT id FROM alerts WHERE state <> 'open' AND updated_at < $1
                AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.alert_id = alerts.id AND d.state IN ('pending', 'in_flight'))
                AND NOT EXISTS (SELECT 1 FROM group_members m WHERE m.alert_id = alerts.id)
                LIMIT $2
                """, [.integer(cutoffMs), .integer(Int64(limit))]).rows.map { $0.text(0) }
            if !ids.isEmpty {
                try conn.query("DELETE FROM deliveries WHERE alert_id = ANY($1::text[])", [.textArray(ids)])
                try conn.query("DELETE FROM alerts WHERE id = ANY($1::text[])", [.textArray(ids)])
            }
            // The newest event is kept whatever its age, so `since=now` and
            // resuming clients still find where the log stands. Oldest first
            // by `at`, so `events_at` serves it and the scan stops at the
            // limit (see SQLiteAlertStore.pruneEvents).
            try conn.query("""
                DELETE FROM events WHERE seq IN (
                    SELECT seq FROM events WHERE at < $1 AND seq < (SELECT MAX(seq) FROM events) ORDER BY at LIMIT $2)
                """, [.integer(cutoffMs), .integer(Int64(limit * 8))])
            try conn.query("DELETE FROM silences WHERE ends_at < $1", [.integer(cutoffMs)])
            return ids.count
        }
    }

    // MARK: Reads

    public func record(id: AlertID) async throws(StoreError) -> AlertRecord? {
        let (row, deliveries, groups) = try await pool.run("Reading alert \(id)") { conn throws(PostgresError) in
            let alert = try conn.query("SELECT \(StoreCoding.alertColumns) FROM alerts WHERE id = $1", [.text(id.rawValue)])
                .rows.first.map { StoreCoding.AlertRow($0) }
            let deliveries = try conn.query("SELECT \(StoreCoding.deliveryColumns) FROM deliveries WHERE alert_id = $1 ORDER BY created_at, id",
                                            [.text(id.rawValue)]).rows.map(StoreCoding.delivery)
            let groups = try conn.query("SELECT group_id FROM group_members WHERE alert_id = $1 ORDER BY group_id", [.text(id.rawValue)])
                .rows.map { AlertGroupID(trusted: $0.text(0)) }
            return (alert, deliveries, groups)
        }
        guard let row else { return nil }
        return AlertRecord(alert: try StoreCoding.alert(row), deliveries: deliveries, groups: groups)
    }

    public func alerts(matching query: AlertQuery) async throws(StoreError) -> AlertPage {
        var sql = "SELECT \(StoreCoding.alertColumns) FROM alerts WHERE TRUE"
        var args: [PostgresValue] = []
        if let state = query.state {
            args.append(.text(state.rawValue))
            sql += " AND state = $\(args.count)"
        }
        if let before = query.before {
            args.append(.text(before.rawValue))
            sql += " AND id < $\(args.count)"
        }
        if let deliveryState = query.deliveryState {
            args.append(.text(deliveryState.rawValue))
            sql += " AND EXISTS (SELECT 1 FROM deliveries WHERE deliveries.alert_id = alerts.id AND deliveries.state = $\(args.count))"
        }
        for (name, value) in query.labels {
            sql += " AND " + PostgresSchema.hasLabel(name, value, args: &args)
        }
        let limit = max(1, min(query.limit, 1_000))
        args.append(.integer(Int64(limit + 1)))
        sql += " ORDER BY id DESC LIMIT $\(args.count)"
        let (statement, values) = (sql, args)
        let rows = try await pool.run("Listing alerts") { conn throws(PostgresError) in
            try conn.query(statement, values).rows.map { StoreCoding.AlertRow($0) }
        }
        var alerts: [Alert] = []
        for row in rows.prefix(limit) { alerts.append(try StoreCoding.alert(row)) }
        return AlertPage(alerts: alerts, nextCursor: rows.count > limit ? alerts.last?.id : nil)
    }

    public func events(after sequence: Int64, limit: Int) async throws(StoreError) -> [StoredEvent] {
        let rows = try await pool.run("Reading events") { conn throws(PostgresError) in
            try conn.query("SELECT seq, type, alert_id, at, data FROM events WHERE seq > $1 ORDER BY seq LIMIT $2",
                           [.integer(sequence), .integer(Int64(max(1, limit)))]).rows
        }
        var events: [StoredEvent] = []
        for row in rows {
            guard let kind = EventKind(rawValue: row.text(1)) else {
                throw StoreError(code: .corrupt, message: "Event \(row.int(0)) in the store has an unknown type \(row.text(1)).")
            }
            events.append(StoredEvent(sequence: row.int(0), kind: kind, alertID: AlertID(trusted: row.text(2)), at: StoreCoding.date(row.int(3)),
                                      data: StoreCoding.decodeMap(row.optionalText(4))))
        }
        return events
    }

    public func lastEventSequence() async throws(StoreError) -> Int64 {
        try await pool.run("Reading events") { conn throws(PostgresError) in
            try conn.scalar("SELECT COALESCE(MAX(seq), 0) FROM events") ?? 0
        }
    }

    public func counts() async throws(StoreError) -> StoreCounts {
        try await pool.run("Counting alerts") { conn throws(PostgresError) in
            let row = try conn.query("""
                SELECT (SELECT COUNT(*) FROM alerts WHERE state = 'open'),
                       (SELECT COUNT(*) FROM deliveries WHERE state = 'pending'),
                       (SELECT COUNT(*) FROM deliveries WHERE state = 'in_flight'),
                       (SELECT COUNT(*) FROM deliveries WHERE state = 'dead'),
                       (SELECT value FROM counters WHERE name = 'deliveries.silenced_total'),
                       (SELECT COUNT(*) FROM alert_groups)
                """).rows.first
            guard let row else { return StoreCounts() }
            var c = StoreCounts(openAlerts: Int(row.int(0)), pending: Int(row.int(1)), inFlight: Int(row.int(2)), dead: Int(row.int(3)),
                                silencedDeliveries: Int(row.int(4)), openGroups: Int(row.int(5)))
            // Walks the deliveries_next index, which holds only pending deliveries.
            for row in try conn.query("SELECT presenter, COUNT(*) FROM deliveries WHERE state = 'pending' GROUP BY presenter").rows {
                c.pendingByPresenter[row.text(0)] = Int(row.int(1))
            }
            return c
        }
    }
}

/// Who hears of the other nodes' commits; set once the daemon has built
/// the parts to wake, after the store (and its listener) started.
private final class RemoteChangeHandler: Sendable {
    let handler = Mutex<@Sendable () -> Void>({})

    func call() { handler.withLock { $0 }() }
}

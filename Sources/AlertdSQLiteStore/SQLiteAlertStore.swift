import Foundation
import Synchronization
import AlertModel
import AlertdSQLite
import AlertdStore

/// The durable store: one SQLite file in WAL mode with `synchronous=FULL`,
/// written through a `GroupCommitter` and read through a second connection,
/// so reads never wait for an fsync.
public final class SQLiteAlertStore: AlertStore {
    public let path: String
    private let writer: GroupCommitter
    private let writeConnection: SQLiteConnection
    private let reader: SQLiteConnection

    /// Opens the store at `path`, creating it and running migrations as needed.
    /// `onCommit` sees the size of every committed batch (for metrics).
    public init(path: String, onCommit: @escaping @Sendable (Int) -> Void = { _ in }) throws(StoreError) {
        self.path = path
        do throws(SQLiteError) {
            writeConnection = try SQLiteConnection(path: path)
            try writeConnection.withLock { conn throws(SQLiteError) in
                try conn.execute("PRAGMA journal_mode=WAL")
                try conn.execute("PRAGMA synchronous=FULL")
                try conn.execute("PRAGMA foreign_keys=ON")
                // Checkpoint in bigger steps; a busy daemon writes a lot.
                try conn.execute("PRAGMA wal_autocheckpoint=4000")
            }
        } catch {
            throw StoreError.from(error, doing: "Opening the store at \(path)")
        }
        try Self.migrate(writeConnection)
        do throws(SQLiteError) {
            reader = try SQLiteConnection(path: path, readOnly: true)
        } catch {
            throw StoreError.from(error, doing: "Opening the store at \(path) for reading")
        }
        writer = GroupCommitter(connection: writeConnection, onCommit: onCommit)
    }

    /// Finishes queued writes and stops the writer. Further writes fail.
    public func close() {
        writer.close()
    }

    deinit { writer.close() }

    private static func migrate(_ connection: SQLiteConnection) throws(StoreError) {
        let latest = StoreSchema.migrations.count
        do throws(SQLiteError) {
            try connection.withLock { conn throws(SQLiteError) in
                try conn.execute("BEGIN IMMEDIATE")
                let version = Int(try conn.scalar("PRAGMA user_version") ?? 0)
                guard version < latest else {
                    try conn.execute("COMMIT")
                    if version > latest {
                        throw SQLiteError(code: 26, message: "schema \(version) is newer than this alertd's \(latest)", context: "migrate")
                    }
                    return
                }
                do throws(SQLiteError) {
                    for v in version..<latest {
                        try conn.execute(StoreSchema.migrations[v])
                    }
                    try conn.execute("PRAGMA user_version = \(latest)")
                    try conn.execute("COMMIT")
                } catch {
                    try? conn.execute("ROLLBACK")
                    throw error
                }
            }
        } catch where error.context == "migrate" {
            throw StoreError(code: .incompatible,
                             message: "The store at \(connection.path) was written by a newer alertd (\(error.message)). Upgrade alertd or use another state directory.")
        } catch {
            throw StoreError.from(error, doing: "Migrating the store at \(connection.path)")
        }
    }

    // MARK: Writes

    public func submit(_ submissions: [AlertSubmission]) async throws(StoreError) -> [SubmissionResult] {
        // Encode outside the writer thread: the writer is the bottleneck.
        let rows = submissions.map { s -> (AlertSubmission, String, String?) in
            (s, StoreCoding.encodeSpec(s.alert.spec), s.escalation.map { StoreCoding.jsonList($0.presenters) })
        }
        return try await writer.write { conn throws(SQLiteError) in
            var results: [SubmissionResult] = []
            results.reserveCapacity(rows.count)
            let findOpen = try conn.statement("SELECT id FROM alerts WHERE dedup_key = ? AND state = 'open'")
            let insertAlert = try conn.statement("""
                INSERT INTO alerts (id, spec, state, severity, dedup_key, created_at, updated_at, expires_at, escalate_at, escalate_to)
                VALUES (?, ?, 'open', ?, ?, ?, ?, ?, ?, ?)
                """)
            for (submission, specJSON, escalateTo) in rows {
                let alert = submission.alert
                if let key = alert.spec.dedupKey,
                   let existing = try findOpen.query([.text(key)], { $0.text(0) }).first {
                    results.append(SubmissionResult(id: AlertID(trusted: existing), state: .open, deduplicated: true))
                    continue
                }
                let created = StoreCoding.millis(alert.createdAt)
                let escalateAt = submission.escalation.map { created + Int64($0.after.seconds * 1000) }
                try insertAlert.run([
                    .text(alert.id.rawValue), .text(specJSON), .text(alert.spec.severity.rawValue),
                    .optional(alert.spec.dedupKey), .integer(created), .integer(created),
                    .optional(alert.expiresAt.map(StoreCoding.millis)), .optional(escalateAt), .optional(escalateTo),
                ])
                for (i, presenter) in submission.presenters.enumerated() {
                    try Self.insertDelivery(conn, id: DeliveryRecord.deliveryID(alert: alert.id, index: i), alert: alert.id,
                                            presenter: presenter, at: created)
                }
                try Self.insertEvent(conn, "alert.created", alert: alert.id, at: created)
                results.append(SubmissionResult(id: alert.id, state: .open, deduplicated: false))
            }
            return results
        }
    }

    public func decide(_ id: AlertID, _ decision: AlertDecision) async throws(StoreError) -> DecisionResult {
        let row: (StoreCoding.AlertRow, Bool, String?)? = try await writer.write { conn throws(SQLiteError) in
            try Self.decide(conn, id: id.rawValue, decision)
        }
        guard let (alertRow, won, handler) = row else { return .notFound }
        let alert = try StoreCoding.alert(alertRow)
        return won ? .decided(alert, handlerDelivery: handler) : .alreadyDecided(alert)
    }

    /// The compare-and-set itself, shared by API decisions and expiry.
    /// Returns the alert row after the attempt, whether this decision won,
    /// and the handler delivery it queued.
    private static func decide(_ conn: SQLiteConnection, id: String, _ decision: AlertDecision)
        throws(SQLiteError) -> (StoreCoding.AlertRow, Bool, String?)? {
        let at = StoreCoding.millis(decision.at)
        // Past its expiry an alert is expired, whether or not the dispatcher
        // has got round to saying so: a late decision loses to the clock.
        let won = try conn.statement("""
            UPDATE alerts SET state = ?, decided_by = ?, decided_at = ?, comment = ?, updated_at = ?
            WHERE id = ? AND state = 'open' AND (expires_at IS NULL OR expires_at > ? OR ? = 'expired')
            RETURNING \(StoreCoding.alertColumns)
            """).query([
                .text(decision.outcome.rawValue), .text(decision.actor), .integer(at), .optional(decision.comment),
                .integer(at), .text(id), .integer(at), .text(decision.outcome.rawValue),
            ]) { StoreCoding.AlertRow($0) }.first
        guard let won else {
            let overdue = try conn.statement("SELECT expires_at FROM alerts WHERE id = ? AND state = 'open' AND expires_at <= ?")
                .query([.text(id), .integer(at)]) { $0.int(0) }.first
            if let expiry = overdue {
                let expired = AlertDecision(outcome: .expired, actor: "alertd", at: StoreCoding.date(expiry))
                if let (row, _, _) = try decide(conn, id: id, expired) { return (row, false, nil) }
            }
            let current = try conn.statement("SELECT \(StoreCoding.alertColumns) FROM alerts WHERE id = ?")
                .query([.text(id)]) { StoreCoding.AlertRow($0) }.first
            return current.map { ($0, false, nil) }
        }
        var handler: String?
        let alertID = AlertID(trusted: id)
        if let action = decision.action, let spec = try? AlertSpec.fromStorage(Data(won.spec.utf8)),
           spec.action(action) != nil {
            let deliveryID = "\(id).\(action.rawValue)"
            try insertDelivery(conn, id: deliveryID, alert: alertID, presenter: HandlerDelivery.presenterName(for: action), at: at)
            handler = deliveryID
        }
        try insertEvent(conn, "alert.\(decision.outcome.rawValue)", alert: alertID, at: at,
                        data: ["actor": decision.actor, "comment": decision.comment, "handler_delivery_id": handler])
        return (won, true, handler)
    }

    public func runMaintenance(now: Date) async throws(StoreError) -> MaintenanceReport {
        let nowMs = StoreCoding.millis(now)
        // Expiry and escalation are recomputed from the alerts after a power cut.
        return try await writer.write(durable: false) { conn throws(SQLiteError) in
            var report = MaintenanceReport()
            let expiring = try conn.statement("""
                SELECT id FROM alerts INDEXED BY alerts_expiry
                WHERE state = 'open' AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT 500
                """).query([.integer(nowMs)]) { $0.text(0) }
            for id in expiring {
                let decision = AlertDecision(outcome: .expired, actor: "alertd", at: now, comment: nil)
                if let (_, won, _) = try Self.decide(conn, id: id, decision), won { report.expired.append(AlertID(trusted: id)) }
            }
            let escalating = try conn.statement("""
                SELECT id, escalate_to FROM alerts INDEXED BY alerts_escalation
                WHERE state = 'open' AND escalate_at IS NOT NULL AND escalated_at IS NULL AND escalate_at <= ?
                ORDER BY escalate_at LIMIT 500
                """).query([.integer(nowMs)]) { ($0.text(0), $0.text(1)) }
            let mark = try conn.statement("UPDATE alerts SET escalated_at = ? WHERE id = ?")
            for (id, to) in escalating {
                let alertID = AlertID(trusted: id)
                let presenters = StoreCoding.decodeList(to)
                for (i, presenter) in presenters.enumerated() {
                    try Self.insertDelivery(conn, id: "\(id).e\(i)", alert: alertID, presenter: presenter, at: nowMs)
                }
                try mark.run([.integer(nowMs), .text(id)])
                try Self.insertEvent(conn, "alert.escalated", alert: alertID, at: nowMs,
                                     data: ["presenters": presenters.joined(separator: ",")])
                report.escalated.append(alertID)
            }
            return report
        }
    }

    public func prune(closedBefore cutoff: Date, limit: Int) async throws(StoreError) -> Int {
        let cutoffMs = StoreCoding.millis(cutoff)
        // Losing a prune to a power cut only means doing it again.
        return try await writer.write(durable: false) { conn throws(SQLiteError) in
            let ids = try conn.statement("""
                SELECT id FROM alerts INDEXED BY alerts_closed WHERE state != 'open' AND updated_at < ?
                AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.alert_id = alerts.id AND d.state IN ('pending', 'in_flight'))
                LIMIT ?
                """).query([.integer(cutoffMs), .integer(Int64(limit))]) { $0.text(0) }
            let deleteDeliveries = try conn.statement("DELETE FROM deliveries WHERE alert_id = ?")
            let deleteAlert = try conn.statement("DELETE FROM alerts WHERE id = ?")
            for id in ids {
                try deleteDeliveries.run([.text(id)])
                try deleteAlert.run([.text(id)])
            }
            // The newest event is kept whatever its age, so `since=now` and
            // resuming clients still find where the log stands.
            try conn.statement("""
                DELETE FROM events WHERE seq IN (
                    SELECT seq FROM events WHERE at < ? AND seq < (SELECT MAX(seq) FROM events) ORDER BY seq LIMIT ?)
                """).run([.integer(cutoffMs), .integer(Int64(limit * 8))])
            return ids.count
        }
    }

    private static func insertDelivery(_ conn: SQLiteConnection, id: String, alert: AlertID, presenter: String, at: Int64) throws(SQLiteError) {
        try conn.statement("""
            INSERT INTO deliveries (id, alert_id, presenter, state, next_attempt_at, created_at, updated_at)
            VALUES (?, ?, ?, 'pending', ?, ?, ?)
            """).run([.text(id), .text(alert.rawValue), .text(presenter), .integer(at), .integer(at), .integer(at)])
    }

    private static func insertEvent(_ conn: SQLiteConnection, _ type: String, alert: AlertID, at: Int64,
                                    data: [String: String?] = [:]) throws(SQLiteError) {
        let present = data.compactMapValues { $0 }
        try conn.statement("INSERT INTO events (type, alert_id, at, data) VALUES (?, ?, ?, ?)")
            .run([.text(type), .text(alert.rawValue), .integer(at), present.isEmpty ? .null : .text(StoreCoding.json(present))])
    }

    public func claimDueDeliveries(now: Date, capacity: [String: Int], orphanLimit: Int) async throws(StoreError) -> [ClaimedDelivery] {
        let nowMs = StoreCoding.millis(now)
        let rows: [(DeliveryRecord, StoreCoding.AlertRow)] = try await writer.write(durable: false) { conn throws(SQLiteError) in
            var ids: [String] = []
            let due = try conn.statement("""
                SELECT id FROM deliveries WHERE state = 'pending' AND presenter = ? AND next_attempt_at <= ?
                ORDER BY next_attempt_at LIMIT ?
                """)
            for (presenter, slots) in capacity.sorted(by: { $0.key < $1.key }) where slots > 0 {
                ids += try due.query([.text(presenter), .integer(nowMs), .integer(Int64(slots))]) { $0.text(0) }
            }
            if orphanLimit > 0 {
                let known = capacity.keys.sorted()
                let placeholders = known.isEmpty ? "''" : known.map { _ in "?" }.joined(separator: ",")
                let orphans = try conn.statement("""
                    SELECT id FROM deliveries WHERE state = 'pending' AND next_attempt_at <= ?
                    AND presenter NOT IN (\(placeholders)) LIMIT ?
                    """)
                ids += try orphans.query([.integer(nowMs)] + known.map(SQLiteValue.text) + [.integer(Int64(orphanLimit))]) { $0.text(0) }
            }
            let claim = try conn.statement("""
                UPDATE deliveries SET state = 'in_flight', attempts = attempts + 1, updated_at = ?
                WHERE id = ? AND state = 'pending'
                RETURNING id, alert_id, presenter, attempts, last_error, created_at
                """)
            let alertRow = try conn.statement("SELECT \(StoreCoding.alertColumns) FROM alerts WHERE id = ?")
            var out: [(DeliveryRecord, StoreCoding.AlertRow)] = []
            for id in ids {
                let claimed = try claim.query([.integer(nowMs), .text(id)]) { row in
                    DeliveryRecord(
                        id: row.text(0), alertID: AlertID(trusted: row.text(1)), presenter: row.text(2),
                        state: .inFlight, attempts: Int(row.int(3)), nextAttemptAt: nil, lastError: row.optionalText(4),
                        createdAt: StoreCoding.date(row.int(5)), updatedAt: now, deliveredAt: nil)
                }
                guard let delivery = claimed.first,
                      let a = try alertRow.query([.text(delivery.alertID.rawValue)], { StoreCoding.AlertRow($0) }).first
                else { continue }
                out.append((delivery, a))
            }
            return out
        }
        var claimed: [ClaimedDelivery] = []
        for (delivery, row) in rows {
            claimed.append(ClaimedDelivery(delivery: delivery, alert: try StoreCoding.alert(row)))
        }
        return claimed
    }

    public func settle(_ settlements: [DeliverySettlement]) async throws(StoreError) {
        guard !settlements.isEmpty else { return }
        // A lost outcome means one more attempt with the same delivery id: harmless.
        try await writer.write(durable: false) { conn throws(SQLiteError) in
            let delivered = try conn.statement("""
                UPDATE deliveries SET state = 'delivered', next_attempt_at = NULL, last_error = NULL,
                updated_at = ?1, delivered_at = ?1 WHERE id = ?2 RETURNING alert_id, presenter
                """)
            let retry = try conn.statement("""
                UPDATE deliveries SET state = 'pending', next_attempt_at = ?1, last_error = ?2, updated_at = ?3
                WHERE id = ?4 RETURNING alert_id, presenter
                """)
            let dead = try conn.statement("""
                UPDATE deliveries SET state = 'dead', next_attempt_at = NULL, last_error = ?1, updated_at = ?2
                WHERE id = ?3 RETURNING alert_id, presenter
                """)
            for s in settlements {
                let at = StoreCoding.millis(s.at)
                let rows: [(String, String)]
                let type: String
                let error: String?
                switch s.result {
                case .delivered:
                    rows = try delivered.query([.integer(at), .text(s.deliveryID)]) { ($0.text(0), $0.text(1)) }
                    type = "delivery.succeeded"; error = nil
                case .retry(let next, let e):
                    rows = try retry.query([.integer(StoreCoding.millis(next)), .text(e), .integer(at), .text(s.deliveryID)]) { ($0.text(0), $0.text(1)) }
                    type = "delivery.failed"; error = e
                case .dead(let e):
                    rows = try dead.query([.text(e), .integer(at), .text(s.deliveryID)]) { ($0.text(0), $0.text(1)) }
                    type = "delivery.dead"; error = e
                }
                if let (alertID, presenter) = rows.first {
                    try Self.insertEvent(conn, type, alert: AlertID(trusted: alertID), at: at,
                                         data: ["delivery_id": s.deliveryID, "presenter": presenter, "error": error])
                }
            }
        }
    }

    public func recoverInFlight(now: Date) async throws(StoreError) -> Int {
        try await writer.write(durable: false) { conn throws(SQLiteError) in
            try conn.statement("UPDATE deliveries SET state = 'pending', next_attempt_at = ?1, updated_at = ?1 WHERE state = 'in_flight'")
                .run([.integer(StoreCoding.millis(now))])
            return conn.changes
        }
    }

    public func replayDead(alert: AlertID?, now: Date) async throws(StoreError) -> Int {
        try await writer.write { conn throws(SQLiteError) in
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
            return conn.changes
        }
    }

    // MARK: Reads

    public func record(id: AlertID) async throws(StoreError) -> AlertRecord? {
        let rows = try read("Reading alert \(id)") { conn throws(SQLiteError) in
            let alert = try conn.statement("SELECT \(StoreCoding.alertColumns) FROM alerts WHERE id = ?")
                .query([.text(id.rawValue)]) { StoreCoding.AlertRow($0) }.first
            let deliveries = try conn.statement("""
                SELECT id, presenter, state, attempts, next_attempt_at, last_error, created_at, updated_at, delivered_at
                FROM deliveries WHERE alert_id = ? ORDER BY created_at, id
                """).query([.text(id.rawValue)]) { row in
                DeliveryRecord(
                    id: row.text(0), alertID: id, presenter: row.text(1),
                    state: DeliveryState(rawValue: row.text(2)) ?? .pending, attempts: Int(row.int(3)),
                    nextAttemptAt: row.optionalInt(4).map(StoreCoding.date), lastError: row.optionalText(5),
                    createdAt: StoreCoding.date(row.int(6)), updatedAt: StoreCoding.date(row.int(7)),
                    deliveredAt: row.optionalInt(8).map(StoreCoding.date))
            }
            return (alert, deliveries)
        }
        guard let row = rows.0 else { return nil }
        return AlertRecord(alert: try StoreCoding.alert(row), deliveries: rows.1)
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
        let rows = try read("Listing alerts") { conn throws(SQLiteError) in
            try conn.statement(sql).query(args) { StoreCoding.AlertRow($0) }
        }
        var alerts: [Alert] = []
        for row in rows.prefix(limit) { alerts.append(try StoreCoding.alert(row)) }
        return AlertPage(alerts: alerts, nextCursor: rows.count > limit ? alerts.last?.id : nil)
    }

    public func openAlert(dedupKey: String) async throws(StoreError) -> AlertID? {
        try read("Looking up a dedup key") { conn throws(SQLiteError) in
            try conn.statement("SELECT id FROM alerts WHERE dedup_key = ? AND state = 'open'").query([.text(dedupKey)]) { $0.text(0) }.first
        }.map(AlertID.init(trusted:))
    }

    public func nextDueTime() async throws(StoreError) -> Date? {
        try readOnWriter("Reading the delivery queue") { conn throws(SQLiteError) in
            try conn.statement("SELECT MIN(next_attempt_at) FROM deliveries WHERE state = 'pending'")
                .query { $0.optionalInt(0) }.first ?? nil
        }.map(StoreCoding.date)
    }

    public func nextMaintenanceTime() async throws(StoreError) -> Date? {
        try readOnWriter("Reading expiries") { conn throws(SQLiteError) -> Int64? in
            // INDEXED BY: left alone, the planner picks alerts_state and walks
            // every open alert to find the minimum.
            let expiry = try conn.statement("""
                SELECT expires_at FROM alerts INDEXED BY alerts_expiry
                WHERE state = 'open' AND expires_at IS NOT NULL ORDER BY expires_at LIMIT 1
                """).query { $0.optionalInt(0) }.first ?? nil
            let escalation = try conn.statement("""
                SELECT escalate_at FROM alerts INDEXED BY alerts_escalation
                WHERE state = 'open' AND escalate_at IS NOT NULL AND escalated_at IS NULL ORDER BY escalate_at LIMIT 1
                """).query { $0.optionalInt(0) }.first ?? nil
            return [expiry, escalation].compactMap { $0 }.min()
        }.map(StoreCoding.date)
    }

    public func events(after sequence: Int64, limit: Int) async throws(StoreError) -> [StoredEvent] {
        try read("Reading events") { conn throws(SQLiteError) in
            try conn.statement("SELECT seq, type, alert_id, at, data FROM events WHERE seq > ? ORDER BY seq LIMIT ?")
                .query([.integer(sequence), .integer(Int64(max(1, limit)))]) { row in
                    StoredEvent(sequence: row.int(0), type: row.text(1), alertID: AlertID(trusted: row.text(2)),
                                at: StoreCoding.date(row.int(3)), data: StoreCoding.decodeMap(row.optionalText(4)))
                }
        }
    }

    public func lastEventSequence() async throws(StoreError) -> Int64 {
        try read("Reading events") { conn throws(SQLiteError) in
            try conn.scalar("SELECT COALESCE(MAX(seq), 0) FROM events") ?? 0
        }
    }

    public func counts() async throws(StoreError) -> StoreCounts {
        try read("Counting alerts") { conn throws(SQLiteError) in
            var c = StoreCounts()
            for (name, value) in try conn.statement("SELECT name, value FROM counters").query([], { ($0.text(0), Int($0.int(1))) }) {
                switch name {
                case "alerts.open": c.openAlerts = value
                case "deliveries.pending": c.pending = value
                case "deliveries.in_flight": c.inFlight = value
                case "deliveries.dead": c.dead = value
                default: break
                }
            }
            return c
        }
    }

    /// For the dispatcher's small queries after every wake. In WAL mode a
    /// connection throws its page cache away whenever another one has
    /// committed, so the reader would re-read its pages after every batch;
    /// the writer's own cache is always current. It waits for a batch in
    /// progress, which the dispatcher can afford.
    private func readOnWriter<T>(_ what: String, _ body: (SQLiteConnection) throws(SQLiteError) -> T) throws(StoreError) -> T {
        do {
            return try writeConnection.withLock { conn throws(SQLiteError) in try body(conn) }
        } catch {
            throw StoreError.from(error, doing: what)
        }
    }

    private func read<T>(_ what: String, _ body: (SQLiteConnection) throws(SQLiteError) -> T) throws(StoreError) -> T {
        do {
            return try reader.withLock { conn throws(SQLiteError) in try body(conn) }
        } catch {
            throw StoreError.from(error, doing: what)
        }
    }
}

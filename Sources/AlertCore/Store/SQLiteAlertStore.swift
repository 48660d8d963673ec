import Foundation
import Synchronization

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
        let rows = submissions.map { s -> (AlertSubmission, String) in
            (s, String(decoding: (try? StoreCoding.encoder.encode(s.alert.spec)) ?? Data("{}".utf8), as: UTF8.self))
        }
        return try await writer.write { conn throws(SQLiteError) in
            var results: [SubmissionResult] = []
            results.reserveCapacity(rows.count)
            let findOpen = try conn.statement("SELECT id FROM alerts WHERE dedup_key = ? AND state = 'open'")
            let insertAlert = try conn.statement("""
                INSERT INTO alerts (id, spec, state, severity, dedup_key, created_at, updated_at, expires_at)
                VALUES (?, ?, 'open', ?, ?, ?, ?, ?)
                """)
            let insertDelivery = try conn.statement("""
                INSERT INTO deliveries (id, alert_id, presenter, state, next_attempt_at, created_at, updated_at)
                VALUES (?, ?, ?, 'pending', ?, ?, ?)
                """)
            let insertEvent = try conn.statement("INSERT INTO events (type, alert_id, at) VALUES (?, ?, ?)")
            for (submission, specJSON) in rows {
                let alert = submission.alert
                if let key = alert.spec.dedupKey,
                   let existing = try findOpen.query([.text(key)], { $0.text(0) }).first {
                    results.append(SubmissionResult(id: AlertID(trusted: existing), state: .open, deduplicated: true))
                    continue
                }
                let created = StoreCoding.millis(alert.createdAt)
                try insertAlert.run([
                    .text(alert.id.rawValue), .text(specJSON), .text(alert.spec.severity.rawValue),
                    .optional(alert.spec.dedupKey), .integer(created), .integer(created),
                    .optional(alert.expiresAt.map(StoreCoding.millis)),
                ])
                for (i, presenter) in submission.presenters.enumerated() {
                    try insertDelivery.run([
                        .text(StoreCoding.deliveryID(alert: alert.id, index: i)), .text(alert.id.rawValue),
                        .text(presenter), .integer(created), .integer(created), .integer(created),
                    ])
                }
                try insertEvent.run([.text("alert.created"), .text(alert.id.rawValue), .integer(created)])
                results.append(SubmissionResult(id: alert.id, state: .open, deduplicated: false))
            }
            return results
        }
    }

    public func claimDueDeliveries(now: Date, capacity: [String: Int], orphanLimit: Int) async throws(StoreError) -> [ClaimedDelivery] {
        let nowMs = StoreCoding.millis(now)
        let rows: [(DeliveryRecord, String, String, Int64, Int64)] = try await writer.write { conn throws(SQLiteError) in
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
            let alertRow = try conn.statement("SELECT spec, state, created_at, updated_at FROM alerts WHERE id = ?")
            var out: [(DeliveryRecord, String, String, Int64, Int64)] = []
            for id in ids {
                let claimed = try claim.query([.integer(nowMs), .text(id)]) { row in
                    DeliveryRecord(
                        id: row.text(0), alertID: AlertID(trusted: row.text(1)), presenter: row.text(2),
                        state: .inFlight, attempts: Int(row.int(3)), nextAttemptAt: nil, lastError: row.optionalText(4),
                        createdAt: StoreCoding.date(row.int(5)), updatedAt: now, deliveredAt: nil)
                }
                guard let delivery = claimed.first else { continue }
                guard let a = try alertRow.query([.text(delivery.alertID.rawValue)], { row in
                    (row.text(0), row.text(1), row.int(2), row.int(3))
                }).first else { continue }
                out.append((delivery, a.0, a.1, a.2, a.3))
            }
            return out
        }
        var claimed: [ClaimedDelivery] = []
        for (delivery, spec, state, created, updated) in rows {
            let alert = try StoreCoding.alert(id: delivery.alertID, spec: spec, state: state, created: created, updated: updated)
            claimed.append(ClaimedDelivery(delivery: delivery, alert: alert))
        }
        return claimed
    }

    public func settle(_ settlements: [DeliverySettlement]) async throws(StoreError) {
        guard !settlements.isEmpty else { return }
        try await writer.write { conn throws(SQLiteError) in
            let delivered = try conn.statement("""
                UPDATE deliveries SET state = 'delivered', next_attempt_at = NULL, last_error = NULL,
                updated_at = ?1, delivered_at = ?1 WHERE id = ?2 RETURNING alert_id
                """)
            let retry = try conn.statement("""
                UPDATE deliveries SET state = 'pending', next_attempt_at = ?1, last_error = ?2, updated_at = ?3
                WHERE id = ?4 RETURNING alert_id
                """)
            let dead = try conn.statement("""
                UPDATE deliveries SET state = 'dead', next_attempt_at = NULL, last_error = ?1, updated_at = ?2
                WHERE id = ?3 RETURNING alert_id
                """)
            let event = try conn.statement("INSERT INTO events (type, alert_id, at, data) VALUES (?, ?, ?, ?)")
            for s in settlements {
                let at = StoreCoding.millis(s.at)
                let alertIDs: [String]
                let type: String
                let error: String?
                switch s.result {
                case .delivered:
                    alertIDs = try delivered.query([.integer(at), .text(s.deliveryID)]) { $0.text(0) }
                    type = "delivery.succeeded"; error = nil
                case .retry(let next, let e):
                    alertIDs = try retry.query([.integer(StoreCoding.millis(next)), .text(e), .integer(at), .text(s.deliveryID)]) { $0.text(0) }
                    type = "delivery.failed"; error = e
                case .dead(let e):
                    alertIDs = try dead.query([.text(e), .integer(at), .text(s.deliveryID)]) { $0.text(0) }
                    type = "delivery.dead"; error = e
                }
                if let alertID = alertIDs.first {
                    let data = StoreCoding.json(["delivery_id": s.deliveryID, "error": error])
                    try event.run([.text(type), .text(alertID), .integer(at), .text(data)])
                }
            }
        }
    }

    public func recoverInFlight(now: Date) async throws(StoreError) -> Int {
        try await writer.write { conn throws(SQLiteError) in
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
            let alert = try conn.statement("SELECT spec, state, created_at, updated_at FROM alerts WHERE id = ?")
                .query([.text(id.rawValue)]) { row in (row.text(0), row.text(1), row.int(2), row.int(3)) }.first
            let deliveries = try conn.statement("""
                SELECT id, presenter, state, attempts, next_attempt_at, last_error, created_at, updated_at, delivered_at
                FROM deliveries WHERE alert_id = ? ORDER BY id
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
        guard let a = rows.0 else { return nil }
        let alert = try StoreCoding.alert(id: id, spec: a.0, state: a.1, created: a.2, updated: a.3)
        return AlertRecord(alert: alert, deliveries: rows.1)
    }

    public func alerts(matching query: AlertQuery) async throws(StoreError) -> AlertPage {
        var sql = "SELECT id, spec, state, created_at, updated_at FROM alerts WHERE 1=1"
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
            try conn.statement(sql).query(args) { row in (row.text(0), row.text(1), row.text(2), row.int(3), row.int(4)) }
        }
        var alerts: [Alert] = []
        for row in rows.prefix(limit) {
            alerts.append(try StoreCoding.alert(id: AlertID(trusted: row.0), spec: row.1, state: row.2, created: row.3, updated: row.4))
        }
        return AlertPage(alerts: alerts, nextCursor: rows.count > limit ? alerts.last?.id : nil)
    }

    public func nextDueTime() async throws(StoreError) -> Date? {
        try read("Reading the delivery queue") { conn throws(SQLiteError) in
            try conn.statement("SELECT MIN(next_attempt_at) FROM deliveries WHERE state = 'pending'")
                .query { $0.optionalInt(0) }.first ?? nil
        }.map(StoreCoding.date)
    }

    public func counts() async throws(StoreError) -> StoreCounts {
        try read("Counting alerts") { conn throws(SQLiteError) in
            var c = StoreCounts()
            c.openAlerts = Int(try conn.scalar("SELECT COUNT(*) FROM alerts WHERE state = 'open'") ?? 0)
            c.pending = Int(try conn.scalar("SELECT COUNT(*) FROM deliveries WHERE state = 'pending'") ?? 0)
            c.inFlight = Int(try conn.scalar("SELECT COUNT(*) FROM deliveries WHERE state = 'in_flight'") ?? 0)
            c.dead = Int(try conn.scalar("SELECT COUNT(*) FROM deliveries WHERE state = 'dead'") ?? 0)
            return c
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

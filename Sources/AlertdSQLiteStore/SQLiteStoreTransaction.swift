import FoundationEssentials
import AlertModel
import AlertdSQLite
import AlertdStore

/// ``StoreTransaction`` on the writer's connection, inside one group-commit
/// batch: the SQL for each primitive, and nothing of the rules.
struct SQLiteStoreTransaction: StoreTransaction {
    typealias Failure = SQLiteError

    let conn: SQLiteConnection
    /// The counter changes of what this transaction wrote, written by ``run(in:_:)``.
    var moves = CounterMoves()
    /// New alerts, deliveries and events, written by ``flush()`` before any
    /// other statement of this transaction that reads or changes them, so
    /// everything it does sees them as stored: its own, or the group-commit
    /// batch's (``PendingRows``).
    private let rows: PendingRows
    /// Whether `rows` are this transaction's, to write at its end.
    private let ownsRows: Bool
    /// The store's inhibition sources, kept between transactions; without
    /// them ``inhibitions(under:)`` reads every open alert.
    private let sources: InhibitionSources?
    /// The store's snapshots of group notifications just queued (``GroupSnapshotCache``).
    private let snapshots: GroupSnapshotCache?
    /// The store's filing of the silences and their budget, kept between
    /// transactions (``SilenceScreeningCache``); each silence saved goes
    /// through it.
    private let silences: SilenceScreeningCache?
    /// Groups this transaction read or wrote, as it left them (nil: none
    /// with that id): a batch of alerts joining a few groups read and
    /// decoded each group's row once an alert.
    private var groupsSeen: [AlertGroupID: AlertGroup?] = [:]

    private init(conn: SQLiteConnection, sources: InhibitionSources?, snapshots: GroupSnapshotCache?, silences: SilenceScreeningCache?) {
        self.conn = conn
        let batch = PendingRows.current
        rows = batch ?? PendingRows()
        ownsRows = batch == nil
        self.sources = sources
        self.snapshots = snapshots
        self.silences = silences
    }

    /// Runs `body` on a transaction over `conn`, then writes the rows it
    /// still holds (``flush()``) and its counter changes (``CounterMoves``),
    /// or, inside a group-commit batch, leaves those to the batch's
    /// ``PendingRows`` and ``CounterLedger``: the one way to make one, so no
    /// write is left behind.
    static func run<T>(in conn: SQLiteConnection, sources: InhibitionSources? = nil, snapshots: GroupSnapshotCache? = nil,
                       silences: SilenceScreeningCache? = nil,
                       _ body: (inout SQLiteStoreTransaction) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        var tx = SQLiteStoreTransaction(conn: conn, sources: sources, snapshots: snapshots, silences: silences)
        let result = try body(&tx)
        if tx.ownsRows { try tx.flush() }
        if let ledger = CounterLedger.current {
            ledger.add(tx.moves)
        } else {
            try tx.moves.write(in: conn)
        }
        return result
    }

    /// Writes the alerts, deliveries and events held so far. A direct
    /// statement on `conn` inside ``run(in:_:)`` that reads or changes them
    /// calls it first.
    mutating func flush() throws(SQLiteError) {
        try rows.write(in: conn)
    }

    func openAlert(dedupKey: String) throws(SQLiteError) -> AlertID? {
        if let held = rows.alert(dedupKey: dedupKey) { return held }
        return try conn.statement("SELECT id FROM alerts WHERE dedup_key = ? AND state = 'open'")
            .query([.text(dedupKey)]) { AlertID(trusted: $0.text(0)) }.first
    }

    mutating func alert(_ id: AlertID) throws(SQLiteError) -> Alert? {
        try flush()
        guard let row = try conn.statement("SELECT \(StoreCoding.alertColumns) FROM alerts WHERE id = ?")
            .query([.text(id.rawValue)], { StoreCoding.AlertRow($0) }).first else { return nil }
        do {
            return try StoreCoding.alert(row)
        } catch {
            throw .corrupt(error.message, context: "read alert \(id)")
        }
    }

    mutating func alertState(_ id: AlertID) throws(SQLiteError) -> AlertState? {
        try flush()
        guard let text = try conn.statement("SELECT state FROM alerts WHERE id = ?")
            .query([.text(id.rawValue)], { $0.text(0) }).first else { return nil }
        guard let state = AlertState(rawValue: text) else { throw .corrupt("unknown alert state \"\(text)\"", context: "read alert \(id)") }
        return state
    }

    mutating func insert(_ alert: Alert, escalation: Escalation?) throws(SQLiteError) {
        let created = StoreCoding.millis(alert.createdAt)
        let escalates = StoreCoding.escalationColumns(escalation, created: created)
        rows.addAlert([
            .text(alert.id.rawValue), .text(StoreCoding.encodeSpec(alert.spec)), .text(alert.spec.severity.rawValue),
            .optional(alert.spec.dedupKey), .integer(created), .integer(created),
            .optional(alert.expiresAt.map(StoreCoding.millis)),
            .optional(escalates.at), .optional(escalates.to), .optional(escalates.followUps),
            .optional(alert.resolvesAt.map(StoreCoding.millis)),
        ], id: alert.id, dedupKey: alert.spec.dedupKey)
        moves.openedAlerts()
    }

    mutating func close(_ alert: Alert) throws(SQLiteError) {
        try flush()
        try conn.statement("""
            UPDATE alerts SET state = ?, decided_by = ?, decided_at = ?, comment = ?, decided_recipient = ?, updated_at = ? WHERE id = ?
            """).run([
                .text(alert.state.rawValue), .optional(alert.decision?.actor), .optional(alert.decision.map { StoreCoding.millis($0.at) }),
                .optional(alert.decision?.comment), .optional(alert.decision?.recipient), .integer(StoreCoding.millis(alert.updatedAt)),
                .text(alert.id.rawValue),
            ])
    }

    mutating func markEscalated(_ alert: AlertID, at: Date) throws(SQLiteError) {
        try flush()
        try conn.statement("UPDATE alerts SET escalated_at = ? WHERE id = ?").run([.integer(StoreCoding.millis(at)), .text(alert.rawValue)])
    }

    mutating func setEscalation(_ alert: AlertID, _ escalation: Escalation?, createdAt: Date) throws(SQLiteError) {
        try flush()
        let escalates = StoreCoding.followedEscalationColumns(escalation, created: StoreCoding.millis(createdAt))
        try conn.statement("""
            UPDATE alerts SET escalate_at = ?, escalate_to = ?, escalate_follow_ups = ? WHERE id = ? AND escalated_at IS NULL
            """).run([.optional(escalates.at), .optional(escalates.to), .optional(escalates.followUps), .text(alert.rawValue)])
    }

    mutating func recordRepeat(_ alert: AlertID, at: Date, resolvesAt: Date?, spec: AlertSpec?) throws(SQLiteError) {
        try flush()
        try conn.statement("""
            UPDATE alerts SET repeat_count = repeat_count + 1, last_seen_at = ?1,
            resolves_at = CASE WHEN ?3 IS NULL THEN COALESCE(?2, resolves_at) ELSE ?2 END,
            spec = COALESCE(?3, spec), severity = COALESCE(?4, severity) WHERE id = ?5 AND state = 'open'
            """).run([.integer(StoreCoding.millis(at)), .optional(resolvesAt.map(StoreCoding.millis)),
                      .optional(spec.map(StoreCoding.encodeSpec)), .optional(spec?.severity.rawValue), .text(alert.rawValue)])
    }

    mutating func insert(_ d: DeliveryRecord) throws(SQLiteError) {
        let at = StoreCoding.millis(d.createdAt)
        rows.addDelivery([.text(d.id.rawValue), .text(d.alertID.rawValue), .text(d.kind.name), .text(d.kind.category),
                           .text(d.state.rawValue), .integer(Int64(d.attempts)), .optional(d.nextAttemptAt.map(StoreCoding.millis)),
                           .integer(at), .integer(StoreCoding.millis(d.updatedAt)), .optional(d.followUpOf?.rawValue),
                           .integer(d.takesFollowUp ? 1 : 0)])
        moves.added(to: d.state)
    }

    mutating func delivery(_ id: DeliveryID) throws(SQLiteError) -> DeliveryRecord? {
        try flush()
        return try conn.statement("SELECT \(StoreCoding.deliveryColumns) FROM deliveries WHERE id = ?")
            .query([.text(id.rawValue)], StoreCoding.delivery).first
    }

    mutating func deliveries(of alert: AlertID) throws(SQLiteError) -> [DeliveryRecord] {
        try flush()
        return try conn.statement("SELECT \(StoreCoding.deliveryColumns) FROM deliveries WHERE alert_id = ? ORDER BY id")
            .query([.text(alert.rawValue)], StoreCoding.delivery)
    }

    mutating func silence(_ id: SilenceID) throws(SQLiteError) -> Silence? {
        try flush()
        return try conn.statement("SELECT \(StoreCoding.silenceColumns) FROM silences WHERE id = ?")
            .query([.text(id.rawValue)]) { StoreCoding.SilenceRow($0) }.first.map(StoreCoding.silence) ?? nil
    }

    /// Every open alert, for inhibition: few while nothing is on fire.
    mutating func openAlerts() throws(SQLiteError) -> [Alert] {
        try openAlerts { _ in true }
    }

    /// The open alerts `keep` keeps, each decoded as its row is read: with
    /// hundreds of thousands open, only those kept are held at once.
    mutating func openAlerts(where keep: (Alert) -> Bool) throws(SQLiteError) -> [Alert] {
        try flush()
        return try conn.statement("SELECT \(StoreCoding.alertColumns) FROM alerts WHERE state = 'open'").query([]) { row -> Alert? in
            guard let alert = try? StoreCoding.openAlert(StoreCoding.AlertRow(row)), keep(alert) else { return nil }
            return alert
        }.compactMap { $0 }
    }

    /// The inhibitions in force under `rules`: from the store's kept
    /// sources when the transaction has them, else from every open alert.
    mutating func inhibitions(under rules: [InhibitRule]) throws(SQLiteError) -> Inhibitions {
        guard let sources else { return try inhibitionsOfEveryOpenAlert(under: rules) }
        return try sources.inhibitions(under: rules, in: &self)
    }

    /// The silences active at `now`, which screen every claim. Silences
    /// only, so no held row need be written first (nor in ``hasSilence(endingAfter:)``).
    mutating func activeSilences(at now: Date) throws(SQLiteError) -> [Silence] {
        let ms = StoreCoding.millis(now)
        return try conn.statement("SELECT \(StoreCoding.silenceColumns) FROM silences WHERE ends_at > ? AND starts_at <= ?")
            .query([.integer(ms), .integer(ms)]) { StoreCoding.SilenceRow($0) }.compactMap(StoreCoding.silence)
    }

    /// One writer: nothing changes a silence while a screening runs. The
    /// store's filing when the transaction has it, else read now.
    mutating func screeningSilences(at now: Date) throws(SQLiteError) -> SilenceIndex {
        guard let silences else { return SilenceIndex(try unexpiredSilences(at: now), at: now) }
        return try silences.silences(at: now, in: &self)
    }

    mutating func unexpiredSilences(at now: Date) throws(SQLiteError) -> [Silence] {
        try conn.statement("SELECT \(StoreCoding.silenceColumns) FROM silences WHERE ends_at > ?")
            .query([.integer(StoreCoding.millis(now))]) { StoreCoding.SilenceRow($0) }.compactMap(StoreCoding.silence)
    }

    mutating func hasSilence(endingAfter now: Date) throws(SQLiteError) -> Bool {
        try !conn.statement("SELECT 1 FROM silences WHERE ends_at > ? LIMIT 1").query([.integer(StoreCoding.millis(now))]) { _ in () }.isEmpty
    }

    /// The store's budget when the transaction has it, else read now.
    mutating func silenceStepsInForce(saving new: Silence?, replacing replaced: SilenceID?, at now: Date) throws(SQLiteError) -> Int {
        guard let silences else { return SilenceBudget.steps(of: try unexpiredSilences(at: now), at: now, saving: new, replacing: replaced) }
        return try silences.stepsInForce(saving: new, replacing: replaced, at: now, in: &self)
    }

    mutating func save(_ s: Silence) throws(SQLiteError) {
        try flush()
        let conn = conn
        let write = { () throws(SQLiteError) in
            try conn.statement("""
                INSERT OR REPLACE INTO silences (id, matchers, starts_at, ends_at, created_by, comment, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """).run([.text(s.id.rawValue), .text(StoreCoding.encodeMatchers(s.matchers)), .integer(StoreCoding.millis(s.startsAt)),
                          .integer(StoreCoding.millis(s.endsAt)), .text(s.createdBy), .text(s.comment), .integer(StoreCoding.millis(s.updatedAt))])
        }
        guard let silences else { return try write() }
        try silences.saving(s, in: conn, write)
    }

    /// Screening happens as a pending delivery is claimed: it stays pending.
    mutating func hold(_ delivery: DeliveryID, until: Date, by silence: SilenceID, at now: Date) throws(SQLiteError) {
        try flush()
        try conn.statement("""
            UPDATE deliveries SET next_attempt_at = ?, silenced_by = ?, updated_at = ? WHERE id = ? AND state = 'pending'
            """).run([.integer(StoreCoding.millis(until)), .text(silence.rawValue), .integer(StoreCoding.millis(now)), .text(delivery.rawValue)])
    }

    mutating func withhold(_ delivery: DeliveryID, by silence: SilenceID, at now: Date) throws(SQLiteError) {
        try flush()
        try conn.statement("""
            UPDATE deliveries SET state = 'silenced', next_attempt_at = NULL, silenced_by = ?, updated_at = ? WHERE id = ? AND state = 'pending'
            """).run([.text(silence.rawValue), .integer(StoreCoding.millis(now)), .text(delivery.rawValue)])
        moves.moved(conn.changes, from: .pending, to: .silenced)
    }

    mutating func release(heldBy silence: SilenceID, at now: Date) throws(SQLiteError) {
        try flush()
        try conn.statement("""
            UPDATE deliveries SET next_attempt_at = ?1, updated_at = ?1
            WHERE silenced_by = ?2 AND state = 'pending' AND next_attempt_at > ?1
            """).run([.integer(StoreCoding.millis(now)), .text(silence.rawValue)])
    }

    mutating func releaseInhibited(at now: Date) throws(SQLiteError) {
        try flush()
        try conn.statement("""
            UPDATE deliveries SET next_attempt_at = ?1, updated_at = ?1
            WHERE substr(silenced_by, 1, ?2) = ?3 AND state = 'pending' AND next_attempt_at > ?1
            """).run([.integer(StoreCoding.millis(now)), .integer(Int64(SilenceID.inhibitionPrefix.utf8.count)),
                      .text(SilenceID.inhibitionPrefix)])
    }

    mutating func append(_ kind: EventKind, alert: AlertID, at: Date, data: [String: String]) throws(SQLiteError) {
        rows.addEvent([.text(kind.rawValue), .text(alert.rawValue), .integer(StoreCoding.millis(at)), data.isEmpty ? .null : .text(StoreCoding.json(data))])
    }

    mutating func group(_ id: AlertGroupID) throws(SQLiteError) -> AlertGroup? {
        if let seen = groupsSeen[id] { return seen }
        try flush()
        guard let row = try conn.statement("SELECT \(StoreCoding.groupColumns) FROM alert_groups WHERE id = ?")
            .query([.text(id.rawValue)], { Self.groupRow($0) }).first else {
            groupsSeen[id] = .some(nil)
            return nil
        }
        do {
            let group = try StoreCoding.group(row)
            groupsSeen[id] = group
            return group
        } catch {
            throw .corrupt(error.message, context: "read group \(id)")
        }
    }

    static func groupRow(_ r: SQLiteRow) -> StoreCoding.GroupRow {
        StoreCoding.GroupRow(id: r.text(0), route: r.text(1), labels: r.text(2), settings: r.text(3), created: r.int(4),
                             nextDue: r.int(5), notified: r.optionalInt(6))
    }

    mutating func save(_ g: AlertGroup) throws(SQLiteError) {
        try flush()
        try conn.statement("""
            INSERT OR REPLACE INTO alert_groups (id, route, labels, settings, created_at, next_due_at, notified_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """).run([.text(g.id.rawValue), .text(g.route), .text(StoreCoding.encodeLabels(g.labels)),
                      .text(StoreCoding.encodeSettings(g.settings)), .integer(StoreCoding.millis(g.createdAt)),
                      .integer(StoreCoding.millis(g.nextDueAt)), .optional(g.notifiedAt.map(StoreCoding.millis))])
        // Read again as stored (its times to the millisecond), once.
        groupsSeen[g.id] = nil
    }

    mutating func deleteGroup(_ id: AlertGroupID) throws(SQLiteError) {
        try flush()
        for table in ["group_members", "group_told"] {
            try conn.statement("DELETE FROM \(table) WHERE group_id = ?").run([.text(id.rawValue)])
        }
        try conn.statement("DELETE FROM alert_groups WHERE id = ?").run([.text(id.rawValue)])
        groupsSeen[id] = .some(nil)
    }

    mutating func addMember(_ alert: AlertID, to group: AlertGroupID) throws(SQLiteError) {
        // No flush: the member row refers to no held row (no foreign key),
        // and flushed at each member, a batch's alerts were written one by one.
        try conn.statement("INSERT OR IGNORE INTO group_members (group_id, alert_id) VALUES (?, ?)")
            .run([.text(group.rawValue), .text(alert.rawValue)])
    }

    mutating func removeMember(_ alert: AlertID, from group: AlertGroupID) throws(SQLiteError) {
        try flush()
        try conn.statement("DELETE FROM group_members WHERE group_id = ? AND alert_id = ?").run([.text(group.rawValue), .text(alert.rawValue)])
    }

    mutating func members(of group: AlertGroupID) throws(SQLiteError) -> [AlertID] {
        try flush()
        return try conn.statement("SELECT alert_id FROM group_members WHERE group_id = ?")
            .query([.text(group.rawValue)]) { AlertID(trusted: $0.text(0)) }
    }

    /// In one statement, each spec decoded once per distinct stored text
    /// (``StoredSpecs``): a big group's every flush reads all its members.
    mutating func memberAlerts(of group: AlertGroupID) throws(SQLiteError) -> [Alert] {
        try flush()
        let rows = try conn.statement(
            "SELECT \(StoreCoding.alertColumns) FROM alerts WHERE id IN (SELECT alert_id FROM group_members WHERE group_id = ?)"
        ).query([.text(group.rawValue)]) { StoreCoding.AlertRow($0) }
        do {
            return try rows.map { row throws(StoreError) in try StoreCoding.openAlert(row) }.sorted(by: Alert.oldestFirst)
        } catch {
            throw .corrupt(error.message, context: "read the members of group \(group)")
        }
    }

    mutating func groups(containing alert: AlertID) throws(SQLiteError) -> [AlertGroupID] {
        try flush()
        return try conn.statement("SELECT group_id FROM group_members WHERE alert_id = ? ORDER BY group_id")
            .query([.text(alert.rawValue)]) { AlertGroupID(trusted: $0.text(0)) }
    }

    mutating func told(about group: AlertGroupID) throws(SQLiteError) -> [AlertGroupTold] {
        try flush()
        return try conn.statement("SELECT presenter, sequence, alerts, at, thread, believed FROM group_told WHERE group_id = ?")
            .query([.text(group.rawValue)]) {
                AlertGroupTold(presenter: $0.text(0), sequence: Int($0.int(1)), alerts: StoreCoding.decodeAlertIDs($0.text(2)),
                               at: StoreCoding.date($0.int(3)), thread: $0.optionalText(4),
                               believed: $0.optionalText(5).map(StoreCoding.decodeAlertIDs) ?? [])
            }
    }

    mutating func save(_ told: AlertGroupTold, about group: AlertGroupID) throws(SQLiteError) {
        try flush()
        try conn.statement("""
            INSERT OR REPLACE INTO group_told (group_id, presenter, sequence, alerts, at, thread, believed) VALUES (?, ?, ?, ?, ?, ?, ?)
            """).run([.text(group.rawValue), .text(told.presenter), .integer(Int64(told.sequence)),
                      .text(StoreCoding.encodeAlertIDs(told.alerts)), .integer(StoreCoding.millis(told.at)), .optional(told.thread),
                      .optional(told.believed.isEmpty ? nil : StoreCoding.encodeAlertIDs(told.believed))])
    }

    mutating func insert(_ delivery: DeliveryRecord, snapshot: GroupSnapshot.Encoded) throws(SQLiteError) {
        try insert(delivery)
        try flush()
        try conn.statement("INSERT OR REPLACE INTO group_snapshots (delivery_id, snapshot) VALUES (?, ?)")
            .run([.text(delivery.id.rawValue), .text(snapshot.text)])
        snapshots?.keep(snapshot.value, for: delivery.id)
        if let previous = delivery.id.previousGroupNotification {
            try conn.statement("DELETE FROM group_snapshots WHERE delivery_id = ?").run([.text(previous.rawValue)])
            snapshots?.forget(previous)
        }
    }

    /// A group notification's stored snapshot: the value its flush made, if
    /// still kept, else its text, for the caller to decode once the writer
    /// is free (decoding a big group's took a quarter of the writer's time
    /// while a grouped storm went on).
    mutating func snapshot(_ delivery: DeliveryID) throws(SQLiteError) -> StoredSnapshot? {
        guard delivery.groupNotification != nil else { return nil }
        if let kept = snapshots?.take(delivery) { return .kept(kept) }
        try flush()
        return try conn.statement("SELECT snapshot FROM group_snapshots WHERE delivery_id = ?")
            .query([.text(delivery.rawValue)]) { $0.text(0) }.first.map(StoredSnapshot.text)
    }
}

import FoundationEssentials
import AlertModel
import AlertdPostgres
import AlertdStore

/// ``StoreTransaction`` inside one write transaction of the committer: the
/// SQL for each primitive, and nothing of the rules. Reads of an alert lock
/// its row (`FOR UPDATE`), so two nodes deciding on it at once take turns
/// and the second sees the first's decision.
struct PostgresStoreTransaction: StoreTransaction {
    typealias Failure = PostgresError

    let session: PostgresWriteSession
    var conn: PostgresConnection { session.conn }

    func openAlert(dedupKey: String) throws(PostgresError) -> AlertID? {
        try conn.query("SELECT id FROM alerts WHERE dedup_key = $1 AND state = 'open'", [.text(dedupKey)])
            .rows.first.map { AlertID(trusted: $0.text(0)) }
    }

    func alert(_ id: AlertID) throws(PostgresError) -> Alert? {
        guard let row = try conn.query("SELECT \(StoreCoding.alertColumns) FROM alerts WHERE id = $1 FOR UPDATE", [.text(id.rawValue)])
            .rows.first else { return nil }
        do {
            return try StoreCoding.alert(StoreCoding.AlertRow(row))
        } catch {
            throw PostgresError(sqlState: "XX001", message: error.message, context: "read alert \(id)", connectionLost: false)
        }
    }

    func alertState(_ id: AlertID) throws(PostgresError) -> AlertState? {
        // Locked as alert(_:) locks it, so a rule reading the state is ordered against a close.
        guard let text = try conn.query("SELECT state FROM alerts WHERE id = $1 FOR UPDATE", [.text(id.rawValue)])
            .rows.first?.text(0) else { return nil }
        guard let state = AlertState(rawValue: text) else {
            throw PostgresError(sqlState: "XX001", message: "unknown alert state \"\(text)\"", context: "read alert \(id)", connectionLost: false)
        }
        return state
    }

    func insert(_ alert: Alert, escalation: Escalation?) throws(PostgresError) {
        let created = StoreCoding.millis(alert.createdAt)
        let escalates = StoreCoding.escalationColumns(escalation, created: created)
        try conn.query("""
            INSERT INTO alerts (id, spec, state, severity, dedup_key, created_at, updated_at, expires_at, escalate_at, escalate_to,
                                escalate_follow_ups, resolves_at)
            VALUES ($1, $2, 'open', $3, $4, $5, $5, $6, $7, $8, $9, $10)
            """, [
                .text(alert.id.rawValue), .text(StoreCoding.encodeSpec(alert.spec)), .text(alert.spec.severity.rawValue),
                .optional(alert.spec.dedupKey), .integer(created), .optional(alert.expiresAt.map(StoreCoding.millis)),
                .optional(escalates.at), .optional(escalates.to), .optional(escalates.followUps),
                .optional(alert.resolvesAt.map(StoreCoding.millis)),
            ])
    }

    func close(_ alert: Alert) throws(PostgresError) {
        try conn.query("""
            UPDATE alerts SET state = $1, decided_by = $2, decided_at = $3, comment = $4, decided_recipient = $5, updated_at = $6
            WHERE id = $7
            """, [
            .text(alert.state.rawValue), .optional(alert.decision?.actor), .optional(alert.decision.map { StoreCoding.millis($0.at) }),
            .optional(alert.decision?.comment), .optional(alert.decision?.recipient), .integer(StoreCoding.millis(alert.updatedAt)),
            .text(alert.id.rawValue),
        ])
    }

    func markEscalated(_ alert: AlertID, at: Date) throws(PostgresError) {
        try conn.query("UPDATE alerts SET escalated_at = $1 WHERE id = $2", [.integer(StoreCoding.millis(at)), .text(alert.rawValue)])
    }

    func setEscalation(_ alert: AlertID, _ escalation: Escalation?, createdAt: Date) throws(PostgresError) {
        let escalates = StoreCoding.followedEscalationColumns(escalation, created: StoreCoding.millis(createdAt))
        try conn.query("""
            UPDATE alerts SET escalate_at = $1, escalate_to = $2, escalate_follow_ups = $3 WHERE id = $4 AND escalated_at IS NULL
            """, [.optional(escalates.at), .optional(escalates.to), .optional(escalates.followUps), .text(alert.rawValue)])
    }

    func recordRepeat(_ alert: AlertID, at: Date, resolvesAt: Date?, spec: AlertSpec?) throws(PostgresError) {
        try conn.query("""
            UPDATE alerts SET repeat_count = repeat_count + 1, last_seen_at = $1,
            resolves_at = CASE WHEN $3::text IS NULL THEN COALESCE($2::bigint, resolves_at) ELSE $2::bigint END,
            spec = COALESCE($3::text, spec), severity = COALESCE($4::text, severity) WHERE id = $5 AND state = 'open'
            """, [.integer(StoreCoding.millis(at)), .optional(resolvesAt.map(StoreCoding.millis)),
                  .optional(spec.map(StoreCoding.encodeSpec)), .optional(spec?.severity.rawValue), .text(alert.rawValue)])
    }

    func delivery(_ id: DeliveryID) throws(PostgresError) -> DeliveryRecord? {
        try conn.query("SELECT \(StoreCoding.deliveryColumns) FROM deliveries WHERE id = $1", [.text(id.rawValue)])
            .rows.first.map(StoreCoding.delivery)
    }

    func deliveries(of alert: AlertID) throws(PostgresError) -> [DeliveryRecord] {
        try conn.query("SELECT \(StoreCoding.deliveryColumns) FROM deliveries WHERE alert_id = $1 ORDER BY id", [.text(alert.rawValue)])
            .rows.map(StoreCoding.delivery)
    }

    func insert(_ d: DeliveryRecord) throws(PostgresError) {
        let at = StoreCoding.millis(d.createdAt)
        try conn.query("""
            INSERT INTO deliveries (id, alert_id, presenter, kind, state, next_attempt_at, created_at, updated_at, follow_up_of, takes_follow_up)
            VALUES ($1, $2, $3, $4, 'pending', $5, $6, $6, $7, $8)
            """, [.text(d.id.rawValue), .text(d.alertID.rawValue), .text(d.kind.name), .text(d.kind.category),
                  .optional(d.nextAttemptAt.map(StoreCoding.millis)), .integer(at), .optional(d.followUpOf?.rawValue),
                  .text(d.takesFollowUp ? "true" : "false")])
        // New work: the other nodes' dispatchers may take it.
        session.notifyOthers()
    }

    func append(_ kind: EventKind, alert: AlertID, at: Date, data: [String: String]) throws(PostgresError) {
        try session.lockEvents()
        try conn.query("INSERT INTO events (type, alert_id, at, data) VALUES ($1, $2, $3, $4)", [
            .text(kind.rawValue), .text(alert.rawValue), .integer(StoreCoding.millis(at)), data.isEmpty ? .null : .text(StoreCoding.json(data)),
        ])
    }

    func silence(_ id: SilenceID) throws(PostgresError) -> Silence? {
        try conn.query("SELECT \(StoreCoding.silenceColumns) FROM silences WHERE id = $1", [.text(id.rawValue)])
            .rows.first.flatMap { StoreCoding.silence(StoreCoding.SilenceRow($0)) }
    }

    /// Every open alert, for inhibition: few while nothing is on fire.
    func openAlerts() throws(PostgresError) -> [Alert] {
        try conn.query("SELECT \(StoreCoding.alertColumns) FROM alerts WHERE state = 'open'")
            .rows.compactMap { try? StoreCoding.openAlert(StoreCoding.AlertRow($0)) }
    }

    /// The inhibitions in force under `rules`, from the open alerts that
    /// may be their sources: those with some rule's ``InhibitRule/sourceLabels``,
    /// found by the server, not every open alert sent over and decoded for
    /// each claim. Every open alert only when a rule has no such labels.
    mutating func inhibitions(under rules: [InhibitRule]) throws(PostgresError) -> Inhibitions {
        guard !rules.isEmpty else { return .none }
        var any: [String] = []
        var args: [PostgresValue] = []
        for rule in rules {
            let labels = rule.sourceLabels
            guard !labels.isEmpty else { return try inhibitionsOfEveryOpenAlert(under: rules) }
            any.append("(" + labels.map { PostgresSchema.hasLabel($0.name, $0.value, args: &args) }.joined(separator: " AND ") + ")")
        }
        // In one order, as ties between sources are broken by it.
        let rows = try conn.query("SELECT \(StoreCoding.alertColumns) FROM alerts WHERE state = 'open' AND (\(any.joined(separator: " OR "))) ORDER BY created_at, id", args).rows
        return Inhibitions(rules: rules, openAlerts: rows.compactMap { try? StoreCoding.openAlert(StoreCoding.AlertRow($0)) })
    }

    /// The silences active at `now`, locked (`FOR SHARE`) until the
    /// transaction commits, as ``screeningSilences(at:)`` are.
    func activeSilences(at now: Date) throws(PostgresError) -> [Silence] {
        let ms = StoreCoding.millis(now)
        return try conn.query("SELECT \(StoreCoding.silenceColumns) FROM silences WHERE ends_at > $1 AND starts_at <= $1 FOR SHARE",
                              [.integer(ms)])
            .rows.compactMap { StoreCoding.silence(StoreCoding.SilenceRow($0)) }
    }

    /// The silences not yet expired, which screen every claim and flush,
    /// locked (`FOR SHARE`) until that commits: a silence another node
    /// expired meanwhile released nothing (the hold was not written yet),
    /// and the hold then kept the delivery back until the silence's old
    /// end. Expiring or changing one now waits for the screening to
    /// commit, then releases what it held.
    func screeningSilences(at now: Date) throws(PostgresError) -> SilenceIndex {
        let silences = try conn.query("SELECT \(StoreCoding.silenceColumns) FROM silences WHERE ends_at > $1 FOR SHARE", [.integer(StoreCoding.millis(now))])
            .rows.compactMap { StoreCoding.silence(StoreCoding.SilenceRow($0)) }
        return SilenceIndex(silences, at: now)
    }

    func unexpiredSilences(at now: Date) throws(PostgresError) -> [Silence] {
        try conn.query("SELECT \(StoreCoding.silenceColumns) FROM silences WHERE ends_at > $1", [.integer(StoreCoding.millis(now))])
            .rows.compactMap { StoreCoding.silence(StoreCoding.SilenceRow($0)) }
    }

    func hasSilence(endingAfter now: Date) throws(PostgresError) -> Bool {
        try !conn.query("SELECT 1 FROM silences WHERE ends_at > $1 LIMIT 1", [.integer(StoreCoding.millis(now))]).rows.isEmpty
    }

    func save(_ s: Silence) throws(PostgresError) {
        try conn.query("""
            INSERT INTO silences (id, matchers, starts_at, ends_at, created_by, comment, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (id) DO UPDATE SET matchers = excluded.matchers, starts_at = excluded.starts_at, ends_at = excluded.ends_at,
                created_by = excluded.created_by, comment = excluded.comment, updated_at = excluded.updated_at
            """, [.text(s.id.rawValue), .text(StoreCoding.encodeMatchers(s.matchers)), .integer(StoreCoding.millis(s.startsAt)),
                  .integer(StoreCoding.millis(s.endsAt)), .text(s.createdBy), .text(s.comment), .integer(StoreCoding.millis(s.updatedAt))])
    }

    func hold(_ delivery: DeliveryID, until: Date, by silence: SilenceID, at now: Date) throws(PostgresError) {
        try countFirstSilencing(delivery)
        try conn.query("UPDATE deliveries SET state = 'pending', next_attempt_at = $1, silenced_by = $2, updated_at = $3 WHERE id = $4", [
            .integer(StoreCoding.millis(until)), .text(silence.rawValue), .integer(StoreCoding.millis(now)), .text(delivery.rawValue),
        ])
    }

    func withhold(_ delivery: DeliveryID, by silence: SilenceID, at now: Date) throws(PostgresError) {
        try countFirstSilencing(delivery)
        try conn.query("UPDATE deliveries SET state = 'silenced', next_attempt_at = NULL, silenced_by = $1, updated_at = $2 WHERE id = $3", [
            .text(silence.rawValue), .integer(StoreCoding.millis(now)), .text(delivery.rawValue),
        ])
    }

    /// Counts a delivery in ``StoreCounts/silencedDeliveries`` the first time a silence holds it.
    private func countFirstSilencing(_ delivery: DeliveryID) throws(PostgresError) {
        try conn.query("""
            UPDATE counters SET value = value + 1 WHERE name = 'deliveries.silenced_total'
            AND EXISTS (SELECT 1 FROM deliveries WHERE id = $1 AND silenced_by IS NULL)
            """, [.text(delivery.rawValue)])
    }

    func release(heldBy silence: SilenceID, at now: Date) throws(PostgresError) {
        let released = try conn.query("""
            UPDATE deliveries SET next_attempt_at = $1, updated_at = $1
            WHERE silenced_by = $2 AND state = 'pending' AND next_attempt_at > $1
            """, [.integer(StoreCoding.millis(now)), .text(silence.rawValue)])
        if released.affected > 0 { session.notifyOthers() }
    }

    func releaseInhibited(at now: Date) throws(PostgresError) {
        let released = try conn.query("""
            UPDATE deliveries SET next_attempt_at = $1, updated_at = $1
            WHERE starts_with(silenced_by, $2) AND state = 'pending' AND next_attempt_at > $1
            """, [.integer(StoreCoding.millis(now)), .text(SilenceID.inhibitionPrefix)])
        if released.affected > 0 { session.notifyOthers() }
    }

    /// Locks the group's row, so a flush on one node and a member closing
    /// on another take turns.
    func group(_ id: AlertGroupID) throws(PostgresError) -> AlertGroup? {
        guard let row = try conn.query("SELECT \(StoreCoding.groupColumns) FROM alert_groups WHERE id = $1 FOR UPDATE", [.text(id.rawValue)])
            .rows.first else { return nil }
        do {
            return try StoreCoding.group(StoreCoding.GroupRow(row))
        } catch {
            throw PostgresError(sqlState: "XX001", message: error.message, context: "read group \(id)", connectionLost: false)
        }
    }

    func save(_ g: AlertGroup) throws(PostgresError) {
        try conn.query("""
            INSERT INTO alert_groups (id, route, labels, settings, created_at, next_due_at, notified_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (id) DO UPDATE SET route = excluded.route, labels = excluded.labels, settings = excluded.settings,
                created_at = excluded.created_at, next_due_at = excluded.next_due_at, notified_at = excluded.notified_at
            """, [.text(g.id.rawValue), .text(g.route), .text(StoreCoding.encodeLabels(g.labels)), .text(StoreCoding.encodeSettings(g.settings)),
                  .integer(StoreCoding.millis(g.createdAt)), .integer(StoreCoding.millis(g.nextDueAt)),
                  .optional(g.notifiedAt.map(StoreCoding.millis))])
    }

    func deleteGroup(_ id: AlertGroupID) throws(PostgresError) {
        try conn.query("DELETE FROM group_members WHERE group_id = $1", [.text(id.rawValue)])
        try conn.query("DELETE FROM group_told WHERE group_id = $1", [.text(id.rawValue)])
        try conn.query("DELETE FROM alert_groups WHERE id = $1", [.text(id.rawValue)])
    }

    func addMember(_ alert: AlertID, to group: AlertGroupID) throws(PostgresError) {
        try conn.query("INSERT INTO group_members (group_id, alert_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                       [.text(group.rawValue), .text(alert.rawValue)])
    }

    func removeMember(_ alert: AlertID, from group: AlertGroupID) throws(PostgresError) {
        try conn.query("DELETE FROM group_members WHERE group_id = $1 AND alert_id = $2", [.text(group.rawValue), .text(alert.rawValue)])
    }

    func members(of group: AlertGroupID) throws(PostgresError) -> [AlertID] {
        try conn.query("SELECT alert_id FROM group_members WHERE group_id = $1", [.text(group.rawValue)])
            .rows.map { AlertID(trusted: $0.text(0)) }
    }

    /// In one round trip, locked as ``alert(_:)`` locks each: a big
    /// group's every flush reads all its members.
    func memberAlerts(of group: AlertGroupID) throws(PostgresError) -> [Alert] {
        let rows = try conn.query(
            "SELECT \(StoreCoding.alertColumns) FROM alerts WHERE id IN (SELECT alert_id FROM group_members WHERE group_id = $1) FOR UPDATE",
            [.text(group.rawValue)]).rows
        do {
            return try rows.map { row throws(StoreError) in try StoreCoding.openAlert(StoreCoding.AlertRow(row)) }.sorted(by: Alert.oldestFirst)
        } catch {
            throw PostgresError(sqlState: "XX001", message: error.message, context: "read the members of group \(group)", connectionLost: false)
        }
    }

    func groups(containing alert: AlertID) throws(PostgresError) -> [AlertGroupID] {
        try conn.query("SELECT group_id FROM group_members WHERE alert_id = $1 ORDER BY group_id", [.text(alert.rawValue)])
            .rows.map { AlertGroupID(trusted: $0.text(0)) }
    }

    func told(about group: AlertGroupID) throws(PostgresError) -> [AlertGroupTold] {
        try conn.query("SELECT presenter, sequence, alerts, at, thread, believed FROM group_told WHERE group_id = $1",
                       [.text(group.rawValue)])
            .rows.map {
                AlertGroupTold(presenter: $0.text(0), sequence: Int($0.int(1)), alerts: StoreCoding.decodeAlertIDs($0.text(2)),
                               at: StoreCoding.date($0.int(3)), thread: $0.optionalText(4),
                               believed: $0.optionalText(5).map(StoreCoding.decodeAlertIDs) ?? [])
            }
    }

    func save(_ told: AlertGroupTold, about group: AlertGroupID) throws(PostgresError) {
        try conn.query("""
            INSERT INTO group_told (group_id, presenter, sequence, alerts, at, thread, believed) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (group_id, presenter) DO UPDATE SET sequence = excluded.sequence, alerts = excluded.alerts, at = excluded.at,
                thread = excluded.thread, believed = excluded.believed
            """, [.text(group.rawValue), .text(told.presenter), .integer(Int64(told.sequence)), .text(StoreCoding.encodeAlertIDs(told.alerts)),
                  .integer(StoreCoding.millis(told.at)), .optional(told.thread),
                  .optional(told.believed.isEmpty ? nil : StoreCoding.encodeAlertIDs(told.believed))])
    }

    func insert(_ delivery: DeliveryRecord, snapshot: GroupSnapshot.Encoded) throws(PostgresError) {
        try insert(delivery)
        try conn.query("UPDATE deliveries SET group_snapshot = $1 WHERE id = $2", [.text(snapshot.text), .text(delivery.id.rawValue)])
        if let previous = delivery.id.previousGroupNotification {
            try conn.query("UPDATE deliveries SET group_snapshot = NULL WHERE id = $1 AND group_snapshot IS NOT NULL", [.text(previous.rawValue)])
        }
    }
}

extension StoreCoding.GroupRow {
    /// The columns of ``StoreCoding/groupColumns``.
    init(_ row: PostgresRow) {
        self.init(id: row.text(0), route: row.text(1), labels: row.text(2), settings: row.text(3), created: row.int(4),
                  nextDue: row.int(5), notified: row.optionalInt(6))
    }
}

extension StoreCoding.AlertRow {
    /// The columns of ``StoreCoding/alertColumns``, from `column` on.
    init(_ row: PostgresRow, from column: Int = 0) {
        self.init(id: row.text(column), spec: row.text(column + 1), state: row.text(column + 2), created: row.int(column + 3),
                  updated: row.int(column + 4), decidedBy: row.optionalText(column + 5), decidedAt: row.optionalInt(column + 6),
                  comment: row.optionalText(column + 7), resolvesAt: row.optionalInt(column + 8),
                  repeatCount: row.int(column + 9), lastSeenAt: row.optionalInt(column + 10),
                  decidedRecipient: row.optionalText(column + 11))
    }
}

extension StoreCoding.SilenceRow {
    /// The columns of ``StoreCoding/silenceColumns``.
    init(_ row: PostgresRow) {
        self.init(id: row.text(0), matchers: row.text(1), starts: row.int(2), ends: row.int(3), createdBy: row.text(4),
                  comment: row.text(5), updated: row.int(6))
    }
}

extension StoreCoding {
    /// One delivery from a row of ``StoreCoding/deliveryColumns``.
    static func delivery(_ row: PostgresRow) -> DeliveryRecord {
        delivery(id: row.text(0), alertID: row.text(1), presenter: row.text(2), category: row.text(3), state: row.text(4),
                 attempts: row.int(5), nextAttemptAt: row.optionalInt(6), lastError: row.optionalText(7), createdAt: row.int(8),
                 updatedAt: row.int(9), deliveredAt: row.optionalInt(10), silencedBy: row.optionalText(11),
                 followUpOf: row.optionalText(12), takesFollowUp: row.bool(13))
    }
}

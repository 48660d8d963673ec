import FoundationEssentials
import AlertModel
import AlertdPostgres
import AlertdStore

extension PostgresAlertStore {
    /// How long a node's word that it has a presenter holds: nodes renew
    /// it at each orphan sweep (some every ten seconds), so a node gone
    /// this long has stopped, and its presenters are no longer anyone's
    /// unless another node has them.
    static let presenterWordLifetime: Duration = .seconds(60)

    /// Each due delivery is claimed by one node: `FOR UPDATE SKIP LOCKED`
    /// passes over rows another node is claiming right now, and the claim
    /// names this node and starts its lease (`updated_at`), which
    /// ``releaseStaleClaims(claimedBefore:keeping:now:)`` renews while the
    /// delivery runs.
    public func claimDueDeliveries(now: Date, capacity: [DeliveryKind: Int], orphanLimit: Int,
                                   inhibitRules: [InhibitRule]) async throws(StoreError) -> [ClaimedDelivery] {
        let nowMs = StoreCoding.millis(now)
        let node = self.node
        let rows: [(DeliveryRecord, StoreCoding.AlertRow)] = try await writer.write(durable: false) { session throws(PostgresError) in
            let conn = session.conn
            // A delivery a silence or an inhibition holds leaves the due set but
            // took a row of the page: pages are read again for the room it left,
            // as the SQLite store does (see there).
            // Rows taken stay pending (and locked) until the claim below, so
            // a page read again returns them first: each page asks for them too.
            var claimable: [String] = []
            var room = capacity
            let names = capacity.keys.map(\.name)
            if orphanLimit > 0 {
                // This node's presenters, said before it looks for orphans: nodes
                // share the queue, and one reloaded without a presenter in a
                // rolling change made every other node's deliveries for it dead.
                try conn.query("DELETE FROM node_presenters WHERE node = $1 AND presenter <> ALL($2::text[])", [.text(node), .textArray(names)])
                try conn.query("""
                    INSERT INTO node_presenters (node, presenter, seen_at) SELECT $1, unnest($2::text[]), $3
                    ON CONFLICT (node, presenter) DO UPDATE SET seen_at = excluded.seen_at
                    """, [.text(node), .textArray(names), .integer(nowMs)])
            }
            var orphanRoom = orphanLimit
            var taken: [String: Int] = [:]
            var orphansTaken = 0
            var tx = PostgresStoreTransaction(session: session)
            // Read at the first page that screens and kept for the others: the
            // pages are one transaction, and held deliveries change no alert.
            var screening: (active: SilenceIndex, inhibitions: Inhibitions)?
            for _ in 0..<StoreRules.claimPages {
                var due: [(id: String, heldBy: String?, kind: String)] = []
                for (kind, slots) in room.sorted(by: { $0.key < $1.key }) where slots > 0 {
                    due += try conn.query("""
                        SELECT id, silenced_by, presenter FROM deliveries WHERE state = 'pending' AND presenter = $1 AND next_attempt_at <= $2
                        ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED
                        """, [.text(kind.name), .integer(nowMs), .integer(Int64(slots + taken[kind.name, default: 0]))])
                        .rows.map { ($0.text(0), $0.optionalText(1), $0.text(2)) }
                }
                if orphanRoom > 0 {
                    // Due or not (see DeliveryQueue's claim), for a presenter no
                    // live node has: not this node's may be another's.
                    due += try conn.query("""
                        SELECT id, silenced_by, presenter FROM deliveries d WHERE state = 'pending' AND presenter <> ALL($1::text[])
                        AND NOT EXISTS (SELECT 1 FROM node_presenters n WHERE n.presenter = d.presenter AND n.seen_at > $3)
                        LIMIT $2 FOR UPDATE SKIP LOCKED
                        """, [.textArray(names), .integer(Int64(orphanRoom + orphansTaken)),
                              .integer(nowMs - Int64(Self.presenterWordLifetime.milliseconds))])
                        .rows.map { ($0.text(0), $0.optionalText(1), $0.text(2)) }
                }
                let already = Set(claimable)
                due.removeAll { already.contains($0.id) }
                if due.isEmpty { break }
                if screening == nil {
                    // Reading the open alerts costs; only rules in force need it.
                    screening = (try tx.screeningSilences(at: now), try tx.inhibitions(under: inhibitRules))
                }
                guard let (active, inhibitions) = screening else { break }
                var held = 0
                for (id, heldBy, presenter) in due {
                    let known = room.keys.first(where: { $0.name == presenter })
                    // Reading the alert costs; only a silence or inhibition in play needs it. An orphan is not screened.
                    if known != nil && (!active.isEmpty || heldBy != nil || !inhibitions.sources.isEmpty) {
                        let row = try conn.query("SELECT alert_id, presenter, kind FROM deliveries WHERE id = $1", [.text(id)]).rows.first
                        if let row, let alert = try tx.alert(AlertID(trusted: row.text(0))),
                           try !StoreRules.screen(DeliveryID(rawValue: id), kind: StoreCoding.deliveryKind(category: row.text(2), name: row.text(1)),
                                                  heldBy: heldBy.map(SilenceID.init), of: alert, silences: active,
                                                  inhibitions: inhibitions, now: now, in: &tx) {
                            held += 1
                            continue
                        }
                    }
                    claimable.append(id)
                    if let kind = known {
                        room[kind, default: 0] -= 1
                        taken[presenter, default: 0] += 1
                    } else {
                        orphanRoom -= 1
                        orphansTaken += 1
                    }
                }
                if held == 0 { break }
            }
            guard !claimable.isEmpty else { return [] }
            let claimed = try conn.query("""
                UPDATE deliveries SET state = 'in_flight', attempts = attempts + 1, updated_at = \(PostgresSchema.databaseMillis(shift: "$3")),
                    claimed_by = $1, silenced_by = NULL
                WHERE id = ANY($2::text[]) AND state = 'pending'
                RETURNING id, alert_id, presenter, kind, attempts, last_error, created_at, silenced_by, follow_up_of, takes_follow_up
                """, [.text(node), .textArray(claimable), PostgresSchema.shift(now)]).rows.map { row in
                StoreCoding.claimedDelivery(id: row.text(0), alertID: row.text(1), presenter: row.text(2), category: row.text(3),
                                            attempts: row.int(4), lastError: row.optionalText(5), createdAt: row.int(6),
                                            silencedBy: row.optionalText(7), followUpOf: row.optionalText(8),
                                            takesFollowUp: row.bool(9), at: now)
            }
            let alertIDs = Array(Set(claimed.map(\.alertID.rawValue)))
            var alerts: [String: StoreCoding.AlertRow] = [:]
            for row in try conn.query("SELECT \(StoreCoding.alertColumns) FROM alerts WHERE id = ANY($1::text[])", [.textArray(alertIDs)]).rows {
                alerts[row.text(0)] = StoreCoding.AlertRow(row)
            }
            let order = Dictionary(uniqueKeysWithValues: claimable.enumerated().map { ($1, $0) })
            return claimed.sorted { order[$0.id.rawValue, default: 0] < order[$1.id.rawValue, default: 0] }
                .compactMap { d in alerts[d.alertID.rawValue].map { (d, $0) } }
        }
        var out: [ClaimedDelivery] = []
        var snapshots: [DeliveryID: GroupSnapshot] = [:]
        var queued: Set<DeliveryID> = []
        var formed: [String: Int64] = [:]
        let grouped = rows.map(\.0.id).filter { $0.groupNotification != nil }
        if !grouped.isEmpty {
            let (texts, later, groups) = try await pool.run("Reading group notifications") { conn throws(PostgresError) in
                (try conn.query("SELECT id, group_snapshot FROM deliveries WHERE id = ANY($1::text[])", [.textArray(grouped.map(\.rawValue))])
                    .rows.map { (DeliveryID(rawValue: $0.text(0)), $0.optionalText(1)) },
                 try conn.query("SELECT id FROM deliveries WHERE id = ANY($1::text[])",
                                [.textArray(grouped.compactMap(\.nextGroupNotification?.rawValue))])
                    .rows.map { DeliveryID(rawValue: $0.text(0)) },
                 try conn.query("SELECT id, created_at FROM alert_groups WHERE id = ANY($1::text[])",
                                [.textArray(Array(Set(grouped.compactMap { $0.groupNotification?.group.rawValue })))])
                    .rows.map { ($0.text(0), $0.int(1)) })
            }
            for ((id, _), snapshot) in zip(texts, GroupSnapshot.decodeEach(texts.map(\.1))) { snapshots[id] = snapshot }
            queued = Set(later)
            formed = Dictionary(groups) { a, _ in a }
        }
        for (delivery, row) in rows {
            let later = delivery.id.superseding(nextQueued: delivery.id.nextGroupNotification.map(queued.contains) ?? false,
                                                groupFormedAt: delivery.id.groupNotification.flatMap { formed[$0.group.rawValue] })
            out.append(ClaimedDelivery(delivery: delivery, alert: try StoreCoding.alert(row), group: snapshots[delivery.id],
                                       supersededBy: later))
        }
        return out
    }

    /// As ``claimDueDeliveries(now:capacity:orphanLimit:inhibitRules:)``
    /// claims: the claim names this node and starts its lease. A row another
    /// node is claiming right now is passed over (`SKIP LOCKED`); its claim wins.
    public func claimAccepted(_ accepted: [AcceptedDelivery], now: Date) async throws(StoreError) -> [DeliveryRecord] {
        guard !accepted.isEmpty else { return [] }
        let ids = accepted.map(\.id)
        let node = self.node
        return try await writer.write(durable: false) { session throws(PostgresError) in
            try Self.claimAccepted(ids, now: now, node: node, in: session)
        }
    }

    public func settle(_ settlements: [DeliverySettlement], thenClaim accepted: [AcceptedDelivery],
                       now: Date) async throws(StoreError) -> (queued: Int, claimed: [DeliveryRecord]) {
        guard !accepted.isEmpty else { return (try await settle(settlements), []) }
        let ids = accepted.map(\.id)
        let node = self.node
        return try await writer.write(durable: false) { session throws(PostgresError) in
            (try Self.settle(settlements, node: node, in: session), try Self.claimAccepted(ids, now: now, node: node, in: session))
        }
    }

    private static func claimAccepted(_ ids: [DeliveryID], now: Date, node: String,
                                      in session: PostgresWriteSession) throws(PostgresError) -> [DeliveryRecord] {
        let nowMs = StoreCoding.millis(now)
        let tx = PostgresStoreTransaction(session: session)
        guard try tx.activeSilences(at: now).isEmpty else { return [] }
        let claimed = try session.conn.query("""
            UPDATE deliveries SET state = 'in_flight', attempts = attempts + 1, updated_at = \(PostgresSchema.databaseMillis(shift: "$4")),
                claimed_by = $2, silenced_by = NULL
            WHERE id IN (SELECT id FROM deliveries WHERE id = ANY($3::text[]) AND state = 'pending' AND next_attempt_at <= $1
                         FOR UPDATE SKIP LOCKED)
            RETURNING id, alert_id, presenter, kind, attempts, last_error, created_at, silenced_by, follow_up_of, takes_follow_up
            """, [.integer(nowMs), .text(node), .textArray(ids.map(\.rawValue)), PostgresSchema.shift(now)]).rows.map { row in
            StoreCoding.claimedDelivery(id: row.text(0), alertID: row.text(1), presenter: row.text(2), category: row.text(3),
                                        attempts: row.int(4), lastError: row.optionalText(5), createdAt: row.int(6),
                                        silencedBy: row.optionalText(7), followUpOf: row.optionalText(8),
                                        takesFollowUp: row.bool(9), at: now)
        }
        let order = Dictionary(ids.enumerated().map { ($1.rawValue, $0) }, uniquingKeysWith: min)
        return claimed.sorted { order[$0.id.rawValue, default: 0] < order[$1.id.rawValue, default: 0] }
    }

    @discardableResult
    public func settle(_ settlements: [DeliverySettlement]) async throws(StoreError) -> Int {
        guard !settlements.isEmpty else { return 0 }
        // A lost outcome means one more attempt with the same delivery id: harmless.
        let node = self.node
        return try await writer.write(durable: false) { session throws(PostgresError) -> Int in try Self.settle(settlements, node: node, in: session) }
    }

    /// A failure is recorded for this node's claim only: a claim whose
    /// lease ran out (the node cut off from the database, its renewals
    /// lost) may be another node's now, and a late failure had freed the
    /// delivery for a third attempt while the second was being sent, or
    /// put back one recorded delivered. One released and not yet claimed
    /// again (pending, nobody's) still takes it. Delivered is recorded
    /// whoever claims it now: it was sent, and the other node's outcome,
    /// finding it delivered, is dropped.
    private static func settle(_ settlements: [DeliverySettlement], node: String, in session: PostgresWriteSession) throws(PostgresError) -> Int {
        var tx = PostgresStoreTransaction(session: session)
        var queued = 0
        func mine(_ parameter: Int) -> String { "(claimed_by = $\(parameter) OR (state = 'pending' AND claimed_by IS NULL))" }
        for s in settlements {
            let at = StoreCoding.millis(s.at)
            let id = PostgresValue.text(s.deliveryID.rawValue)
            let result: PostgresResult
            switch s.result {
            case .delivered:
                result = try session.conn.query("""
                    UPDATE deliveries SET state = 'delivered', next_attempt_at = NULL, last_error = NULL, updated_at = $1,
                    delivered_at = $1, claimed_by = NULL WHERE id = $2 AND state IN ('pending', 'in_flight')
                    RETURNING alert_id, presenter, kind, takes_follow_up
                    """, [.integer(at), id])
            case .retry(let next, let e):
                result = try session.conn.query("""
                    UPDATE deliveries SET state = 'pending', next_attempt_at = $1, last_error = $2, updated_at = $3, claimed_by = NULL,
                        attempts = GREATEST(attempts - $6, 0)
                    WHERE id = $4 AND \(mine(5)) RETURNING alert_id, presenter, kind, takes_follow_up
                    """, [.integer(StoreCoding.millis(next)), .text(e), .integer(at), id, .text(node), .integer(s.sent ? 0 : 1)])
            case .dead(let e):
                result = try session.conn.query("""
                    UPDATE deliveries SET state = 'dead', next_attempt_at = NULL, last_error = $1, updated_at = $2, claimed_by = NULL,
                        attempts = GREATEST(attempts - $5, 0)
                    WHERE id = $3 AND \(mine(4)) RETURNING alert_id, presenter, kind, takes_follow_up
                    """, [.text(e), .integer(at), id, .text(node), .integer(s.sent ? 0 : 1)])
            }
            if let row = result.rows.first {
                let kind = StoreCoding.deliveryKind(category: row.text(2), name: row.text(1))
                try tx.append(s.result.eventKind, alert: AlertID(trusted: row.text(0)), at: s.at, data: StoreRules.eventData(s, kind: kind))
                if s.result == .delivered,
                   try StoreRules.delivered(s.deliveryID, at: s.at, thread: s.thread, listed: s.listed, takesFollowUp: row.bool(3),
                                            in: &tx) { queued += 1 }
            }
        }
        return queued
    }

    public func nextDueTime(after: Date?) async throws(StoreError) -> Date? {
        let after = after.map(StoreCoding.millis) ?? Int64.min
        return try await pool.run("Reading the delivery queue") { conn throws(PostgresError) in
            try conn.scalar("SELECT MIN(next_attempt_at) FROM deliveries WHERE state = 'pending' AND next_attempt_at > $1", [.integer(after)])
        }.map(StoreCoding.date)
    }

    /// Takes back this node's own claims (by its name): another node's
    /// claims are its business until their lease runs out.
    public func recoverInFlight(now: Date) async throws(StoreError) -> Int {
        let node = self.node
        return try await writer.write(durable: false) { session throws(PostgresError) in
            let n = try session.conn.query("""
                UPDATE deliveries SET state = 'pending', next_attempt_at = $1, updated_at = $1, claimed_by = NULL
                WHERE state = 'in_flight' AND claimed_by = $2
                """, [.integer(StoreCoding.millis(now)), .text(node)]).affected
            if n > 0 { session.notifyOthers() }
            return n
        }
    }

    /// Renews the lease of this node's running deliveries (`keeping`), then
    /// releases claims past their lease: a dead node's, or ones whose
    /// outcome could not be recorded. The dispatcher calls this a few
    /// times per lease, so a live node's claims never run out.
    /// Every node of the cluster claims from it.
    public var isShared: Bool { true }

    /// Claims are renewed and judged by the database's clock
    /// (``PostgresSchema/databaseMillis(shift:)``): of the dispatcher's
    /// times only the lease, `now` less `claimedBefore`, is taken.
    /// Each node's lease is kept (`node_leases`) and its claims are judged
    /// by the longer of it and the window: judged by the judge's own, a
    /// node with a lease of 10 s sent again the running deliveries of one
    /// with 60 s, which renews them every 15.
    public func releaseStaleClaims(claimedBefore: Date, keeping: Set<DeliveryID>, lease: Duration, now: Date) async throws(StoreError) -> Int {
        let (nowMs, node) = (StoreCoding.millis(now), self.node)
        let window = nowMs - StoreCoding.millis(claimedBefore)
        let (kept, shift) = (PostgresValue.textArray(keeping.map(\.rawValue)), PostgresSchema.shift(now))
        return try await writer.write(durable: false) { session throws(PostgresError) in
            try session.conn.query("""
                INSERT INTO node_leases (node, lease_ms, seen_at) VALUES ($1, $2, \(PostgresSchema.databaseMillis(shift: "$3")))
                ON CONFLICT (node) DO UPDATE SET lease_ms = EXCLUDED.lease_ms, seen_at = EXCLUDED.seen_at
                """, [.text(node), .integer(Int64(lease.milliseconds)), shift])
            if !keeping.isEmpty {
                try session.conn.query("""
                    UPDATE deliveries SET updated_at = \(PostgresSchema.databaseMillis(shift: "$3"))
                    WHERE state = 'in_flight' AND claimed_by = $1 AND id = ANY($2::text[])
                    """, [.text(node), kept, shift])
            }
            let n = try session.conn.query("""
                UPDATE deliveries d SET state = 'pending', next_attempt_at = $1, updated_at = $1, claimed_by = NULL
                WHERE state = 'in_flight' AND NOT (id = ANY($3::text[]))
                    AND updated_at < \(PostgresSchema.databaseMillis(shift: "$4"))
                        - GREATEST($2, COALESCE((SELECT lease_ms FROM node_leases l WHERE l.node = d.claimed_by), 0))
                """, [.integer(nowMs), .integer(window), kept, shift]).affected
            if n > 0 { session.notifyOthers() }
            return n
        }
    }

    public func hastenRetries(of presenter: DeliveryKind, now: Date) async throws(StoreError) -> Int {
        let nowMs = StoreCoding.millis(now)
        return try await writer.write(durable: false) { session throws(PostgresError) in
            let n = try session.conn.query("""
                UPDATE deliveries SET next_attempt_at = $1, updated_at = $1
                WHERE presenter = $2 AND kind = $3 AND state = 'pending' AND attempts > 0 AND silenced_by IS NULL AND next_attempt_at > $1
                """, [.integer(nowMs), .text(presenter.name), .text(presenter.category)]).affected
            if n > 0 { session.notifyOthers() }
            return n
        }
    }

    public func releaseClaims(_ ids: [DeliveryID], now: Date) async throws(StoreError) -> Int {
        guard !ids.isEmpty else { return 0 }
        let (nowMs, node) = (StoreCoding.millis(now), self.node)
        return try await writer.write(durable: false) { session throws(PostgresError) in
            let n = try session.conn.query("""
                UPDATE deliveries SET state = 'pending', attempts = GREATEST(attempts - 1, 0), next_attempt_at = $1, updated_at = $1,
                    claimed_by = NULL
                WHERE state = 'in_flight' AND claimed_by = $2 AND id = ANY($3::text[])
                """, [.integer(nowMs), .text(node), .textArray(ids.map(\.rawValue))]).affected
            if n > 0 { session.notifyOthers() }
            return n
        }
    }

    public func replayDead(alert: AlertID?, now: Date) async throws(StoreError) -> Int {
        try await writer.write { session throws(PostgresError) in
            let nowMs = StoreCoding.millis(now)
            let n: Int
            if let alert {
                n = try session.conn.query("""
                    UPDATE deliveries SET state = 'pending', next_attempt_at = $1, updated_at = $1, attempts = 0
                    WHERE state = 'dead' AND alert_id = $2
                    """, [.integer(nowMs), .text(alert.rawValue)]).affected
            } else {
                n = try session.conn.query("""
                    UPDATE deliveries SET state = 'pending', next_attempt_at = $1, updated_at = $1, attempts = 0 WHERE state = 'dead'
                    """, [.integer(nowMs)]).affected
            }
            if n > 0 { session.notifyOthers() }
            return n
        }
    }

    // MARK: Groups

    /// One node at a time flushes (an advisory try-lock); another finds
    /// the lock taken and leaves the round to it, and each group's row is
    /// locked too, against a member closing on another node meanwhile.
    public func flushDueGroups(now: Date, inhibitRules: [InhibitRule], limit: Int) async throws(StoreError) -> [GroupNotice] {
        try await writer.write(durable: false) { session throws(PostgresError) in
            guard try session.tryLock(PostgresSchema.groupLock) else { return [] }
            let due = try session.conn.query("SELECT id FROM alert_groups WHERE next_due_at <= $1 ORDER BY next_due_at LIMIT $2",
                                             [.integer(StoreCoding.millis(now)), .integer(Int64(limit))]).rows.map { AlertGroupID(trusted: $0.text(0)) }
            var tx = PostgresStoreTransaction(session: session)
            return try StoreRules.flush(due, now: now, inhibitRules: inhibitRules, in: &tx)
        }
    }

    public func followRoutes(
        _ routes: [String: AlertGroupSettings], rerouting: GroupRerouting?, now: Date
    ) async throws(StoreError) -> Int {
        return try await writer.write { session throws(PostgresError) in
            let ids = try session.conn.query("SELECT id FROM alert_groups ORDER BY id").rows.map { AlertGroupID(trusted: $0.text(0)) }
            var tx = PostgresStoreTransaction(session: session)
            return try StoreRules.follow(ids, routes: routes, rerouting: rerouting, now: now, in: &tx)
        }
    }

    public func nextGroupDueTime() async throws(StoreError) -> Date? {
        try await pool.run("Reading group timers") { conn throws(PostgresError) -> Int64? in
            try conn.scalar("SELECT MIN(next_due_at) FROM alert_groups")
        }.map(StoreCoding.date)
    }

    public func groups() async throws(StoreError) -> [AlertGroup] {
        let rows = try await pool.run("Listing groups") { conn throws(PostgresError) in
            try conn.query("SELECT \(StoreCoding.groupColumns) FROM alert_groups ORDER BY next_due_at, id").rows.map(StoreCoding.GroupRow.init)
        }
        var groups: [AlertGroup] = []
        for row in rows { groups.append(try StoreCoding.group(row)) }
        return groups
    }

    public func group(id: AlertGroupID) async throws(StoreError) -> AlertGroupRecord? {
        try await pool.run("Reading group \(id)") { conn throws(PostgresError) in
            // Read in a transaction of its own, so the row locks the reads take end with it.
            try conn.execute("BEGIN")
            defer { _ = try? conn.execute("ROLLBACK") }
            var tx = PostgresStoreTransaction(session: PostgresWriteSession(conn: conn))
            return try StoreRules.groupRecord(id, in: &tx)
        }
    }
}

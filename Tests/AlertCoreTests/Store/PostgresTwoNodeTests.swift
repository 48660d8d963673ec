import Foundation
import Testing
@testable import AlertModel
@testable import AlertdStore
@testable import AlertdPostgresStore
@testable import AlertdPostgres

/// Two nodes on one PostgreSQL database, racing where one SQLite writer
/// runs one thing after another: a late outcome of a lapsed claim, a
/// silence expired or a source closed on one node while the other screens.
/// A third session holding a row lock stretches a claim between its reads
/// and its commit, a window a busy node's batched writes leave open anyway.
@Suite(.serialized) struct PostgresTwoNodeTests {
    static let hook: [DeliveryKind: Int] = [.presenter("hook"): 8]

    func spec(_ title: String, labels: [String: String] = [:]) throws -> AlertSpec {
        try AlertSpec.Builder().title(title).labels(labels).build().get()
    }

    func twoNodes() throws -> (url: String, a: PostgresAlertStore, b: PostgresAlertStore) {
        let url = try PostgresServer.shared().makeDatabase()
        return (url, try PostgresAlertStore(url: url, node: "node-a", readers: 1), try PostgresAlertStore(url: url, node: "node-b", readers: 1))
    }

    /// A third session holding one alert's row lock: it stands for whatever
    /// keeps node A's claim between reading the silences or inhibitions and
    /// committing (other jobs of its batch, latency).
    final class Gate: @unchecked Sendable {
        let conn: PostgresConnection
        let monitor: PostgresConnection
        init(url: String, alert: AlertID) throws {
            conn = try PostgresConnection(url: url, redactedURL: url)
            monitor = try PostgresConnection(url: url, redactedURL: url)
            try conn.withLock { c throws(PostgresError) in
                try c.execute("BEGIN")
                try c.query("SELECT 1 FROM alerts WHERE id = $1 FOR UPDATE", [.text(alert.rawValue)])
            }
        }
        /// Returns once `count` sessions wait for a lock.
        func waitForWaiters(_ count: Int = 1) async throws {
            for _ in 0..<200 {
                let n = try monitor.withLock { c throws(PostgresError) in
                    try c.scalar("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
                } ?? 0
                if n >= count { return }
                try await Task.sleep(for: .milliseconds(20))
            }
            throw PostgresError(sqlState: nil, message: "nobody waited on the gate", context: "gate", connectionLost: false)
        }
        func open() throws { try conn.withLock { c throws(PostgresError) in try c.execute("ROLLBACK") } }
    }

    /// Node A's lease ran out (cut off, its renewals lost) and node B took
    /// the delivery over: A's late failure leaves B's claim alone, where it
    /// had freed the delivery for a third attempt while B's was running.
    /// Node A claims a new alert's delivery; its lease runs out (cut off,
    /// its renewals lost), and node B releases the claim and takes it.
    func lapsedClaimTakenOver(from a: PostgresAlertStore, by b: PostgresAlertStore) async throws -> (alert: Alert, id: DeliveryID, t0: Date) {
        let alert = Alert(spec: try spec("disk full"))
        _ = try await a.submit([AlertSubmission(alert: alert, presenters: ["hook"])])
        let t0 = Date()
        let id = try #require(try await a.claimDueDeliveries(now: t0, capacity: Self.hook, orphanLimit: 0).first?.delivery.id)
        #expect(try await b.releaseStaleClaims(claimedBefore: t0.addingTimeInterval(1), keeping: [], now: t0.addingTimeInterval(31)) == 1)
        #expect(try await b.claimDueDeliveries(now: t0.addingTimeInterval(31), capacity: Self.hook, orphanLimit: 0).map(\.delivery.id) == [id])
        return (alert, id, t0)
    }

    /// Nodes with different leases (a rolling reload of `claim_lease`):
    /// node B, with 10 s, waits out node A's 60 s before it takes A's
    /// claim, which A renews every 15 s; by its own 10 s it sent A's
    /// running deliveries again. A node that has given no lease yet is
    /// judged by the judge's.
    @Test func aNodeWaitsOutTheClaimantsLeaseNotItsOwn() async throws {
        let (_, a, b) = try twoNodes()
        defer { a.close(); b.close() }
        let alert = Alert(spec: try spec("disk full"))
        _ = try await a.submit([AlertSubmission(alert: alert, presenters: ["hook"])])
        let t0 = Date()
        let id = try #require(try await a.claimDueDeliveries(now: t0, capacity: Self.hook, orphanLimit: 0).first?.delivery.id)
        _ = try await a.releaseStaleClaims(claimedBefore: t0.addingTimeInterval(-60), keeping: [id], lease: .seconds(60), now: t0)
        func bLooks(after seconds: TimeInterval) async throws -> Int {
            let now = t0.addingTimeInterval(seconds)
            return try await b.releaseStaleClaims(claimedBefore: now.addingTimeInterval(-10), keeping: [], lease: .seconds(10), now: now)
        }
        #expect(try await bLooks(after: 12) == 0, "A's claim is within A's lease")
        #expect(try await bLooks(after: 45) == 0)
        #expect(try await bLooks(after: 62) == 1, "past A's lease with no renewal: A is gone")
        #expect(try await b.claimDueDeliveries(now: t0.addingTimeInterval(62), capacity: Self.hook, orphanLimit: 0).map(\.delivery.id) == [id])
    }

    /// A second node with the first one's name is noticed on the same
    /// database, and not on another database of the same server.
    @Test func aNamesakeIsLookedForOnTheSameDatabaseOnly() throws {
        let server = try PostgresServer.shared()
        let (url, other) = (try server.makeDatabase(), try server.makeDatabase())
        let first = try PostgresAlertStore(url: url, node: "twin", readers: 1)
        defer { first.close() }
        let elsewhere = try PostgresAlertStore(url: other, node: "twin", readers: 1)
        defer { elsewhere.close() }
        #expect(elsewhere.namesakes == 0)
        let same = try PostgresAlertStore(url: url, node: "twin", readers: 1)
        defer { same.close() }
        #expect(same.namesakes > 0)
        // The first node made the tables; the second found them made.
        #expect(first.schemaUpgrade == SchemaUpgrade(from: 0, to: PostgresSchema.migrations.count))
        #expect(same.schemaUpgrade == nil)
    }

    @Test func aLateFailureOfALapsedClaimLeavesAnotherNodesClaimAlone() async throws {
        let (_, a, b) = try twoNodes()
        defer { a.close(); b.close() }
        let (alert, id, t0) = try await lapsedClaimTakenOver(from: a, by: b)
        try await a.settle([DeliverySettlement(deliveryID: id, result: .retry(at: t0.addingTimeInterval(32), error: "timeout"),
                                               at: t0.addingTimeInterval(32))])
        let row = try #require(try await b.record(id: alert.id)?.deliveries.first)
        #expect(row.state == .inFlight, "A's late outcome turned B's running claim into \(row.state)")
        #expect(try await a.claimDueDeliveries(now: t0.addingTimeInterval(33), capacity: Self.hook, orphanLimit: 0).isEmpty)
        // B's own outcome is recorded.
        try await b.settle([DeliverySettlement(deliveryID: id, result: .delivered, at: t0.addingTimeInterval(34))])
        #expect(try await a.record(id: alert.id)?.deliveries.first?.state == .delivered)
    }

    /// A's late success is recorded whoever claims the delivery now (it was
    /// sent), and B's failure, coming after, does not put it back.
    @Test func aLateSuccessStandsAndTheOtherNodesFailureAfterItIsDropped() async throws {
        let (_, a, b) = try twoNodes()
        defer { a.close(); b.close() }
        let (alert, id, t0) = try await lapsedClaimTakenOver(from: a, by: b)
        try await a.settle([DeliverySettlement(deliveryID: id, result: .delivered, at: t0.addingTimeInterval(32))])
        try await b.settle([DeliverySettlement(deliveryID: id, result: .retry(at: t0.addingTimeInterval(40), error: "HTTP 503"),
                                               at: t0.addingTimeInterval(33))])
        #expect(try await a.record(id: alert.id)?.deliveries.first?.state == .delivered)
        let events = try await a.events(after: 0, limit: 100).map(\.kind).filter { $0 == .deliverySucceeded || $0 == .deliveryFailed }
        #expect(events == [.deliverySucceeded], "\(events)")
    }

    /// A silence expired on node B while node A's claim screens with it:
    /// B's release found nothing held yet, and A's hold kept the delivery
    /// back until the silence's old end (two hours). The expiry now waits
    /// for the claim to commit, then releases what it held.
    @Test func aSilenceExpiredWhileAnotherNodeScreensWithItReleasesWhatThatHeld() async throws {
        let (url, a, b) = try twoNodes()
        defer { a.close(); b.close() }
        let now = Date()
        let target = Alert(spec: try spec("disk full", labels: ["host": "db"]), at: now.addingTimeInterval(-2))
        _ = try await a.submit([AlertSubmission(alert: target, presenters: ["hook"])])
        let s = Silence(matchers: [try LabelMatcher(parsing: #"host="db""#)], startsAt: now.addingTimeInterval(-1),
                        endsAt: now.addingTimeInterval(7200), createdBy: "alice", comment: "maintenance")
        guard case .saved(let saved) = try await b.saveSilence(s, replacing: nil, now: now) else { Issue.record("not saved"); return }
        let gate = try Gate(url: url, alert: target.id)
        let claim = Task { try await a.claimDueDeliveries(now: now.addingTimeInterval(1), capacity: Self.hook, orphanLimit: 0) }
        try await gate.waitForWaiters(1)
        let expiry = Task { try await b.expireSilence(id: saved.id, now: now.addingTimeInterval(2)) }
        try await gate.waitForWaiters(2)
        try gate.open()
        let first = try await claim.value
        #expect(try await expiry.value != nil)
        let due = try await a.claimDueDeliveries(now: now.addingTimeInterval(3), capacity: Self.hook, orphanLimit: 0)
        #expect((first + due).map(\.alert.id) == [target.id], "the silence ended; the delivery is due")
    }

    /// The inhibiting source resolved on node B while node A's claim
    /// screens its target: A read the source again, closed, and held the
    /// target anyway, for the hour of the backstop.
    @Test func aSourceClosedWhileAnotherNodeScreensItsTargetHoldsNothing() async throws {
        let (url, a, b) = try twoNodes()
        defer { a.close(); b.close() }
        let rule = InhibitRule(sourceMatchers: [try LabelMatcher(parsing: "alertname=\"NodeDown\"")],
                               targetMatchers: [try LabelMatcher(parsing: "alertname=\"DiskSlow\"")], equal: ["instance"])
        let now = Date()
        let source = Alert(spec: try spec("node down", labels: ["alertname": "NodeDown", "instance": "a"]), at: now.addingTimeInterval(-3))
        let target = Alert(spec: try spec("disk slow", labels: ["alertname": "DiskSlow", "instance": "a"]), at: now.addingTimeInterval(-2))
        _ = try await a.submit([AlertSubmission(alert: source, presenters: []), AlertSubmission(alert: target, presenters: ["hook"])])
        let gate = try Gate(url: url, alert: target.id)
        let claim = Task { try await a.claimDueDeliveries(now: now.addingTimeInterval(1), capacity: Self.hook, orphanLimit: 0, inhibitRules: [rule]) }
        try await gate.waitForWaiters(1)
        guard case .decided = try await b.decide(source.id, AlertDecision(outcome: .resolved, actor: "t", at: now.addingTimeInterval(2))) else {
            Issue.record("not resolved"); return
        }
        try gate.open()
        let first = try await claim.value
        let due = try await a.claimDueDeliveries(now: now.addingTimeInterval(3), capacity: Self.hook, orphanLimit: 0, inhibitRules: [rule])
        #expect((first + due).map(\.alert.id) == [target.id], "the source closed; its target is not held")
    }

    /// A rolling change of presenters: node A was reloaded without `hook`,
    /// node B still has it. A's orphan sweep took B's `hook` deliveries,
    /// due or not, and made them dead. Now it leaves them while a live node
    /// says it has `hook` (B does at each of its sweeps), however long they
    /// wait there (a backlog behind a rate limit), and takes them once none
    /// has said so for a minute.
    @Test func aNodeWithoutAPresenterLeavesItsDeliveriesToTheNodesThatHaveIt() async throws {
        let (_, a, b) = try twoNodes()
        defer { a.close(); b.close() }
        let now = Date()
        let other: [DeliveryKind: Int] = [.presenter("hook2"): 8]
        let alerts = try (0..<2).map { Alert(spec: try spec("disk full \($0)"), at: now) }
        _ = try await b.submit(alerts.map { AlertSubmission(alert: $0, presenters: ["hook"]) })
        // B says it has hook, with no room for more just now (its rate limit).
        #expect(try await b.claimDueDeliveries(now: now, capacity: [.presenter("hook"): 0], orphanLimit: 32).isEmpty)
        #expect(try await a.claimDueDeliveries(now: now.addingTimeInterval(30), capacity: other, orphanLimit: 32).isEmpty)
        #expect(try await b.claimDueDeliveries(now: now.addingTimeInterval(31), capacity: [.presenter("hook"): 1], orphanLimit: 32)
            .map(\.alert.id) == [alerts[0].id])
        // B stopped: a minute after it last said so, A takes what is left.
        let lifetime = PostgresAlertStore.presenterWordLifetime.seconds
        #expect(try await a.claimDueDeliveries(now: now.addingTimeInterval(31 + lifetime - 1), capacity: other, orphanLimit: 32).isEmpty)
        #expect(try await a.claimDueDeliveries(now: now.addingTimeInterval(31 + lifetime + 1), capacity: other, orphanLimit: 32)
            .map(\.alert.id) == [alerts[1].id])
        // B reloaded without hook: no node has it, and its deliveries are orphans at once.
        let cpu = Alert(spec: try spec("cpu hot"), at: now)
        _ = try await b.submit([AlertSubmission(alert: cpu, presenters: ["hook"])])
        #expect(try await b.claimDueDeliveries(now: now.addingTimeInterval(100), capacity: other, orphanLimit: 32).map(\.alert.id) == [cpu.id])
    }
}

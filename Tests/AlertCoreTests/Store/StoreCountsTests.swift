import Foundation
import Testing
@testable import AlertModel
@testable import AlertdSQLite
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdStore
@testable import AlertdSQLiteStore
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon

@Suite struct StoreCountsTests {
    @Test func keptCountsMatchARecount() async throws {
        let dir = TemporaryDirectory()
        let store = try SQLiteAlertStore(path: dir.path + "/counts.db")
        var ids: [AlertID] = []
        var submissions: [AlertSubmission] = []
        for i in 0..<20 {
            let a = Alert(spec: try AlertSpec.Builder().title("a\(i)").confirm("Go", handler: "https://x.example/go").build().get())
            ids.append(a.id)
            submissions.append(AlertSubmission(alert: a, presenters: ["one", "two"]))
            _ = try await store.submit([submissions[i]])
        }
        let claimed = try await store.claimDueDeliveries(now: Date(), capacity: [.presenter("one"): 10, .presenter("two"): 3], orphanLimit: 0)
        try await store.settle(claimed.prefix(5).map { DeliverySettlement(deliveryID: $0.delivery.id, result: .delivered) })
        try await store.settle(claimed.dropFirst(5).prefix(2).map { DeliverySettlement(deliveryID: $0.delivery.id, result: .dead(error: "x")) })
        for id in ids.prefix(4) { _ = try await store.decide(id, AlertDecision(outcome: .confirmed, actor: "t")) }
        _ = try await store.decide(ids[0], AlertDecision(outcome: .cancelled, actor: "t"))  // loses: no change
        // The moves the statements count themselves (claimed, delivered from
        // in flight), next to ones the trigger counts: a retry, a delivered
        // outcome for a delivery no longer in flight, a recovery.
        let twos = submissions.dropFirst(10).prefix(6).map { $0.deliveries[1] }
        let accepted = try await store.claimAccepted(Array(twos.prefix(3)), now: Date())
        #expect(accepted.count == 3)
        let (_, handedOver) = try await store.settle([DeliverySettlement(accepted[0], result: .delivered),
                                                      DeliverySettlement(deliveryID: accepted[1].id, result: .retry(at: Date(), error: "x"))],
                                                     thenClaim: Array(twos.dropFirst(3)), now: Date())
        #expect(handedOver.count == 3)
        try await store.settle([DeliverySettlement(deliveryID: accepted[1].id, result: .delivered),  // pending now
                                DeliverySettlement(deliveryID: accepted[0].id, result: .delivered)])  // delivered already
        #expect(try await store.recoverInFlight(now: Date()) > 0)
        // The rarer moves: dead replayed, a claim released as stale, a
        // silence holding one delivery of an open alert and withholding
        // those of a closed one.
        #expect(try await store.replayDead(alert: nil, now: Date()) == 2)
        let stale = try await store.claimDueDeliveries(now: Date(), capacity: [.presenter("one"): 1], orphanLimit: 0)
        #expect(stale.count == 1)
        #expect(try await store.releaseStaleClaims(claimedBefore: Date().addingTimeInterval(60), keeping: [], now: Date()) == 1)
        let (held, withheld) = (Alert(spec: try AlertSpec.Builder().title("held").labels(["svc": "db"]).build().get()),
                                Alert(spec: try AlertSpec.Builder().title("withheld").labels(["svc": "db"]).build().get()))
        _ = try await store.submit([AlertSubmission(alert: held, presenters: ["three"]), AlertSubmission(alert: withheld, presenters: ["three", "four"])])
        _ = try await store.decide(withheld.id, AlertDecision(outcome: .resolved, actor: "t"))
        _ = try await store.saveSilence(Silence(matchers: [try LabelMatcher(parsing: #"svc="db""#)], startsAt: Date().addingTimeInterval(-1),
                                                endsAt: Date().addingTimeInterval(600), createdBy: "t", comment: "counts"),
                                        replacing: nil, now: Date())
        #expect(try await store.claimDueDeliveries(now: Date(), capacity: [.presenter("three"): 4, .presenter("four"): 4], orphanLimit: 0).isEmpty)

        let kept = try await store.counts()
        let conn = try SQLiteConnection(path: dir.path + "/counts.db", readOnly: true)
        let recount = try conn.withLock { c throws(SQLiteError) in
            StoreCounts(
                openAlerts: Int(try c.scalar("SELECT COUNT(*) FROM alerts WHERE state = 'open'") ?? -1),
                pending: Int(try c.scalar("SELECT COUNT(*) FROM deliveries WHERE state = 'pending'") ?? -1),
                inFlight: Int(try c.scalar("SELECT COUNT(*) FROM deliveries WHERE state = 'in_flight'") ?? -1),
                dead: Int(try c.scalar("SELECT COUNT(*) FROM deliveries WHERE state = 'dead'") ?? -1),
                // Every delivery a silence ever held; none was pruned here.
                silencedDeliveries: Int(try c.scalar("SELECT COUNT(*) FROM deliveries WHERE silenced_by IS NOT NULL") ?? -1),
                pendingByPresenter: kept.pendingByPresenter)
        }
        #expect(kept == recount)
        #expect(try await store.record(id: withheld.id)?.deliveries.map(\.state) == [.silenced, .silenced])
        #expect(try await store.record(id: held.id)?.deliveries.map(\.state) == [.pending])
        // Every counter, delivered included, against its rows.
        let table = try conn.withLock { c throws(SQLiteError) in
            try c.statement("SELECT name, value FROM counters WHERE name LIKE 'deliveries.%' AND name != 'deliveries.silenced_total'")
                .query([]) { ($0.text(0), $0.int(1)) }
        }
        for (name, value) in table {
            let state = name.dropFirst("deliveries.".count)
            let rows = try conn.withLock { c throws(SQLiteError) in try c.scalar("SELECT COUNT(*) FROM deliveries WHERE state = '\(state)'") }
            #expect(value == rows, "\(name)")
        }
        // 40 routed, 13 claimed by the poll (5 delivered, 2 dead), 4 handler
        // calls; then 2 more delivered, recovery put every claim back, the
        // 2 dead were replayed, and 3 more routed (1 held, 2 withheld).
        #expect(kept.openAlerts == 17 && kept.inFlight == 0 && kept.dead == 0)
        #expect(kept.pending == 40 + 4 - 5 - 2 + 1)
        #expect(table.count == 5)
        #expect(kept.pendingByPresenter.values.reduce(0, +) == kept.pending)
    }

    /// Counters are written once per group-commit batch, summed over its
    /// jobs (`CounterLedger`). Submissions of one alert each, queued while
    /// another connection holds the write lock so that they commit many to
    /// a batch; then a burst with one submission repeating an alert id, so
    /// that its batch fails, is rolled back and runs again job by job. The
    /// counters hold what was stored: every batch's sum, none of a failed
    /// job's, and nothing twice.
    @Test func countersSummedOverABatchCountWhatItsCommitKept() async throws {
        let dir = TemporaryDirectory()
        let batches = BatchCounter()
        let store = try SQLiteAlertStore(path: dir.path + "/batched.db") { n in batches.add(n) }
        let conn = try SQLiteConnection(path: dir.path + "/batched.db")
        func burst(_ submissions: [AlertSubmission]) async throws -> Int {
            try conn.withLock { c throws(SQLiteError) in try c.execute("BEGIN IMMEDIATE") }
            return await withTaskGroup(of: Bool.self) { group in
                for s in submissions { group.addTask { (try? await store.submit([s])) != nil } }
                try? await Task.sleep(for: .milliseconds(300))
                try? conn.withLock { c throws(SQLiteError) in try c.execute("COMMIT") }
                return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
        }
        func check() async throws {
            let (openRows, pendingRows) = try conn.withLock { c throws(SQLiteError) in
                (Int(try c.scalar("SELECT COUNT(*) FROM alerts WHERE state = 'open'") ?? -1),
                 Int(try c.scalar("SELECT COUNT(*) FROM deliveries WHERE state = 'pending'") ?? -1))
            }
            let kept = try await store.counts()
            #expect(kept.openAlerts == openRows)
            #expect(kept.pending == pendingRows)
        }
        let alerts = try (0..<240).map { Alert(spec: try AlertSpec.Builder().title("b\($0)").build().get()) }
        let submissions = alerts.enumerated().map { i, a in AlertSubmission(alert: a, presenters: i % 2 == 0 ? ["one"] : ["one", "two"]) }

        #expect(try await burst(Array(submissions.prefix(120))) == 120)
        let (commits, jobs) = batches.totals
        #expect(jobs == 120 && commits < 20, "\(commits) commits for \(jobs) jobs")
        try await check()

        // The repeat fails on the alert's primary key whichever of the two runs second.
        #expect(try await burst(Array(submissions.dropFirst(120)) + [submissions[200]]) == 120)
        #expect(batches.totals.1 == 240)
        try await check()
        #expect(try await store.counts().openAlerts == 240)
        #expect(try await store.counts().pending == 360)
    }
}

@Suite struct RetentionConfigurationTests {
    @Test func retentionIsConfigurable() throws {
        #expect(try DaemonConfiguration.parse(Data("{}".utf8)).store.retention == .seconds(30 * 86_400))
        #expect(try DaemonConfiguration.parse(Data(#"{"store": {"retention": "7d"}}"#.utf8)).store.retention == .seconds(7 * 86_400))
        #expect(try DaemonConfiguration.parse(Data(#"{"store": {"retention": "forever"}}"#.utf8)).store.retention == nil)
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdSQLite
@testable import AlertdCrypto
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdHTTPServer
@testable import AlertdLogging
@testable import AlertdCommandLine
@testable import AlertdStore
@testable import AlertdSQLiteStore
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

@Suite struct DecisionStoreTests {
    let dir = TemporaryDirectory()

    func alert(confirm: Bool = true, cancel: Bool = true, expires: AlertDuration? = nil, dedup: String? = nil) throws -> Alert {
        var b = AlertSpec.Builder().title("Deploy?")
        if confirm { b = b.confirm("Deploy", handler: "https://ci.example/deploy") }
        if cancel { b = b.cancel("Abort", handler: "https://ci.example/abort") }
        if let expires { b = b.expires(after: expires) }
        if let dedup { b = b.dedupKey(dedup) }
        return Alert(spec: try b.build().get())
    }

    @Test func theFirstDecisionWinsAndQueuesItsHandlerInTheSameTransaction() async throws {
        let store = try SQLiteAlertStore(path: dir.path + "/a.db")
        let a = try alert()
        _ = try await store.submit([AlertSubmission(alert: a, presenters: [])])
        let first = try await store.decide(a.id, AlertDecision(outcome: .confirmed, actor: "uid:1000", comment: "go"))
        guard case .decided(let decided, let handler) = first else { Issue.record("not decided: \(first)"); return }
        #expect(decided.state == .confirmed)
        #expect(decided.decision?.actor == "uid:1000")
        #expect(decided.decision?.comment == "go")
        #expect(handler == "\(a.id).confirm")
        let second = try await store.decide(a.id, AlertDecision(outcome: .cancelled, actor: "uid:0"))
        guard case .alreadyDecided(let current) = second else { Issue.record("second decision won: \(second)"); return }
        #expect(current.state == .confirmed)
        #expect(current.decision?.actor == "uid:1000")
        let record = try #require(try await store.record(id: a.id))
        #expect(record.deliveries.map(\.presenter) == ["handler:confirm"])
        let events = try await store.events(after: 0, limit: 10).map(\.type)
        #expect(events == ["alert.created", "alert.confirmed"])
        #expect(try await store.decide(AlertID.generate(), AlertDecision(outcome: .confirmed, actor: "x")) == .notFound)
    }

    @Test func aHundredRacingDecisionsMakeOneDecisionAndOneHandlerCall() async throws {
        let store = try SQLiteAlertStore(path: dir.path + "/race.db")
        let a = try alert()
        _ = try await store.submit([AlertSubmission(alert: a, presenters: [])])
        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<100 {
                group.addTask {
                    let outcome: AlertState = i.isMultiple(of: 2) ? .confirmed : .cancelled
                    if case .decided = try await store.decide(a.id, AlertDecision(outcome: outcome, actor: "racer\(i)")) { return true }
                    return false
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
        #expect(try #require(try await store.record(id: a.id)).deliveries.count == 1)
    }

    @Test func expiryClosesTheAlertAndCallsCancelOnce() async throws {
        let store = try SQLiteAlertStore(path: dir.path + "/exp.db")
        let a = try alert(expires: .seconds(60))
        _ = try await store.submit([AlertSubmission(alert: a, presenters: [])])
        #expect(try await store.runMaintenance(now: Date()).expired.isEmpty)
        let due = try #require(try await store.nextMaintenanceTime())
        #expect(abs(due.timeIntervalSince(a.createdAt) - 60) < 0.01)
        let later = a.createdAt.addingTimeInterval(61)
        #expect(try await store.runMaintenance(now: later).expired == [a.id])
        #expect(try await store.runMaintenance(now: later).expired.isEmpty)
        let record = try #require(try await store.record(id: a.id))
        #expect(record.alert.state == .expired)
        #expect(record.alert.decision?.actor == "alertd")
        #expect(record.deliveries.map(\.presenter) == ["handler:cancel"])
        #expect(try await store.nextMaintenanceTime() == nil)
    }

    @Test func aDecisionAfterTheExpiryLosesToTheClock() async throws {
        let store = try SQLiteAlertStore(path: dir.path + "/late.db")
        let a = try alert(expires: .seconds(60))
        _ = try await store.submit([AlertSubmission(alert: a, presenters: [])])
        // The dispatcher has not expired it yet, but its time is up.
        let late = try await store.decide(a.id, AlertDecision(outcome: .confirmed, actor: "uid:1000", at: a.createdAt.addingTimeInterval(61)))
        guard case .alreadyDecided(let current) = late else { Issue.record("a late decision won: \(late)"); return }
        #expect(current.state == .expired)
        #expect(try #require(try await store.record(id: a.id)).deliveries.map(\.presenter) == ["handler:cancel"])
    }

    @Test func escalationFiresOnceAndNotAfterADecision() async throws {
        let store = try SQLiteAlertStore(path: dir.path + "/esc.db")
        let open = try alert(confirm: false, cancel: false)
        let decided = try alert(confirm: false, cancel: false)
        let esc = Escalation(after: .seconds(900), presenters: ["pager"])
        _ = try await store.submit([
            AlertSubmission(alert: open, presenters: ["log"], escalation: esc),
            AlertSubmission(alert: decided, presenters: ["log"], escalation: esc),
        ])
        _ = try await store.decide(decided.id, AlertDecision(outcome: .resolved, actor: "uid:0"))
        let later = open.createdAt.addingTimeInterval(901)
        #expect(try await store.runMaintenance(now: later).escalated == [open.id])
        #expect(try await store.runMaintenance(now: later.addingTimeInterval(900)).escalated.isEmpty)
        #expect(try #require(try await store.record(id: open.id)).deliveries.map(\.presenter) == ["log", "pager"])
        #expect(try #require(try await store.record(id: decided.id)).deliveries.map(\.presenter) == ["log"])
    }

    @Test func resolvingByDedupKeyFreesTheKey() async throws {
        let store = try SQLiteAlertStore(path: dir.path + "/dedup.db")
        let a = try alert(confirm: false, cancel: false, dedup: "disk:db1")
        _ = try await store.submit([AlertSubmission(alert: a, presenters: [])])
        #expect(try await store.openAlert(dedupKey: "disk:db1") == a.id)
        _ = try await store.decide(a.id, AlertDecision(outcome: .resolved, actor: "uid:0"))
        #expect(try await store.openAlert(dedupKey: "disk:db1") == nil)
        let b = try alert(confirm: false, cancel: false, dedup: "disk:db1")
        #expect(try await store.submit([AlertSubmission(alert: b, presenters: [])]).first?.deduplicated == false)
    }
}

@Suite struct StoreCountsTests {
    @Test func triggerKeptCountsMatchARecount() async throws {
        let dir = TemporaryDirectory()
        let store = try SQLiteAlertStore(path: dir.path + "/counts.db")
        var ids: [AlertID] = []
        for i in 0..<20 {
            let a = Alert(spec: try AlertSpec.Builder().title("a\(i)").confirm("Go", handler: "https://x.example/go").build().get())
            ids.append(a.id)
            _ = try await store.submit([AlertSubmission(alert: a, presenters: ["one", "two"])])
        }
        let claimed = try await store.claimDueDeliveries(now: Date(), capacity: ["one": 10, "two": 3], orphanLimit: 0)
        try await store.settle(claimed.prefix(5).map { DeliverySettlement(deliveryID: $0.delivery.id, result: .delivered) })
        try await store.settle(claimed.dropFirst(5).prefix(2).map { DeliverySettlement(deliveryID: $0.delivery.id, result: .dead(error: "x")) })
        for id in ids.prefix(4) { _ = try await store.decide(id, AlertDecision(outcome: .confirmed, actor: "t")) }
        _ = try await store.decide(ids[0], AlertDecision(outcome: .cancelled, actor: "t"))  // loses: no change

        let kept = try await store.counts()
        let conn = try SQLiteConnection(path: dir.path + "/counts.db", readOnly: true)
        let recount = try conn.withLock { c throws(SQLiteError) in
            StoreCounts(
                openAlerts: Int(try c.scalar("SELECT COUNT(*) FROM alerts WHERE state = 'open'") ?? -1),
                pending: Int(try c.scalar("SELECT COUNT(*) FROM deliveries WHERE state = 'pending'") ?? -1),
                inFlight: Int(try c.scalar("SELECT COUNT(*) FROM deliveries WHERE state = 'in_flight'") ?? -1),
                dead: Int(try c.scalar("SELECT COUNT(*) FROM deliveries WHERE state = 'dead'") ?? -1))
        }
        #expect(kept == recount)
        #expect(kept == StoreCounts(openAlerts: 16, pending: 40 - 13 + 4, inFlight: 6, dead: 2))
    }
}

@Suite struct PruningTests {
    @Test func closedAlertsPastRetentionGoWithTheirDeliveriesAndCountsStayRight() async throws {
        let dir = TemporaryDirectory()
        let store = try SQLiteAlertStore(path: dir.path + "/prune.db")
        let long = Date().addingTimeInterval(-40 * 86_400)
        func alert(_ title: String, at date: Date) throws -> Alert {
            Alert(spec: try AlertSpec.Builder().title(title).build().get(), at: date)
        }
        let oldClosed = try alert("old closed", at: long)
        let oldOpen = try alert("old open", at: long)
        let oldUndelivered = try alert("old closed, delivery pending", at: long)
        let recentClosed = try alert("recent closed", at: Date())
        _ = try await store.submit([
            AlertSubmission(alert: oldClosed, presenters: []),
            AlertSubmission(alert: oldOpen, presenters: []),
            AlertSubmission(alert: oldUndelivered, presenters: ["hook"]),
            AlertSubmission(alert: recentClosed, presenters: []),
        ])
        for a in [oldClosed, oldUndelivered] {
            _ = try await store.decide(a.id, AlertDecision(outcome: .resolved, actor: "t", at: long.addingTimeInterval(60)))
        }
        _ = try await store.decide(recentClosed.id, AlertDecision(outcome: .resolved, actor: "t"))

        let cutoff = Date().addingTimeInterval(-30 * 86_400)
        #expect(try await store.prune(closedBefore: cutoff, limit: 100) == 1)
        #expect(try await store.record(id: oldClosed.id) == nil)
        #expect(try await store.record(id: oldOpen.id) != nil)  // open: never pruned
        #expect(try await store.record(id: oldUndelivered.id) != nil)  // a delivery still pending
        #expect(try await store.record(id: recentClosed.id) != nil)
        #expect(try await store.counts() == StoreCounts(openAlerts: 1, pending: 1, inFlight: 0, dead: 0))
        // The newest event survives pruning, so the log's position is never lost.
        let events = try await store.events(after: 0, limit: 100)
        #expect(!events.isEmpty)
        #expect(events.allSatisfy { $0.at >= cutoff || $0.sequence == events.last?.sequence })
    }

    @Test func retentionIsConfigurable() throws {
        #expect(try DaemonConfiguration.parse(Data("{}".utf8)).store.retention == .seconds(30 * 86_400))
        #expect(try DaemonConfiguration.parse(Data(#"{"store": {"retention": "7d"}}"#.utf8)).store.retention == .seconds(7 * 86_400))
        #expect(try DaemonConfiguration.parse(Data(#"{"store": {"retention": "forever"}}"#.utf8)).store.retention == nil)
    }
}

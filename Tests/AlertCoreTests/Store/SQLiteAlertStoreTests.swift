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

@Suite struct SQLiteAlertStoreTests {
    let dir: TemporaryDirectory
    let store: SQLiteAlertStore

    init() throws {
        dir = TemporaryDirectory()
        store = try SQLiteAlertStore(path: dir.path + "/alertd.db")
    }

    func spec(_ title: String = "Disk full", dedup: String? = nil, labels: [String: String] = [:]) throws -> AlertSpec {
        var b = AlertSpec.Builder().title(title).labels(labels)
        if let dedup { b = b.dedupKey(dedup) }
        return try b.build().get()
    }

    @Test func submittedAlertReadsBackWithItsDeliveries() async throws {
        let alert = Alert(spec: try spec())
        let results = try await store.submit([AlertSubmission(alert: alert, presenters: ["terminal", "log"])])
        #expect(results == [SubmissionResult(id: alert.id, state: .open, deduplicated: false)])
        let record = try #require(try await store.record(id: alert.id))
        #expect(record.alert.spec == alert.spec)
        #expect(record.alert.state == .open)
        #expect(record.deliveries.map(\.presenter) == ["terminal", "log"])
        #expect(record.deliveries.allSatisfy { $0.state == .pending && $0.attempts == 0 })
    }

    @Test func openDedupKeyFoldsIntoTheExistingAlertEvenInOneBatch() async throws {
        let first = Alert(spec: try spec(dedup: "k1"))
        let second = Alert(spec: try spec(dedup: "k1"))
        let results = try await store.submit([
            AlertSubmission(alert: first, presenters: ["log"]),
            AlertSubmission(alert: second, presenters: ["log"]),
        ])
        #expect(results[0].deduplicated == false)
        #expect(results[1] == SubmissionResult(id: first.id, state: .open, deduplicated: true))
        #expect(try await store.record(id: second.id) == nil)
        #expect(try await store.counts().pending == 1)
    }

    @Test func concurrentSubmissionsShareCommits() async throws {
        let batches = BatchCounter()
        let counted = try SQLiteAlertStore(path: dir.path + "/group.db") { n in batches.add(n) }
        let alerts = try (0..<400).map { Alert(spec: try spec("a\($0)")) }
        let results = try await withThrowingTaskGroup(of: SubmissionResult.self) { group in
            for a in alerts { group.addTask { try await counted.submit([AlertSubmission(alert: a, presenters: ["log"])])[0] } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(results.map(\.id)) == Set(alerts.map(\.id)))
        let (commits, jobs) = batches.totals
        #expect(jobs == 400)
        // Group commit: far fewer transactions than submissions.
        #expect(commits < 400)
        #expect(try await counted.counts().pending == 400)
    }

    @Test func claimSettleAndRetryCycle() async throws {
        let alert = Alert(spec: try spec())
        _ = try await store.submit([AlertSubmission(alert: alert, presenters: ["hook"])])
        let now = Date()
        let claimed = try await store.claimDueDeliveries(now: now, capacity: ["hook": 4], orphanLimit: 0)
        #expect(claimed.count == 1)
        #expect(claimed[0].delivery.attempts == 1)
        #expect(claimed[0].alert.spec == alert.spec)
        // Claimed work is not handed out twice.
        #expect(try await store.claimDueDeliveries(now: now, capacity: ["hook": 4], orphanLimit: 0).isEmpty)

        let later = now.addingTimeInterval(60)
        try await store.settle([DeliverySettlement(deliveryID: claimed[0].delivery.id, result: .retry(at: later, error: "HTTP 500"))])
        let pending = try #require(try await store.record(id: alert.id)).deliveries[0]
        #expect(pending.state == .pending)
        #expect(pending.lastError == "HTTP 500")
        #expect(try await store.claimDueDeliveries(now: now, capacity: ["hook": 4], orphanLimit: 0).isEmpty)
        let due = try #require(try await store.nextDueTime())
        #expect(abs(due.timeIntervalSince(later)) < 0.01)

        let again = try await store.claimDueDeliveries(now: later, capacity: ["hook": 4], orphanLimit: 0)
        #expect(again.first?.delivery.attempts == 2)
        try await store.settle([DeliverySettlement(deliveryID: again[0].delivery.id, result: .delivered)])
        let done = try #require(try await store.record(id: alert.id)).deliveries[0]
        #expect(done.state == .delivered)
        #expect(done.lastError == nil)
        #expect(done.deliveredAt != nil)
    }

    @Test func capacityBoundsClaimsPerPresenterAndOrphansAreReturned() async throws {
        for i in 0..<5 {
            _ = try await store.submit([AlertSubmission(alert: Alert(spec: try spec("a\(i)")), presenters: ["a", "gone"])])
        }
        let claimed = try await store.claimDueDeliveries(now: Date(), capacity: ["a": 2], orphanLimit: 3)
        #expect(claimed.filter { $0.delivery.presenter == "a" }.count == 2)
        #expect(claimed.filter { $0.delivery.presenter == "gone" }.count == 3)
    }

    @Test func inFlightDeliveriesAreRecoveredAfterReopening() async throws {
        let path = dir.path + "/crash.db"
        let alert = Alert(spec: try spec())
        do {
            let s = try SQLiteAlertStore(path: path)
            _ = try await s.submit([AlertSubmission(alert: alert, presenters: ["hook"])])
            _ = try await s.claimDueDeliveries(now: Date(), capacity: ["hook": 1], orphanLimit: 0)
            s.close()
        }
        let reopened = try SQLiteAlertStore(path: path)
        #expect(try await reopened.counts().inFlight == 1)
        #expect(try await reopened.recoverInFlight(now: Date()) == 1)
        let claimed = try await reopened.claimDueDeliveries(now: Date(), capacity: ["hook": 1], orphanLimit: 0)
        #expect(claimed.first?.alert.id == alert.id)
        #expect(claimed.first?.delivery.attempts == 2)
    }

    @Test func replayMakesDeadDeliveriesPendingAgain() async throws {
        let alert = Alert(spec: try spec())
        _ = try await store.submit([AlertSubmission(alert: alert, presenters: ["hook"])])
        let claimed = try await store.claimDueDeliveries(now: Date(), capacity: ["hook": 1], orphanLimit: 0)
        try await store.settle([DeliverySettlement(deliveryID: claimed[0].delivery.id, result: .dead(error: "HTTP 404"))])
        #expect(try await store.counts().dead == 1)
        #expect(try await store.replayDead(alert: alert.id, now: Date()) == 1)
        let d = try #require(try await store.record(id: alert.id)).deliveries[0]
        #expect(d.state == .pending)
        #expect(d.attempts == 0)
    }

    @Test func listingIsNewestFirstWithCursorAndFilters() async throws {
        var ids: [AlertID] = []
        for i in 0..<7 {
            let a = Alert(spec: try spec("a\(i)", labels: ["env": i % 2 == 0 ? "prod" : "dev"]))
            ids.append(a.id)
            _ = try await store.submit([AlertSubmission(alert: a, presenters: [])])
        }
        let page1 = try await store.alerts(matching: AlertQuery(limit: 3))
        #expect(page1.alerts.map(\.id) == Array(ids.reversed().prefix(3)))
        let page2 = try await store.alerts(matching: AlertQuery(limit: 3, before: page1.nextCursor))
        #expect(page2.alerts.map(\.id) == Array(ids.reversed().dropFirst(3).prefix(3)))
        let page3 = try await store.alerts(matching: AlertQuery(limit: 3, before: page2.nextCursor))
        #expect(page3.alerts.count == 1)
        #expect(page3.nextCursor == nil)
        let prod = try await store.alerts(matching: AlertQuery(labels: [("env", "prod")], limit: 100))
        #expect(prod.alerts.count == 4)
        #expect(try await store.alerts(matching: AlertQuery(state: .confirmed)).alerts.isEmpty)
    }

    @Test func aStoreFromANewerAlertdIsRefused() async throws {
        let path = dir.path + "/future.db"
        do { _ = try SQLiteAlertStore(path: path) }
        let conn = try SQLiteConnection(path: path)
        try conn.withLock { c throws(SQLiteError) in try c.execute("PRAGMA user_version = 99") }
        #expect {
            _ = try SQLiteAlertStore(path: path)
        } throws: { ($0 as? StoreError)?.code == .incompatible }
    }

    @Test func anUnwritableLocationGivesAnActionableError() {
        #expect {
            _ = try SQLiteAlertStore(path: "/nonexistent-dir/alertd.db")
        } throws: { error in
            guard let e = error as? StoreError else { return false }
            return e.code == .cannotOpen && e.message.contains("state directory")
        }
    }
}

final class BatchCounter: Sendable {
    private let state = Mutex<(commits: Int, jobs: Int)>((0, 0))
    func add(_ n: Int) { state.withLock { $0.commits += 1; $0.jobs += n } }
    var totals: (Int, Int) { state.withLock { ($0.commits, $0.jobs) } }
}

import Synchronization

@Suite struct CanonicalJSONTests {
    @Test func canonicalJSONMatchesTheEncoderAndDecodesBack() throws {
        let specs = [
            try AlertSpec.Builder().title("x").build().get(),
            try AlertSpec.Builder().title("Disk \"full\" \\ on db1").message("line1\nline2\ttab\r\nend")
                .severity(.critical).labels(["b": "2", "a": "1", "quote": "\"q\""])
                .confirm("Go", handler: "https://ops.example/go?x=1&y=2").cancel("Stop", handler: "http://ops.example/stop", method: .put)
                .dedupKey("k/1").expires(after: .minutes(30)).build().get(),
            try AlertSpec.Builder().title("ünïcödé ✓ 🚨").message("").build().get(),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for spec in specs {
            let canonical = spec.canonicalJSON
            #expect(try JSONDecoder().decode(AlertSpec.self, from: Data(canonical.utf8)) == spec)
            // Same document as Foundation's encoder writes, key for key.
            let viaEncoder = try JSONSerialization.jsonObject(with: try encoder.encode(spec)) as? NSDictionary
            let viaCanonical = try JSONSerialization.jsonObject(with: Data(canonical.utf8)) as? NSDictionary
            #expect(viaEncoder == viaCanonical)
        }
    }
}

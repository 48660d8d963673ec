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
    @Test func triggerKeptCountsMatchARecount() async throws {
        let dir = TemporaryDirectory()
        let store = try SQLiteAlertStore(path: dir.path + "/counts.db")
        var ids: [AlertID] = []
        for i in 0..<20 {
            let a = Alert(spec: try AlertSpec.Builder().title("a\(i)").confirm("Go", handler: "https://x.example/go").build().get())
            ids.append(a.id)
            _ = try await store.submit([AlertSubmission(alert: a, presenters: ["one", "two"])])
        }
        let claimed = try await store.claimDueDeliveries(now: Date(), capacity: [.presenter("one"): 10, .presenter("two"): 3], orphanLimit: 0)
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
                dead: Int(try c.scalar("SELECT COUNT(*) FROM deliveries WHERE state = 'dead'") ?? -1),
                pendingByPresenter: kept.pendingByPresenter)
        }
        #expect(kept == recount)
        #expect(kept == StoreCounts(openAlerts: 16, pending: 40 - 13 + 4, inFlight: 6, dead: 2,
                                   pendingByPresenter: ["one": 10, "two": 17, "handler:confirm": 4]))
    }
}

@Suite struct RetentionConfigurationTests {
    @Test func retentionIsConfigurable() throws {
        #expect(try DaemonConfiguration.parse(Data("{}".utf8)).store.retention == .seconds(30 * 86_400))
        #expect(try DaemonConfiguration.parse(Data(#"{"store": {"retention": "7d"}}"#.utf8)).store.retention == .seconds(7 * 86_400))
        #expect(try DaemonConfiguration.parse(Data(#"{"store": {"retention": "forever"}}"#.utf8)).store.retention == nil)
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdStore
@testable import AlertdSQLiteStore

/// A presenter that delivers again after failing has its waiting retries
/// made due at once, on every backend: only its own, only retries (an
/// attempt made), and none a silence holds.
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.allCases) func aRecoveredPresentersWaitingRetriesAreDueAtOnce(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let start = Date()
        let failed = Alert(spec: try spec("Failed once"), at: start)
        let held = try labelled(["host": "db"])
        _ = try await store.submit([AlertSubmission(alert: failed, presenters: ["hook", "pager"]),
                                    AlertSubmission(alert: held, presenters: ["hook"])])
        let later = start.addingTimeInterval(3600)
        _ = try await deliverDue(store, at: start.addingTimeInterval(1)) { _ in .retry(at: later, error: "HTTP 503") }
        _ = try await store.saveSilence(try silence(#"host="db""#, from: start.addingTimeInterval(1)), replacing: nil, now: start.addingTimeInterval(1))
        let now = start.addingTimeInterval(2)
        // Both hook retries are made due; the claim, which screens, holds the silenced one.
        #expect(try await store.hastenRetries(of: .presenter("hook"), now: now) == 2)
        #expect(try await store.claimDueDeliveries(now: now, capacity: [.presenter("hook"): 8], orphanLimit: 0)
            .map(\.alert.id) == [failed.id])
        // A fresh one waits for nothing; the other presenter's retry and the held one stay where they were.
        let fresh = Alert(spec: try spec("Fresh"), at: now)
        _ = try await store.submit([AlertSubmission(alert: fresh, presenters: ["hook"])])
        #expect(try await store.hastenRetries(of: .presenter("hook"), now: now.addingTimeInterval(1)) == 0)
        #expect(try await store.hastenRetries(of: .presenter("pager"), now: now.addingTimeInterval(1)) == 1)
        let record = try #require(try await store.record(id: held.id))
        #expect(record.deliveries.map(\.silencedBy) != [nil])
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdStore
@testable import AlertdSQLiteStore

/// Re-sends folded by dedup key are counted on every backend, with when the
/// latest arrived; a closed alert counts none, and a fresh alert starts at none.
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.allCases) func foldedResendsAreCountedWithTheLastTimeSeen(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let first = Alert(spec: try spec(dedup: "rack:7"), at: start)
        _ = try await store.submit([AlertSubmission(alert: first, presenters: ["hook"])])
        #expect(try await store.record(id: first.id)?.alert.repeats == nil)

        for i in 1...3 {
            let again = Alert(spec: try spec(dedup: "rack:7"), at: start.addingTimeInterval(Double(i) * 10))
            #expect(try await store.submit([AlertSubmission(alert: again, presenters: ["hook"])]).first?.deduplicated == true)
        }
        let record = try #require(try await store.record(id: first.id))
        #expect(record.alert.repeats == AlertRepeats(count: 3, lastSeenAt: start.addingTimeInterval(30)))
        #expect(record.deliveries.count == 1)  // folding sends nothing new
        #expect(try await store.alerts(matching: AlertQuery()).alerts.first?.repeats?.count == 3)

        _ = try await store.decide(first.id, AlertDecision(outcome: .resolved, actor: "t", at: start.addingTimeInterval(40)))
        let fresh = Alert(spec: try spec(dedup: "rack:7"), at: start.addingTimeInterval(50))
        #expect(try await store.submit([AlertSubmission(alert: fresh, presenters: [])]).first?.deduplicated == false)
        #expect(try await store.record(id: fresh.id)?.alert.repeats == nil)
        #expect(try await store.record(id: first.id)?.alert.repeats?.count == 3)
    }

    /// Keys are compared exactly (docs/API.md): the same text in another
    /// Unicode form (a Kelvin sign for K, é as e and a combining accent) is
    /// another key, whether in the same batch as the first or later.
    @Test(arguments: StoreBackend.allCases) func dedupKeysAreComparedByteForByte(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        for (first, other) in [("temp-K", "temp-\u{212A}"), ("caf\u{E9}", "cafe\u{301}")] {
            #expect(first == other)  // equal as Swift strings, not as bytes
            let together = try await store.submit([AlertSubmission(alert: Alert(spec: try spec(dedup: first)), presenters: []),
                                                   AlertSubmission(alert: Alert(spec: try spec(dedup: other)), presenters: [])])
            #expect(together.map(\.deduplicated) == [false, false])
            let later = try await store.submit([AlertSubmission(alert: Alert(spec: try spec(dedup: other)), presenters: [])])
            #expect(later.map(\.deduplicated) == [true])
            #expect(later.first?.id == together.last?.id)
        }
    }
}

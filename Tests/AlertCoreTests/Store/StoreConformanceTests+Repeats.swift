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

    /// A re-send through Alertmanager's API (with an `endsAt` or not)
    /// brings its newest title and message, as Alertmanager keeps the
    /// newest annotations; any other re-send changes nothing (docs/API.md,
    /// Deduplication).
    @Test(arguments: StoreBackend.allCases) func aReSendThroughAlertmanagersAPIBringsItsNewestTitleAndMessage(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let t = Date()
        func sent(_ title: String, _ message: String, refreshes: Bool, ends: Bool = true, at offset: Double) throws -> AlertSubmission {
            let spec = try AlertSpec.Builder().title(title).message(message).severity(.warning).labels(["inst": "i1"]).dedupKey("fp:9").build().get()
            return AlertSubmission(alert: Alert(spec: spec, at: t.addingTimeInterval(offset), resolvesAt: ends ? t.addingTimeInterval(offset + 60) : nil),
                                   presenters: ["hook"], refreshes: refreshes)
        }
        let first = try sent("high i1 at 20", "value is 20", refreshes: true, at: 0)
        _ = try await store.submit([first])
        #expect(try await store.submit([try sent("high i1 at 50", "value is 50", refreshes: true, at: 5)]).first?.deduplicated == true)
        // Alertmanager's webhook carries no endsAt for a firing alert, nor does amtool.
        #expect(try await store.submit([try sent("high i1 at 99", "value is 99", refreshes: true, ends: false, at: 10)]).first?.deduplicated == true)
        var alert = try #require(try await store.record(id: first.alert.id)).alert
        #expect(alert.spec.title == "high i1 at 99")
        #expect(alert.spec.message == "value is 99")
        #expect(alert.repeats?.count == 2)
        // With no endsAt the latest re-send gave none: the alert stays open until resolved, not lapsing under a sender still sending.
        #expect(alert.resolvesAt == nil)
        #expect(try await store.alerts(matching: AlertQuery()).alerts.first?.spec.title == "high i1 at 99")

        _ = try await store.submit([try sent("a native re-send", "changes nothing", refreshes: false, ends: false, at: 20)])
        alert = try #require(try await store.record(id: first.alert.id)).alert
        #expect(alert.spec.title == "high i1 at 99")
        #expect(alert.repeats?.count == 3)
        // One with an endsAt again moves it there.
        _ = try await store.submit([try sent("high i1 at 98", "value is 98", refreshes: true, at: 30)])
        let moved = try #require(try await store.record(id: first.alert.id)?.alert.resolvesAt)
        #expect(abs(moved.timeIntervalSince(t.addingTimeInterval(90))) < 0.01)
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

    /// After alertd was down, each alert that resolves by the clock gets
    /// its sender's window again from the start (its `resolves_at` less
    /// when it was last sent), so a sender whose re-sends failed meanwhile
    /// can reach it before it resolves; a second start does not add the
    /// first's grace to it.
    @Test(arguments: StoreBackend.allCases) func aStartGivesResentAlertsTheirWindowAgain(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let t = Date(timeIntervalSince1970: 1_800_000_000)
        func sent(_ key: String, at offset: Double, ends: Double?) throws -> AlertSubmission {
            let spec = try AlertSpec.Builder().title(key).dedupKey(key).build().get()
            return AlertSubmission(alert: Alert(spec: spec, at: t.addingTimeInterval(offset), resolvesAt: ends.map { t.addingTimeInterval($0) }),
                                   presenters: [], refreshes: true)
        }
        let once = try sent("once", at: 0, ends: 60)
        let resent = try sent("resent", at: 0, ends: 60)
        let forever = try sent("forever", at: 0, ends: nil)
        let closed = try sent("closed", at: 0, ends: 60)
        _ = try await store.submit([once, resent, forever, closed])
        _ = try await store.submit([try sent("resent", at: 30, ends: 90)])
        _ = try await store.decide(closed.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: t.addingTimeInterval(40)))

        // Started at t+200, after every one of them lapsed: each gets its window again, from the start.
        let start = t.addingTimeInterval(200)
        #expect(try await store.runMaintenance(now: t.addingTimeInterval(259), resendGraceFrom: start).resolved.isEmpty)
        // Started again at t+230: one window from the latest start, not the sum of the two.
        let again = t.addingTimeInterval(230)
        #expect(try await store.runMaintenance(now: t.addingTimeInterval(289), resendGraceFrom: again).resolved.isEmpty)
        #expect(Set(try await store.runMaintenance(now: t.addingTimeInterval(290), resendGraceFrom: again).resolved) == [once.alert.id, resent.alert.id])
        #expect(try await store.record(id: once.alert.id)?.alert.resolvesAt == t.addingTimeInterval(60))
        #expect(try await store.record(id: forever.alert.id)?.alert.state == .open)
        #expect(try await store.record(id: closed.alert.id)?.alert.state == .resolved)

        // Sent once with an end a day ahead: a start long before that end changes nothing;
        // one within the hour's grace of it gives the hour, no more.
        let day = try sent("day", at: 0, ends: 86_400)
        _ = try await store.submit([day])
        #expect(try await store.runMaintenance(now: t.addingTimeInterval(86_399), resendGraceFrom: t.addingTimeInterval(3_600)).resolved.isEmpty)
        #expect(try await store.runMaintenance(now: t.addingTimeInterval(86_400), resendGraceFrom: t.addingTimeInterval(3_600)).resolved
            == [day.alert.id])
        let later = try sent("later", at: 0, ends: 86_400)
        _ = try await store.submit([later])
        let lateStart = t.addingTimeInterval(86_000)
        #expect(try await store.runMaintenance(now: t.addingTimeInterval(86_000 + 3_599), resendGraceFrom: lateStart).resolved.isEmpty)
        #expect(try await store.runMaintenance(now: t.addingTimeInterval(86_000 + 3_600), resendGraceFrom: lateStart).resolved == [later.alert.id])
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdStore
@testable import AlertdSQLiteStore

/// Escalations still to come follow the routes as reloaded, on every
/// backend: one a route no longer has is held, never due, and fires as it
/// would have once a later reload gives it back; a changed one fires when
/// and where the route now says, and one fired already stays fired.
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.allCases) func escalationsStillToComeFollowTheRoutesAsReloaded(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let start = Date()
        let pager = Escalation(after: .seconds(900), presenters: ["pager"])
        // More than a page of them, so that the pages are seen to follow one another.
        let dropped = try (0...StoreRules.escalationPage).map { i in Alert(spec: try spec("drop \(i)"), at: start) }
        let moved = Alert(spec: try spec("move"), at: start)
        let kept = Alert(spec: try spec("keep"), at: start)
        let fired = Alert(spec: try spec("fired"), at: start)
        _ = try await store.submit(dropped.map { AlertSubmission(alert: $0, presenters: ["log"], escalation: pager) } + [
            AlertSubmission(alert: moved, presenters: ["log"], escalation: pager),
            AlertSubmission(alert: kept, presenters: ["log"], escalation: pager),
            AlertSubmission(alert: fired, presenters: ["log"], escalation: Escalation(after: .seconds(10), presenters: ["pager"])),
        ])
        #expect(try await store.runMaintenance(now: start.addingTimeInterval(11)).escalated == [fired.id])

        let oncall = Escalation(after: .seconds(60), presenters: ["oncall"], followUps: ["oncall"])
        let plan: @Sendable (Alert) -> Escalation? = { alert in
            switch alert.spec.title {
            case "move": oncall
            case "keep": pager
            case "fired": Escalation(after: .seconds(30), presenters: ["other"])
            default: nil
            }
        }
        #expect(try await store.followEscalations(plan) == dropped.count + 1)
        // Followed again, nothing is left to change.
        #expect(try await store.followEscalations(plan) == 0)

        #expect(try await store.runMaintenance(now: start.addingTimeInterval(61)).escalated == [moved.id])
        #expect(try await store.runMaintenance(now: start.addingTimeInterval(901)).escalated == [kept.id])
        #expect(try await store.runMaintenance(now: start.addingTimeInterval(2000)).escalated.isEmpty)
        #expect(try await store.nextMaintenanceTime() == nil)
        #expect(try #require(try await store.record(id: moved.id)).deliveries.map(\.presenter) == ["log", "oncall"])
        #expect(try #require(try await store.record(id: kept.id)).deliveries.map(\.presenter) == ["log", "pager"])
        #expect(try #require(try await store.record(id: fired.id)).deliveries.map(\.presenter) == ["log", "pager"])
        #expect(try #require(try await store.record(id: dropped[0].id)).deliveries.map(\.presenter) == ["log"])

        // Given back by a later reload, a held escalation fires as it would
        // have, here at once, being overdue; the rest stay held.
        let back: @Sendable (Alert) -> Escalation? = { $0.spec.title == "drop 0" ? pager : nil }
        #expect(try await store.followEscalations(back) == 1)
        #expect(try await store.nextMaintenanceTime().map(StoreCoding.millis) == StoreCoding.millis(dropped[0].createdAt) + 900_000)
        #expect(try await store.runMaintenance(now: start.addingTimeInterval(2001)).escalated == [dropped[0].id])
        #expect(try #require(try await store.record(id: dropped[0].id)).deliveries.map(\.presenter) == ["log", "pager"])
    }
}

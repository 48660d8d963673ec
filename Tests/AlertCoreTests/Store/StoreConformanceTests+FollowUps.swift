import Foundation
import Testing
@testable import AlertModel
@testable import AlertdStore
@testable import AlertdSQLiteStore

/// Follow-ups, held to the same contract on every backend: closing an alert
/// queues, in the closing transaction, one follow-up per delivery that
/// showed it to a presenter taking follow-ups; a delivery still on its way
/// gets its follow-up in the transaction that records it delivered; one
/// that never went out (dead, withheld by a silence) gets none. And alerts
/// with a `resolvesAt` (Alertmanager's `endsAt`) resolve when it passes.
extension StoreConformanceTests {
    static let followUpKinds: [DeliveryKind: Int] = [.presenter("hook"): 8, .presenter("log"): 8, .presenter("quiet"): 8, .presenter("pager"): 8]

    /// Claims what is due at `now` and settles each with `result(presenter)`,
    /// as the dispatcher does: with the delivery its claim gave.
    func deliverDue(_ store: any AlertStore, at now: Date = Date(),
                    _ result: (DeliveryRecord) -> DeliverySettlement.Result = { _ in .delivered }) async throws -> [ClaimedDelivery] {
        let claimed = try await store.claimDueDeliveries(now: now, capacity: Self.followUpKinds, orphanLimit: 0)
        try await store.settle(claimed.map { DeliverySettlement($0.delivery, result: result($0.delivery), at: now) })
        return claimed
    }

    @Test(arguments: StoreBackend.allCases) func closingQueuesOneFollowUpPerDeliveredOriginalInTheSameTransaction(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let a = Alert(spec: try spec())
        _ = try await store.submit([AlertSubmission(alert: a, presenters: ["hook", "log", "quiet"], followUps: ["hook", "log"])])
        #expect(try await deliverDue(store).count == 3)
        let closedAt = Date()
        guard case .decided = try await store.decide(a.id, AlertDecision(outcome: .resolved, actor: "uid:0", at: closedAt, comment: "fixed")) else {
            Issue.record("not decided"); return
        }
        let record = try #require(try await store.record(id: a.id))
        let followUps = record.deliveries.filter { $0.followUpOf != nil }
        #expect(followUps.map(\.id) == [.followUp(of: .routed(a.id, 0)), .followUp(of: .routed(a.id, 1))])
        #expect(followUps.map(\.followUpOf) == [.routed(a.id, 0), .routed(a.id, 1)])
        #expect(followUps.map(\.kind) == [.presenter("hook"), .presenter("log")])
        #expect(followUps.allSatisfy { $0.state == .pending && !$0.takesFollowUp })
        #expect(record.deliveries.filter(\.takesFollowUp).map(\.presenter) == ["hook", "log"])
        let closing = try #require(try await store.events(after: 0, limit: 50).first { $0.kind == .alertResolved })
        #expect(closing.data["follow_up_delivery_ids"] == followUps.map(\.id.rawValue).joined(separator: ","))

        // Claimed like any delivery, with the closed alert; delivering one queues nothing more.
        let claimed = try await deliverDue(store)
        #expect(claimed.map(\.delivery.followUpOf).sorted { ($0?.rawValue ?? "") < ($1?.rawValue ?? "") } == [.routed(a.id, 0), .routed(a.id, 1)])
        #expect(claimed.allSatisfy { $0.alert.state == .resolved && $0.alert.decision?.comment == "fixed" })
        let after = try #require(try await store.record(id: a.id)).deliveries
        #expect(after.count == 5)
        #expect(after.allSatisfy { $0.state == .delivered })
        #expect(try await store.counts().pending == 0)
    }

    @Test(arguments: StoreBackend.allCases) func aRetryingOriginalIsFollowedUpOnceDeliveredAndADeadOneOnlyIfReplayedAndDelivered(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let a = Alert(spec: try spec())
        _ = try await store.submit([AlertSubmission(alert: a, presenters: ["hook", "log"], followUps: ["hook", "log"])])
        let now = Date()
        let retryAt = now.addingTimeInterval(30)
        _ = try await deliverDue(store, at: now) { $0.presenter == "hook" ? .retry(at: retryAt, error: "HTTP 503") : .dead(error: "HTTP 404") }
        guard case .decided = try await store.decide(a.id, AlertDecision(outcome: .confirmed, actor: "uid:1000", at: now)) else {
            Issue.record("not decided"); return
        }
        // Neither has shown the alert: no follow-up yet.
        #expect(try #require(try await store.record(id: a.id)).deliveries.allSatisfy { $0.followUpOf == nil })

        // The retry goes out (showing the closed alert), and its follow-up is queued with it, due then.
        let retried = try await deliverDue(store, at: retryAt)
        #expect(retried.map(\.delivery.id) == [.routed(a.id, 0)])
        let followUp = try #require(try await store.record(id: a.id)).deliveries.first { $0.id == .followUp(of: .routed(a.id, 0)) }
        #expect(followUp?.state == .pending)
        #expect(followUp?.nextAttemptAt.map { abs($0.timeIntervalSince(retryAt)) < 0.01 } == true)
        #expect(try await deliverDue(store, at: retryAt).map(\.delivery.id) == [.followUp(of: .routed(a.id, 0))])

        // The dead one never showed the alert: nothing to follow up, until a replay delivers it.
        #expect(try #require(try await store.record(id: a.id)).deliveries.count == 3)
        #expect(try await store.replayDead(alert: a.id, now: retryAt) == 1)
        #expect(try await deliverDue(store, at: retryAt).map(\.delivery.id) == [.routed(a.id, 1)])
        #expect(try await deliverDue(store, at: retryAt).map(\.delivery.id) == [.followUp(of: .routed(a.id, 1))])
        #expect(try #require(try await store.record(id: a.id)).deliveries.count == 4)
    }

    @Test(arguments: StoreBackend.allCases) func aDeliveryWithheldByASilenceGetsNoFollowUp(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let a = try labelled(["host": "db1"])
        _ = try await store.submit([AlertSubmission(alert: a, presenters: ["hook"], followUps: ["hook"])])
        let now = Date()
        _ = try await store.saveSilence(try silence(#"host="db1""#, from: now.addingTimeInterval(-1)), replacing: nil, now: now)
        #expect(try await deliverDue(store, at: now).isEmpty)
        _ = try await store.decide(a.id, AlertDecision(outcome: .resolved, actor: "uid:0", at: now))
        #expect(try await deliverDue(store, at: now.addingTimeInterval(7200)).isEmpty)
        let deliveries = try #require(try await store.record(id: a.id)).deliveries
        #expect(deliveries.map(\.state) == [.silenced])
    }

    @Test(arguments: StoreBackend.allCases) func escalatedPresentersAreFollowedUpToo(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let a = Alert(spec: try spec())
        let escalation = Escalation(after: .seconds(60), presenters: ["pager", "quiet"], followUps: ["pager"])
        _ = try await store.submit([AlertSubmission(alert: a, presenters: ["log"], escalation: escalation)])
        let later = a.createdAt.addingTimeInterval(61)
        #expect(try await store.runMaintenance(now: later).escalated == [a.id])
        #expect(try await deliverDue(store, at: later).count == 3)
        _ = try await store.decide(a.id, AlertDecision(outcome: .cancelled, actor: "uid:0", at: later))
        let followUps = try #require(try await store.record(id: a.id)).deliveries.compactMap(\.followUpOf)
        #expect(followUps == [.escalated(a.id, 0)])
    }

    @Test(arguments: StoreBackend.allCases) func anAlertResolvesWhenItsSenderStopsReSendingIt(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let t = Date()
        let first = Alert(spec: try spec(dedup: "fp:1"), at: t, resolvesAt: t.addingTimeInterval(60))
        _ = try await store.submit([AlertSubmission(alert: first, presenters: ["hook"], followUps: ["hook"])])
        _ = try await deliverDue(store, at: t)
        #expect(try await store.nextMaintenanceTime().map { abs($0.timeIntervalSince(t.addingTimeInterval(60))) < 0.01 } == true)

        // A re-send moves the time on, and a re-send without one leaves it.
        let resend = Alert(spec: try spec(dedup: "fp:1"), at: t.addingTimeInterval(30), resolvesAt: t.addingTimeInterval(120))
        #expect(try await store.submit([AlertSubmission(alert: resend, presenters: ["hook"])]).first?.deduplicated == true)
        _ = try await store.submit([AlertSubmission(alert: Alert(spec: try spec(dedup: "fp:1")), presenters: ["hook"])])
        let moved = try #require(try await store.record(id: first.id)).alert.resolvesAt
        #expect(moved.map { abs($0.timeIntervalSince(t.addingTimeInterval(120))) < 0.01 } == true)
        #expect(try await store.runMaintenance(now: t.addingTimeInterval(61)).resolved.isEmpty)

        let report = try await store.runMaintenance(now: t.addingTimeInterval(121))
        #expect(report.resolved == [first.id])
        #expect(try await store.runMaintenance(now: t.addingTimeInterval(122)).resolved.isEmpty)
        let record = try #require(try await store.record(id: first.id))
        #expect(record.alert.state == .resolved)
        #expect(record.alert.decision?.actor == "alertd")
        #expect(record.deliveries.compactMap(\.followUpOf) == [.routed(first.id, 0)])
        #expect(try await store.nextMaintenanceTime() == nil)
        #expect(try await store.openAlert(dedupKey: "fp:1") == nil)
    }
}

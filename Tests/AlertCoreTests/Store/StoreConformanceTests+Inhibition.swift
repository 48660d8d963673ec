import Foundation
import Testing
@testable import AlertModel
@testable import AlertdStore
@testable import AlertdSQLiteStore

/// Inhibition on every backend: a delivery an open source inhibits is held
/// under the source as it is claimed; closing the source releases it in the
/// closing transaction; a target that closes while held is withheld.
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.allCases) func anOpenSourceHoldsItsTargetsAndClosingItReleasesThem(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let rule = InhibitRule(sourceMatchers: [try LabelMatcher(parsing: "alertname=\"NodeDown\"")],
                               targetMatchers: [try LabelMatcher(parsing: "alertname=\"DiskSlow\"")], equal: ["instance"])
        let capacity: [DeliveryKind: Int] = [.presenter("hook"): 8]
        let source = Alert(spec: try spec("node down", labels: ["alertname": "NodeDown", "instance": "a"]))
        let target = Alert(spec: try spec("disk slow", labels: ["alertname": "DiskSlow", "instance": "a"]))
        let elsewhere = Alert(spec: try spec("disk slow", labels: ["alertname": "DiskSlow", "instance": "b"]))
        let closesFirst = Alert(spec: try spec("disk slow too", labels: ["alertname": "DiskSlow", "instance": "a"]))
        _ = try await store.submit([source, target, elsewhere, closesFirst].map { AlertSubmission(alert: $0, presenters: ["hook"]) })

        let now = Date()
        let claimed = try await store.claimDueDeliveries(now: now, capacity: capacity, orphanLimit: 0, inhibitRules: [rule])
        #expect(Set(claimed.map(\.alert.id)) == [source.id, elsewhere.id])
        let held = try #require(try await store.record(id: target.id)?.deliveries.first)
        #expect(held.state == .pending)
        #expect(held.silencedBy == .inhibition(by: source.id))
        #expect((held.nextAttemptAt ?? now) > now)
        // Held, it is not due again while the source is open.
        #expect(try await store.claimDueDeliveries(now: now, capacity: capacity, orphanLimit: 0, inhibitRules: [rule]).isEmpty)

        _ = try await store.decide(closesFirst.id, AlertDecision(outcome: .resolved, actor: "t", at: now))
        _ = try await store.decide(source.id, AlertDecision(outcome: .resolved, actor: "t", at: now))
        let released = try await store.claimDueDeliveries(now: now.addingTimeInterval(0.01), capacity: capacity, orphanLimit: 0,
                                                          inhibitRules: [rule])
        #expect(released.map(\.alert.id) == [target.id])
        #expect(try await store.record(id: closesFirst.id)?.deliveries.first?.state == .silenced)
    }

    /// A reload that changes the rules calls `releaseInhibited`: what an
    /// inhibition holds is due at once and screened by the rules in force
    /// at the next claim; what a silence holds stays held.
    @Test(arguments: StoreBackend.allCases) func releasingInhibitionsMakesOnlyTheirTargetsDue(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let rule = InhibitRule(sourceMatchers: [try LabelMatcher(parsing: "alertname=\"SwitchDown\"")],
                               targetMatchers: [try LabelMatcher(parsing: "alertname=\"NodeDown\"")], equal: ["rack"])
        let capacity: [DeliveryKind: Int] = [.presenter("hook"): 8]
        let silence = try silence(#"instance="quiet""#)
        guard case .saved = try await store.saveSilence(silence, replacing: nil, now: Date()) else { Issue.record("silence not saved"); return }
        let source = Alert(spec: try spec("switch down", labels: ["alertname": "SwitchDown", "rack": "7"]))
        let target = Alert(spec: try spec("node down", labels: ["alertname": "NodeDown", "rack": "7"]))
        let silenced = Alert(spec: try spec("quiet one", labels: ["alertname": "Other", "instance": "quiet"]))
        _ = try await store.submit([source, target, silenced].map { AlertSubmission(alert: $0, presenters: ["hook"]) })
        let now = Date().addingTimeInterval(0.01)
        let claimed = try await store.claimDueDeliveries(now: now, capacity: capacity, orphanLimit: 0, inhibitRules: [rule])
        #expect(claimed.map(\.alert.id) == [source.id])

        try await store.releaseInhibited(now: now.addingTimeInterval(0.01))
        // The rule is gone: the target goes out, the silenced one still waits.
        let released = try await store.claimDueDeliveries(now: now.addingTimeInterval(0.02), capacity: capacity, orphanLimit: 0,
                                                          inhibitRules: [])
        #expect(released.map(\.alert.id) == [target.id])
        #expect(try await store.record(id: silenced.id)?.deliveries.first?.silencedBy == silence.id)
    }
}

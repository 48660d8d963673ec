import Foundation
import Testing
@testable import AlertModel
@testable import AlertdStore

/// A decision by action link keeps the address the link was sent to on
/// every backend: read back with the alert, in lists, and in its event;
/// a decision without one reads back without one.
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.allCases) func aLinkDecisionKeepsItsRecipient(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        let named = try alert()
        let plain = try alert()
        _ = try await store.submit([AlertSubmission(alert: named, presenters: []), AlertSubmission(alert: plain, presenters: [])])

        let decision = AlertDecision(outcome: .confirmed, actor: "link", at: at, recipient: "bob@example.com")
        guard case .decided(let decided, _) = try await store.decide(named.id, decision) else { Issue.record("not decided"); return }
        #expect(decided.decision == decision)
        _ = try await store.decide(plain.id, AlertDecision(outcome: .cancelled, actor: "link", at: at))

        #expect(try await store.record(id: named.id)?.alert.decision == decision)
        #expect(try await store.record(id: plain.id)?.alert.decision?.recipient == nil)
        #expect(try await store.record(id: plain.id)?.alert.decision?.actor == "link")
        let listed = try await store.alerts(matching: AlertQuery()).alerts
        #expect(listed.first { $0.id == named.id }?.decision?.recipient == "bob@example.com")
        #expect(listed.first { $0.id == plain.id }?.decision?.recipient == nil)

        let events = try await store.events(after: 0, limit: 10)
        #expect(events.first { $0.kind == .alertConfirmed }?.data["recipient"] == "bob@example.com")
        #expect(events.first { $0.kind == .alertCancelled }?.data["recipient"] == nil)
        // A second decision does not touch the first one's recipient.
        guard case .alreadyDecided(let current) = try await store.decide(named.id, AlertDecision(outcome: .cancelled, actor: "alice"))
        else { Issue.record("second decision won"); return }
        #expect(current.decision?.recipient == "bob@example.com")
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdDelivery

/// Follow-ups in the real daemon: closing an alert through the API tells
/// each presenter that showed it, once, after the alert itself, and the
/// API shows the follow-ups among the alert's deliveries.
@Suite(.serialized) struct FollowUpDaemonTests {
    @Test func closingAnAlertTellsEachPresenterThatShowedItAfterTheAlert() async throws {
        let d = try TestDaemon(config: ["presenters": [
            "sink": ["type": "test", "record": "sink.jsonl", "follow_ups": true],
            // Still retrying when the alert closes: told only once it has shown the alert.
            "slow": ["type": "test", "record": "slow.jsonl", "follow_ups": true, "outcomes": ["retry:2s", "delivered"]],
            // Follow-ups off: told nothing.
            "quiet": ["type": "test", "record": "quiet.jsonl"],
            // Never shows the alert: told nothing.
            "broken": ["type": "test", "record": "broken.jsonl", "follow_ups": true, "outcomes": ["dead"]],
        ]])
        try await d.start()
        let sink = TestPresenterLog(d, record: "sink.jsonl"), slow = TestPresenterLog(d, record: "slow.jsonl")
        let quiet = TestPresenterLog(d, record: "quiet.jsonl"), broken = TestPresenterLog(d, record: "broken.jsonl")
        let id = try await d.send(["title": "Disk full on db1"])
        for log in [sink, slow, quiet, broken] { #expect(await log.wait { $0.count == 1 }, "\(log.path)") }

        let r = try await d.request("POST", "/v1/alerts/\(id)/resolve", json: ["comment": "cleaned up"])
        #expect(r.status == 200, "\(String(decoding: r.body, as: UTF8.self))")
        #expect(await sink.wait { $0.count == 2 })
        let told = try #require(sink.entries.last)
        #expect(told.followUp == "resolved")
        let index = try await routedIndex(d, id, "sink")
        #expect(told.followsUp == "\(id).\(index)")
        #expect(told.deliveryID == told.followsUp.map { $0 + ".closed" })
        #expect(told.by?.isEmpty == false)

        // The slow presenter's retry shows the closed alert, then its follow-up goes.
        #expect(await slow.wait(timeout: .seconds(10)) { $0.count == 3 }, "\(slow.entries)")
        #expect(slow.entries.map(\.followUp) == [nil, nil, "resolved"])
        try await Task.sleep(for: .milliseconds(300))
        #expect(quiet.entries.count == 1)
        #expect(broken.entries.count == 1)

        let deliveries = try await d.show(id)["deliveries"] as? [[String: Any]] ?? []
        let followUps = deliveries.filter { $0["follow_up_of"] != nil }
        #expect(Set(followUps.compactMap { $0["presenter"] as? String }) == ["sink", "slow"])
        #expect(Set(deliveries.filter { $0["follow_up"] as? Bool == true }.compactMap { $0["presenter"] as? String }) == ["sink", "slow", "broken"])
        // alertctl show tells a follow-up from the alert delivery to the same presenter.
        let shown = try await d.alertctl(["show", id])
        #expect(shown.stdout.contains("sink (follow-up)  delivered"), "\(shown.stdout)")
    }

    /// The index of `presenter`'s routed delivery of `id` (routes order presenters by name).
    func routedIndex(_ d: TestDaemon, _ id: String, _ presenter: String) async throws -> String {
        let deliveries = try await d.show(id)["deliveries"] as? [[String: Any]] ?? []
        let delivery = try #require(deliveries.first { $0["presenter"] as? String == presenter && $0["follow_up_of"] == nil })
        return String((delivery["id"] as? String ?? "").split(separator: ".").last ?? "")
    }
}

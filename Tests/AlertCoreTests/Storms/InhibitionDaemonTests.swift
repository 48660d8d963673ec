import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdDelivery
@testable import AlertdDaemon

/// Inhibition and folded re-sends on the real daemon.
@Suite(.serialized) struct InhibitionDaemonTests {
    func delivery(_ d: TestDaemon, _ id: String) async throws -> [String: Any] {
        (try await d.show(id)["deliveries"] as? [[String: Any]])?.first ?? [:]
    }

    @Test func anOpenSourceHoldsBackItsTargetsUntilItCloses() async throws {
        let d = try TestDaemon(config: [
            "presenters": ["sink": ["type": "test", "record": "presented.jsonl"]],
            "inhibit": [[
                "source_matchers": ["alertname=\"NodeDown\""],
                "target_matchers": ["alertname=~\"Disk.*|NodeDown\""],
                "equal": ["instance"],
            ]],
        ])
        let sink = TestPresenterLog(d)
        try await d.start()
        let source = try await d.send(["title": "node a down", "labels": ["alertname": "NodeDown", "instance": "a"]])
        #expect(await sink.wait { $0.contains { $0.alertID == source } }, "a source that matches its own target is not inhibited by itself")

        let held = try await d.send(["title": "disk slow on a", "labels": ["alertname": "DiskSlow", "instance": "a"]])
        let other = try await d.send(["title": "disk slow on b", "labels": ["alertname": "DiskSlow", "instance": "b"]])
        let closesFirst = try await d.send(["title": "disk full on a", "labels": ["alertname": "DiskFull", "instance": "a"]])
        #expect(await sink.wait { $0.contains { $0.alertID == other } }, "another instance is not inhibited (equal labels differ)")
        // Stored and shown, held under the source.
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, try await delivery(d, held)["silenced_by"] == nil { try await Task.sleep(for: .milliseconds(25)) }
        let heldDelivery = try await delivery(d, held)
        #expect(heldDelivery["state"] as? String == "pending")
        #expect(heldDelivery["silenced_by"] as? String == "inhibit:\(source)")
        #expect(try await d.show(held)["state"] as? String == "open")

        // A target that closes while held is never sent.
        #expect(try await d.request("POST", "/v1/alerts/\(closesFirst)/resolve", json: [String: Any]()).status == 200)
        try await Task.sleep(for: .milliseconds(300))
        // Closing the source releases what it held, at once.
        #expect(try await d.request("POST", "/v1/alerts/\(source)/resolve", json: [String: Any]()).status == 200)
        #expect(await sink.wait(timeout: .seconds(5)) { $0.contains { $0.alertID == held } })
        try await Task.sleep(for: .milliseconds(300))
        #expect(!sink.entries.contains { $0.alertID == closesFirst })
        #expect(try await delivery(d, closesFirst)["state"] as? String == "silenced")
        #expect(sink.entries.filter { $0.alertID == held }.count == 1)
    }

    @Test func aFoldedResendIsCountedAndShown() async throws {
        let d = try TestDaemon(config: ["presenters": ["sink": ["type": "test", "record": "presented.jsonl"]]])
        try await d.start()
        let id = try await d.send(["title": "rack 7 power", "dedup_key": "rack7"])
        #expect(try await d.show(id)["repeats"] == nil)
        for _ in 0..<3 { #expect(try await d.send(["title": "rack 7 power", "dedup_key": "rack7"]) == id) }
        let repeats = try #require(try await d.show(id)["repeats"] as? [String: Any])
        #expect(repeats["count"] as? Int == 3)
        let lastSeen = try #require(repeats["last_seen_at"] as? String)
        #expect(RFC3339.parse(lastSeen).map { abs($0.timeIntervalSinceNow) < 30 } == true)
        let shown = try await d.alertctl(["show", id])
        #expect(shown.exitCode == 0)
        #expect(shown.stdout.contains("repeated:") && shown.stdout.contains("3 times, last seen"), "\(shown.stdout)")
    }
}

@Suite struct StormsDocumentationTests {
    /// The worked example in docs/STORMS.md is a configuration alertd takes.
    @Test func theWorkedExampleParses() throws {
        let doc = try RepositoryFiles.contents("docs/STORMS.md")
        let start = try #require(doc.range(of: "```json\n"))
        let end = try #require(doc.range(of: "\n```", range: start.upperBound..<doc.endIndex))
        let config = try DaemonConfiguration.parse(Data(doc[start.upperBound..<end.lowerBound].utf8))
        #expect(config.inhibitRules.count == 1)
        #expect(config.inhibitRules.first?.equal == ["rack"])
        #expect(config.presenters.first { $0.name == "chat" }?.rateLimit == RateLimit(perSecond: 1, burst: 5))
        #expect(config.presenters.first { $0.name == "pager" }?.rateLimit?.burst == 1)
    }
}

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
        _ = try await eventually { try await delivery(d, held)["silenced_by"] != nil }
        let heldDelivery = try await delivery(d, held)
        #expect(heldDelivery["state"] as? String == "pending")
        #expect(heldDelivery["silenced_by"] as? String == "inhibit:\(source)")
        #expect(try await d.show(held)["state"] as? String == "open")
        // `alertctl show` says what holds it, not a next attempt as if it had failed.
        let shown = try await d.alertctl(["show", held]).stdout
        #expect(shown.contains("held: inhibited by alert \(source); checked again "), "\(shown)")

        // A target that closes while held is never sent. (Held first: the
        // poll that held `held` may have run before this one was stored.)
        _ = try await eventually { try await delivery(d, closesFirst)["silenced_by"] != nil }
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

    /// Alertmanager's alert list shows who inhibits whom, and a reload that
    /// changes the rules screens the held deliveries again at once.
    @Test func alertmanagerShowsInhibitedByAndAReloadReleasesHeldTargets() async throws {
        let rule: [String: Any] = [
            "source_matchers": ["alertname=\"SwitchDown\""], "target_matchers": ["alertname=\"NodeDown\""], "equal": ["rack"],
        ]
        let presenters = ["sink": ["type": "test", "record": "presented.jsonl"]]
        let d = try TestDaemon(config: ["presenters": presenters])
        let sink = TestPresenterLog(d)
        try await d.start()
        let source = try await d.send(["title": "switch down", "labels": ["alertname": "SwitchDown", "rack": "7"]])
        #expect(await sink.wait { $0.contains { $0.alertID == source } })

        // A rule added by reload holds the targets that arrive after it.
        try await d.reload(["presenters": presenters, "inhibit": [rule]])
        let held = try await d.send(["title": "node 1 down", "labels": ["alertname": "NodeDown", "rack": "7", "instance": "n1"]])
        let free = try await d.send(["title": "node 2 down", "labels": ["alertname": "NodeDown", "rack": "8", "instance": "n2"]])
        #expect(await sink.wait { $0.contains { $0.alertID == free } })
        _ = try await eventually { try await delivery(d, held)["silenced_by"] != nil }
        #expect(try await delivery(d, held)["silenced_by"] as? String == "inhibit:\(source)")

        // Alertmanager's view: the target is suppressed and names the source's fingerprint.
        let listed = try #require(try JSONSerialization.jsonObject(with: try await d.request("GET", "/api/v2/alerts").body) as? [[String: Any]])
        func entry(_ alertname: String, rack: String) -> [String: Any]? {
            listed.first { let labels = $0["labels"] as? [String: String]; return labels?["alertname"] == alertname && labels?["rack"] == rack }
        }
        let sourceEntry = try #require(entry("SwitchDown", rack: "7"))
        let heldStatus = try #require(entry("NodeDown", rack: "7")?["status"] as? [String: Any])
        #expect(heldStatus["state"] as? String == "suppressed")
        #expect(heldStatus["inhibitedBy"] as? [String] == [try #require(sourceEntry["fingerprint"] as? String)])
        #expect(heldStatus["silencedBy"] as? [String] == [])
        let freeStatus = try #require(entry("NodeDown", rack: "8")?["status"] as? [String: Any])
        #expect(freeStatus["state"] as? String == "active")
        #expect(freeStatus["inhibitedBy"] as? [String] == [])
        let onlyInhibited = try JSONSerialization.jsonObject(with: try await d.request("GET", "/api/v2/alerts?inhibited=false").body) as? [[String: Any]]
        #expect(onlyInhibited?.count == 2, "inhibited=false drops the held alert only")
        // Filtered to the target alone, it still names its source, which the filter leaves out.
        let filtered = try #require(try JSONSerialization.jsonObject(
            with: try await d.request("GET", "/api/v2/alerts?filter=" + "instance=\"n1\"".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!).body)
            as? [[String: Any]])
        #expect(filtered.count == 1)
        #expect((filtered.first?["status"] as? [String: Any])?["inhibitedBy"] as? [String] == [try #require(sourceEntry["fingerprint"] as? String)])

        // Removing the rule by reload delivers the held target now, not at the hourly recheck.
        try await d.reload(["presenters": presenters])
        #expect(await sink.wait(timeout: .seconds(5)) { $0.contains { $0.alertID == held } })
        #expect(sink.entries.filter { $0.alertID == held }.count == 1)
        let after = try #require(try JSONSerialization.jsonObject(with: try await d.request("GET", "/api/v2/alerts").body) as? [[String: Any]])
        #expect(after.allSatisfy { ($0["status"] as? [String: Any])?["state"] as? String == "active" })
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

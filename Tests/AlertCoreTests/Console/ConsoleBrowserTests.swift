import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdDelivery
@testable import AlertdDaemon

/// The web console in a real browser: Debian's chromium, headless, driven
/// by Selenium (`ConsoleBrowserScript`) against one real alertd with named
/// tokens, a confirm handler and a webhook that fails once. One daemon and
/// one browser session walk through every step, to keep the suite fast.
/// Screenshots go to `$ALERTD_TEST_OUTPUT/console` (default
/// `.build/test-output/console`).
@Suite(.serialized) struct ConsoleBrowserTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var outputDirectory: String {
        let base = ProcessInfo.processInfo.environment["ALERTD_TEST_OUTPUT"] ?? packageRoot.path + "/.build/test-output"
        return base + "/console"
    }

    /// Whether chromium, chromedriver and Selenium are all here (scripts/install-deps.sh installs them).
    static let available: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
              FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver") else { return false }
        return pythonCanImport("selenium")
    }()

    static let aliceToken = "alice-" + String(repeating: "a1", count: 16)
    static let readerToken = "reader-" + String(repeating: "r2", count: 16)

    @Test func theConsoleInChromium() async throws {
        try #require(Self.available, "chromium, chromedriver and selenium are needed: run scripts/install-deps.sh")
        let handler = try WebhookReceiver()
        // The first delivery to it fails for good (400); the replay then succeeds.
        let flaky = try WebhookReceiver(script: [400])
        let work = TemporaryDirectory()
        let tokensFile = work.path + "/tokens.json"
        try writeSecretFile("""
            {"alice": {"token": "\(Self.aliceToken)", "scopes": ["read", "send", "decide", "admin"]},
             "reader": {"token": "\(Self.readerToken)", "scopes": ["read"]}}
            """, to: tokensFile)
        let d = try TestDaemon(config: [
            "api": ["tokens_file": tokensFile, "public_url": "$BASE_URL"],
            "actions": ["allow": ["127.0.0.1"], "timeout": "2s"],
            "presenters": ["log": ["type": "log", "path": "alerts.log"], "flaky": ["type": "webhook", "url": flaky.url]],
            "routes": [["match": ["labels": ["route": "flaky"]], "presenters": ["flaky"]]],
            "default_route": ["presenters": ["log"]],
        ])
        try await d.start()

        // Something to look at, and one dead delivery.
        for (title, severity, labels, message) in [
            ("Disk almost full on db1", "warning", ["host": "db1", "env": "prod"], "/var is at 91%"),
            ("Nightly backup finished", "info", ["job": "backup"], "412 GB in 38 minutes"),
            ("Certificate for api.example expires in 5 days", "error", ["service": "api"], ""),
        ] {
            var alert: [String: Any] = ["title": title, "severity": severity, "labels": labels]
            if !message.isEmpty { alert["message"] = message }
            _ = try await d.send(alert)
        }
        let dead = try await d.send(["title": "Page the on-call (webhook refused)", "severity": "critical", "labels": ["route": "flaky"]])
        #expect(await flaky.wait { $0.count == 1 })
        try await waitForDeadDelivery(d, dead)

        // One decided by an action link that was sent to carol, as a mail to her would carry it.
        let linked = try await d.send(["title": "Roll back db1?", "confirm": ["label": "Roll back", "url": handler.url + "/rollback"]])
        let key = try #require(try ActionLinkSigner.loadKey(at: d.stateDir + "/action-links.key"))
        let link = ActionLinkSigner(key: key, publicURL: d.baseURL)
            .link(try #require(AlertID(linked)), .confirm, expires: Int64(Date().timeIntervalSince1970) + 600, recipient: "carol@example.com")
        #expect(try await d.request("POST", String(link.dropFirst(d.baseURL.count)), tcp: true).status == 200)

        let config: [String: Any] = [
            "base_url": d.baseURL, "socket": d.socketPath, "alertctl": try TestBinaries.alertctl,
            "alice_token": Self.aliceToken, "reader_token": Self.readerToken, "handler_url": handler.url,
            "dead_alert": dead, "link_alert": linked, "output_dir": Self.outputDirectory, "work_dir": work.path,
        ]
        let script = work.path + "/console_test.py"
        try Data(ConsoleBrowserScript.source.utf8).write(to: URL(fileURLWithPath: script))
        let argument = String(decoding: try JSONSerialization.data(withJSONObject: config), as: UTF8.self)
        let run = try await TestBinaries.run("/usr/bin/env", ["python3", script, argument])
        let transcript = "\(run.stdout)\n\(run.stderr)\n--- alertd:\n\(d.log)"
        try #require(run.exitCode == 0 && run.stdout.contains("result: ok"), "\(transcript)")
        print(run.stdout)

        // What alertd did, seen from outside the browser.
        #expect(await handler.wait { $0.contains { $0.request.path == "/hook/confirm" } })
        let confirm = try #require(handler.received.first { $0.request.path == "/hook/confirm" })
        let decision = try #require(confirm.json["decision"] as? [String: Any])
        #expect(decision["by"] as? String == "alice")
        #expect(decision["comment"] as? String == "canary looks good")
        // The page on another origin got nothing decided, so no handler call for its alert.
        #expect(!handler.received.contains { $0.request.path == "/hook/restart" })
        #expect(await flaky.wait { $0.count == 2 }, "the replay made alertd deliver again")
        #expect((try await d.show(dead)["deliveries"] as? [[String: Any]])?.first?["state"] as? String == "delivered")
        // Tokens are never logged.
        #expect(!d.log.contains(Self.aliceToken) && !d.log.contains(Self.readerToken))
        for name in ["list-1280.png", "list-360.png", "alert-1280.png", "alert-360.png"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: Self.outputDirectory + "/" + name)[.size] as? Int) ?? 0
            #expect(size > 10_000, "\(name) is \(size) bytes")
        }
    }

    private func waitForDeadDelivery(_ d: TestDaemon, _ id: String) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let deliveries = try await d.show(id)["deliveries"] as? [[String: Any]] ?? []
            if deliveries.first?["state"] as? String == "dead" { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestDaemon.Failure("the flaky delivery did not go dead:\n\(d.log)")
    }
}

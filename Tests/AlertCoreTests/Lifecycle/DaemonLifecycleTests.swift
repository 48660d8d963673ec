import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdHTTPServer
@testable import AlertdLogging
@testable import AlertdDelivery
@testable import AlertdSQLiteStore
@testable import AlertdDaemon
@testable import AlertdClient

#if canImport(Glibc)
import Glibc
#endif

/// alertd as systemd runs it: notify protocol, watchdog, reload, journald
/// logs and logrotate, against the real binary.
@Suite(.serialized) struct DaemonLifecycleTests {
    @Test func readyWatchdogStallReloadAndStop() async throws {
        let receiver = try DatagramReceiver()
        let d = try TestDaemon()
        try await d.start(environment: ["NOTIFY_SOCKET": receiver.address, "WATCHDOG_USEC": "500000", "ALERTD_TEST_HOOKS": "1"])
        let ready = try #require(await receiver.wait(for: "READY=1"), "no READY=1; log:\n\(d.log)")
        // By READY the socket accepts: the status line was computed from a live store.
        #expect(ready.last?.contains("STATUS=0 open alerts") == true)
        #expect(try await d.request("GET", "/v1/health").status == 200)

        // Pings about every 250 ms (half of WATCHDOG_USEC).
        var pings: [ContinuousClock.Instant] = []
        while pings.count < 5 {
            guard let m = await receiver.next(timeout: .seconds(3)) else { break }
            if m.contains("WATCHDOG=1") { pings.append(.now) }
        }
        #expect(pings.count == 5)
        let gaps = zip(pings.dropFirst(), pings).map { $0 - $1 }.sorted()
        if gaps.count == 4 {
            #expect(gaps[1] > .milliseconds(150) && gaps[2] < .milliseconds(450), "gaps: \(gaps)")
        }

        // A wedged dispatcher: the pings stop.
        d.signal(SIGUSR2)
        try await Task.sleep(for: .seconds(4))
        while await receiver.next(timeout: .milliseconds(10)) != nil {}
        var pingedWhileStalled = false
        let quietUntil = ContinuousClock.now + .seconds(1.5)
        while ContinuousClock.now < quietUntil {
            if let m = await receiver.next(timeout: .milliseconds(100)), m.contains("WATCHDOG=1") { pingedWhileStalled = true }
        }
        #expect(!pingedWhileStalled)
        // Freed again, it pings again.
        d.signal(SIGUSR2)
        #expect(await receiver.wait(for: "WATCHDOG=1", timeout: .seconds(5)) != nil)

        // SIGHUP: RELOADING=1 with the monotonic clock, then READY=1.
        d.signal(SIGHUP)
        let reloading = try #require(await receiver.wait(for: "RELOADING=1", timeout: .seconds(5)))
        #expect(reloading.last?.contains("MONOTONIC_USEC=") == true)
        #expect(await receiver.wait(for: "READY=1", timeout: .seconds(5)) != nil)

        d.signal(SIGTERM)
        #expect(await receiver.wait(for: "STOPPING=1", timeout: .seconds(10)) != nil)
        #expect(await d.waitForExit() == 0)
    }

    func writeConfig(_ d: TestDaemon, _ object: [String: Any]) throws {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(to: URL(fileURLWithPath: d.configPath))
    }

    func metric(_ d: TestDaemon, _ name: String) async throws -> Double? {
        let text = String(decoding: try await d.request("GET", "/metrics").body, as: UTF8.self)
        return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
    }

    /// A reload (and a start) lists every problem `--check-config` does:
    /// those reading the file finds (a value of the wrong type) and those
    /// only building what it describes finds (a command that is not there).
    /// Naming the first kind alone, a reload failed again on the second.
    @Test func aFailedReloadListsEveryProblemCheckConfigDoes() async throws {
        let d = try TestDaemon(config: ["presenters": ["log": ["type": "log"]]])
        try await d.start()
        let broken: [String: Any] = ["presenters": ["run": ["type": "exec", "command": ["/nonexistent/notify"]]], "retry": ["factor": "two"]]
        try writeConfig(d, broken)
        let read = "retry.factor: must be a number", built = "presenters.run: the command /nonexistent/notify is not an executable file"
        let check = try await d.checkConfig()
        #expect(check.exitCode == 65 && check.stderr.contains(read) && check.stderr.contains(built), "\(check.stderr)")
        d.signal(SIGHUP)
        let deadline = ContinuousClock.now + .seconds(5)
        while !(d.log.contains(read) && d.log.contains(built)), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(d.log.contains("reload failed; keeping the running configuration"), "\(d.log)")
        #expect(d.log.contains(read) && d.log.contains(built), "\(d.log)")
        #expect(try await metric(d, "alertd_config_last_reload_successful") == 0)

        let second = try TestDaemon(config: broken)
        #expect(try await second.startExpectingExit() == 65, "\(second.log)")
        #expect(second.log.contains(read) && second.log.contains(built), "\(second.log)")
    }

    @Test func aBrokenReloadKeepsTheOldConfigAndAGoodOneRoutesNewAlerts() async throws {
        let retry: [String: Any] = ["initial_delay": "100ms", "jitter": false]
        let a: [String: Any] = ["type": "test", "record": "a.jsonl"]
        let d = try TestDaemon(config: ["presenters": ["a": a], "retry": retry])
        let (sinkA, sinkB) = (TestPresenterLog(d, record: "a.jsonl"), TestPresenterLog(d, record: "b.jsonl"))
        try await d.start()
        _ = try await d.send(["title": "before"])
        #expect(await sinkA.wait { $0.count == 1 })

        // Broken: an unknown presenter in a route. Nothing changes.
        try writeConfig(d, ["presenters": ["a": a], "routes": [["presenters": ["nope"]]], "retry": retry])
        d.signal(SIGHUP)
        try await Task.sleep(for: .milliseconds(500))
        #expect(d.log.contains("reload failed; keeping the running configuration"))
        #expect(d.log.contains("no presenter named \\\"nope\\\"") || d.log.contains("no presenter named"))
        #expect(try await metric(d, "alertd_config_last_reload_successful") == 0)
        // Health says so too, and stays ok: alertd works, on the configuration before.
        let failedHealth = try await d.request("GET", "/v1/health")
        #expect(failedHealth.status == 200)
        #expect(String(decoding: failedHealth.body, as: UTF8.self).contains(#""configuration":"reload_failed""#))
        _ = try await d.send(["title": "after a bad reload"])
        #expect(await sinkA.wait { $0.count == 2 })

        // Good: a route sends critical alerts to b instead.
        try writeConfig(d, [
            "presenters": ["a": a, "b": ["type": "test", "record": "b.jsonl"]],
            "routes": [["match": ["severity": ["critical"]], "presenters": ["b"]]],
            "default_route": ["presenters": ["a"]], "retry": retry,
        ])
        d.signal(SIGHUP)
        try await Task.sleep(for: .milliseconds(500))
        // The line says what the reload took: an operator can tell their edit was read.
        #expect(d.log.contains(#"configuration reloaded changed="presenters added: b; routes""#), "\(d.log)")
        #expect(try await metric(d, "alertd_config_last_reload_successful") == 1)
        #expect(!String(decoding: try await d.request("GET", "/v1/health").body, as: UTF8.self).contains("configuration"))
        let critical = try await d.send(["title": "after a good reload", "severity": "critical"])
        #expect(await sinkB.wait { $0.count == 1 })
        #expect(sinkB.entries.first?.alertID == critical)
        try await Task.sleep(for: .milliseconds(300))
        #expect(sinkA.entries.count == 2)
    }

    /// A reload that fails making what the file describes (a presenter's
    /// secret file gone) names the file, as one failing to read it does:
    /// the line said only `presenters.hook: the secret file … does not exist`.
    @Test func aReloadThatCannotMakeAPresenterNamesTheFile() async throws {
        let files = TemporaryDirectory()
        let secret = files.path + "/hook.secret"
        try writeSecretFile("whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", to: secret)
        let hook: [String: Any] = ["type": "webhook", "url": "http://127.0.0.1:9/x", "secret_file": secret]
        let d = try TestDaemon(config: ["presenters": ["hook": hook], "default_route": ["presenters": ["hook"]]])
        try await d.start()
        try FileManager.default.removeItem(atPath: secret)
        d.signal(SIGHUP)
        let deadline = ContinuousClock.now + .seconds(10)
        while !d.log.contains("reload failed"), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let failed = d.log.split(separator: "\n").filter { $0.contains("reload failed") }
        #expect(failed.count == 1, "\(d.log)")
        #expect(failed.allSatisfy { $0.contains("problem=\"\(d.configPath): presenters.hook: the secret file \(secret) does not exist") }, "\(d.log)")
    }

    /// alertd's own absence resolves nothing its senders still fire: an
    /// alert whose `endsAt` passed while alertd was down gets its window
    /// again from the start, for the sender's next re-send; it resolves
    /// only when that window passes with none.
    @Test func aStartAfterDowntimeWaitsForAReSendBeforeResolving() async throws {
        let d = try TestDaemon()
        try await d.start()
        func post() async throws {
            let ends = UTCTimestamp.iso8601(Date().addingTimeInterval(2))
            #expect(try await d.request("POST", "/api/v2/alerts", json: [["labels": ["alertname": "StillFiring"], "endsAt": ends]]).status == 200)
        }
        // Every alert of the name: one resolved and another opened by the re-send would be two.
        func state() async throws -> [String] {
            let r = try await d.request("GET", "/v1/alerts?label=alertname=StillFiring")
            let alerts = (try JSONSerialization.jsonObject(with: r.body) as? [String: Any])?["alerts"] as? [[String: Any]]
            return alerts?.compactMap { $0["state"] as? String } ?? []
        }
        func restart(after down: Duration) async throws {
            d.signal(SIGTERM)
            #expect(await d.waitForExit() == 0)
            try await Task.sleep(for: down)
            try await d.start()
        }
        try await post()
        try await restart(after: .seconds(3))
        try await Task.sleep(for: .seconds(1))
        #expect(try await state() == ["open"], "\(d.log)")
        // Down again before that window passed: the window again, from this start only, not added to the last.
        try await restart(after: .seconds(1))
        let started = ContinuousClock.now
        #expect(try await state() == ["open"])
        // The sender stopped: it resolves once its window from the last start passes, not later.
        #expect(try await eventually(.seconds(8), every: .milliseconds(100)) { try await state() == ["resolved"] })
        #expect(ContinuousClock.now - started < .milliseconds(3_500), "\(ContinuousClock.now - started)")
    }

    /// A reload that takes the token away from a listener others can reach
    /// says so, as a start with no token does: it opened the API to anyone
    /// who can reach it, and the log said only that it reloaded.
    @Test func aReloadThatTakesTheTokenFromAPublicListenerWarns() async throws {
        let net = IsolatedNetwork("open-listener")
        guard net.namespace != nil else {
            print("[open-listener] skipped: needs a network namespace for an address off loopback")
            return
        }
        let dir = TemporaryDirectory()
        try writeSecretFile("open-listener-token-0123456789", to: dir.path + "/token")
        let d = try net.daemon(config: ["api": ["token_file": dir.path + "/token"]], listenHost: net.internalAddress)
        try await d.start()
        #expect(!d.log.contains("without a token"), "\(d.log)")
        try await d.reload([:])
        #expect(d.log.contains("the API listens on \(net.internalAddress):\(d.port) without a token"), "\(d.log)")
    }

    /// What the HTTP server is made with stays until a restart, and the
    /// log says so: a reload used to report success and keep it silently.
    @Test func aReloadSaysWhichSettingsWaitForARestart() async throws {
        let config: [String: Any] = ["limits": ["max_body_bytes": 2_048], "api": ["threads": 2]]
        let d = try TestDaemon(config: config)
        try await d.start()
        try await d.reload(["limits": ["max_body_bytes": 8_192], "api": ["threads": 3, "socket_mode": "0600"]])
        #expect(d.log.contains("limits.max_body_bytes changes only on restart"), "\(d.log)")
        // Each named: "api settings" did not say which.
        #expect(d.log.contains("api.socket_mode, api.threads change only on restart"), "\(d.log)")
        let body = ["title": "t", "message": String(repeating: "m", count: 3_000)]
        #expect(try await d.request("POST", "/v1/alerts", json: body).status == 413)
    }

    /// `actions.link_lifetime` changes with a reload, like the rest of
    /// `actions`: the signer was made once at start and kept it unsaid.
    @Test func aReloadChangesHowLongNewActionLinksLast() async throws {
        let receiver = try WebhookReceiver()
        let hook: [String: Any] = ["type": "webhook", "url": receiver.url]
        var config: [String: Any] = ["api": ["public_url": "https://alertd.example"], "actions": ["link_lifetime": "1h"],
                                     "presenters": ["hook": hook], "default_route": ["presenters": ["hook"]]]
        let d = try TestDaemon(config: config)
        try await d.start()
        /// Seconds from now until the confirm link of the `n`th delivery expires.
        func linkLifetime(_ n: Int) async throws -> Double {
            let sent = Date()
            _ = try await d.send(["title": "t\(n)", "confirm": ["label": "OK", "url": "https://hooks.example/ok"]])
            #expect(await receiver.wait(timeout: .seconds(10)) { $0.count >= n })
            let alert = try #require(receiver.received[n - 1].json["alert"] as? [String: Any])
            let link = try #require((alert["confirm"] as? [String: Any])?["link"] as? String)
            let expires = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "expires" }?.value.flatMap(Double.init))
            return expires - sent.timeIntervalSince1970
        }
        #expect(abs(try await linkLifetime(1) - 3_600) < 5)
        config["actions"] = ["link_lifetime": "2h"]
        try await d.reload(config)
        #expect(!d.log.contains("kept until restart"), "\(d.log)")
        #expect(abs(try await linkLifetime(2) - 7_200) < 5)
    }

    /// A presenter a reload takes out (renamed, say) leaves what it still
    /// owed dead; the reload's log says so once, with how many and the way
    /// back, where only a line per dead delivery had.
    @Test func aReloadThatTakesOutAPresenterSaysWhatItLeavesDead() async throws {
        let receiver = try WebhookReceiver(script: Array(repeating: 503, count: 50))
        let hook: [String: Any] = ["type": "webhook", "url": receiver.url]
        let d = try TestDaemon(config: ["presenters": ["hook": hook], "default_route": ["presenters": ["hook"]],
                                        "retry": ["initial_delay": "10s", "jitter": false]])
        try await d.start()
        let id = try await d.send(["title": "owed"])
        // Its failure written, so it waits in the store for its retry (not
        // still in flight, which would end dead with the dispatcher's line).
        #expect(try await eventually(.seconds(10)) {
            let delivery = (try await d.show(id)["deliveries"] as? [[String: Any]])?.first
            return delivery?["state"] as? String == "pending" && (delivery?["attempts"] as? Int ?? 0) >= 1
        })
        try await d.reload(["presenters": ["hook2": hook], "default_route": ["presenters": ["hook2"]]])
        #expect(d.log.contains("reload: a presenter taken out of the configuration leaves its waiting deliveries dead"), "\(d.log)")
        #expect(d.log.contains("presenter=hook") && d.log.contains("deliveries=1"), "\(d.log)")
        let delivery = try await eventually(.seconds(10)) {
            ((try await d.show(id)["deliveries"] as? [[String: Any]])?.first?["state"] as? String) == "dead"
        }
        #expect(delivery)
        await receiver.stop()
    }

    /// Deliveries claimed and waiting in memory for a slot of the presenter
    /// taken out are counted too: the store holds them in flight, not pending.
    @Test func aReloadThatTakesOutAPresenterCountsTheDeliveriesWaitingForItsSlots() async throws {
        let receiver = try WebhookReceiver(delay: .seconds(3))
        let hook: [String: Any] = ["type": "webhook", "url": receiver.url, "max_concurrency": 1]
        let d = try TestDaemon(config: ["presenters": ["hook": hook], "default_route": ["presenters": ["hook"]]])
        try await d.start()
        for n in 0..<3 { _ = try await d.send(["title": "owed \(n)"]) }
        #expect(try await eventually(.seconds(5)) { receiver.received.count >= 1 })
        try await d.reload(["presenters": ["hook2": hook], "default_route": ["presenters": ["hook2"]]])
        #expect(d.log.contains("presenter=hook") && d.log.contains("deliveries=2"), "\(d.log)")
        await receiver.stop()
    }

    /// After a clean stop the database file holds everything: a copy of
    /// `alertd.db` alone, as a backup after `systemctl stop` is made, has
    /// the alerts the daemon acknowledged.
    @Test func aStoppedDaemonLeavesEverythingInTheDatabaseFile() async throws {
        let d = try TestDaemon()
        try await d.start()
        var ids: [String] = []
        for i in 0..<20 { ids.append(try await d.send(["title": "before the stop \(i)"])) }
        d.signal(SIGTERM)
        #expect(await d.waitForExit() == 0)
        let wal = (try? FileManager.default.attributesOfItem(atPath: d.stateDir + "/alertd.db-wal")[.size] as? Int) ?? 0
        #expect(wal == 0, "the WAL still holds \(wal) bytes")

        let copy = TemporaryDirectory()
        try FileManager.default.copyItem(atPath: d.stateDir + "/alertd.db", toPath: copy.path + "/alertd.db")
        let store = try SQLiteAlertStore(path: copy.path + "/alertd.db")
        for id in ids { #expect(try await store.record(id: AlertID(trusted: id)) != nil, "\(id) is missing from the copy") }
        store.close()
    }

    /// An upgrade is the one open after which the older alertd refuses the
    /// store: the log says it happened, from which schema, and how back.
    @Test func theLogSaysWhenTheStoreIsMadeOrUpgraded() async throws {
        let d = try TestDaemon()
        try await d.start()
        _ = try await d.send(["title": "kept across the upgrade"])
        d.signal(SIGTERM)
        #expect(await d.waitForExit() == 0)
        let latest = StoreSchema.migrations.count
        #expect(d.log.contains("store created") && d.log.contains("schema=\(latest)"), "\(d.log)")
        #expect(!d.log.contains("store upgraded"))

        try SchemaFixtures.turnBackToSchema9(d.stateDir + "/alertd.db")
        try await d.start()
        let upgraded = d.log.split(separator: "\n").filter { $0.contains("store upgraded from an older alertd's schema") }
        #expect(upgraded.count == 1, "\(d.log)")
        #expect(upgraded.first?.contains("from=9 ") == true && upgraded.first?.hasSuffix("to=\(latest)") == true, "\(d.log)")
        #expect(upgraded.first?.contains("restore a backup taken before this start, if one was made") == true)
        d.signal(SIGTERM)
        #expect(await d.waitForExit() == 0)

        // Opened as it is, it says nothing more.
        try await d.start()
        d.signal(SIGTERM)
        #expect(await d.waitForExit() == 0)
        #expect(d.log.split(separator: "\n").filter { $0.contains("store upgraded") || $0.contains("store created") }.count == 2, "\(d.log)")
    }

    /// Alerts that lapse within moments of each other (sent one by one,
    /// so their deadlines are milliseconds apart) make a line a second at
    /// most at info, with the count and the first ids, not a line each
    /// (those are at debug).
    @Test func expiriesAreCountedInALineARound() async throws {
        let d = try TestDaemon()
        try await d.start()
        var ids: Set<String> = []
        for i in 0..<25 { ids.insert(try await d.send(["title": "short-lived \(i)", "expires_after": 1])) }
        let deadline = ContinuousClock.now + .seconds(15)
        func counted() -> [Substring] { d.log.split(separator: "\n").filter { $0.contains("alerts expired") } }
        func total() -> Int {
            counted().compactMap { $0.split(separator: " ").first { $0.hasPrefix("count=") }.flatMap { Int($0.dropFirst(6)) } }.reduce(0, +)
        }
        while total() < 25, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(total() == 25, "\(d.log)")
        #expect(counted().count <= 3, "a line a second at most, not one an alert: \(d.log)")
        #expect(!d.log.contains("alert expired "), "each alert's line is at debug: \(d.log)")
        let named = counted().flatMap { line in
            (line.split(separator: " ").first { $0.hasPrefix("alert.ids=") }?.dropFirst(10).split(separator: ",") ?? []).map(String.init)
        }
        #expect(!named.isEmpty && named.allSatisfy { ids.contains($0) || $0 == "…" }, "\(named)")
    }

    /// `systemd-tmpfiles --clean` or an `rm` takes the socket file away
    /// from a running daemon: within seconds it is there again.
    @Test func aRemovedSocketFileComesBackWithinSeconds() async throws {
        let d = try TestDaemon()
        try await d.start()
        #expect(try await d.alertctl(["list"]).exitCode == 0)
        #expect(unlink(d.socketPath) == 0)
        #expect(try await d.alertctl(["list"]).exitCode != 0)
        let deadline = ContinuousClock.now + .seconds(10)
        var list = try await d.alertctl(["list"])
        while list.exitCode != 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            list = try await d.alertctl(["list"])
        }
        #expect(list.exitCode == 0, "\(list.stderr)\n\(d.log)")
        #expect(d.log.contains("the API socket's file was removed while alertd ran"), "\(d.log)")
        d.signal(SIGTERM)
        #expect(await d.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: d.socketPath), "the stop removes the file it made again")
    }

    /// A write to a pipe whose reader has gone (stderr under a log
    /// collector that restarted, a peer that closed early) fails with
    /// EPIPE; the signal that would come with it does not end the daemon.
    @Test func aBrokenPipeDoesNotEndTheDaemon() async throws {
        let d = try TestDaemon()
        try await d.start()
        d.signal(SIGPIPE)
        try await Task.sleep(for: .milliseconds(100))
        #expect(!(try await d.send(["title": "still here"])).isEmpty)
        d.signal(SIGTERM)
        #expect(await d.waitForExit() == 0)
    }

    /// The journal's format only where stderr is the stream
    /// `JOURNAL_STREAM` names: a child of a service, or a shell in a user
    /// session, inherits the variable with its stderr elsewhere.
    @Test func underJournaldLinesCarryPriorityAndNoTimestamp() async throws {
        for named in [true, false] {
            let d = try TestDaemon()
            _ = FileManager.default.createFile(atPath: d.logPath, contents: nil)
            var st = stat()
            try #require(stat(d.logPath, &st) == 0)
            try await d.start(environment: ["JOURNAL_STREAM": named ? "\(st.st_dev):\(st.st_ino)" : "\(st.st_dev):\(st.st_ino + 1)"])
            d.signal(SIGTERM)
            #expect(await d.waitForExit() == 0)
            let lines = d.log.split(separator: "\n")
            if named {
                #expect(lines.contains { $0.hasPrefix("<5>alertd: alertd ready") }, "log:\n\(d.log)")
                #expect(lines.allSatisfy { $0.hasPrefix("<") })
            } else {
                #expect(lines.contains { $0.contains(" notice alertd: alertd ready") }, "log:\n\(d.log)")
                #expect(!lines.contains { $0.hasPrefix("<") })
            }
        }
    }

    @Test func jsonLogsAreOneObjectPerLine() async throws {
        let d = try TestDaemon()
        try await d.start(extraArguments: ["--log-format", "json"])
        d.signal(SIGTERM)
        #expect(await d.waitForExit() == 0)
        let objects = d.log.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.contains { $0["msg"] as? String == "alertd ready" && $0["level"] as? String == "notice" })
    }

    @Test func theLogPresenterReopensItsFileOnSIGHUP() async throws {
        let d = try TestDaemon()
        try await d.start()
        let first = try await d.send(["title": "before rotation"])
        let path = d.stateDir + "/alerts.log"
        for _ in 0..<100 where !((try? String(contentsOfFile: path, encoding: .utf8))?.contains(first) ?? false) {
            try await Task.sleep(for: .milliseconds(20))
        }
        // What logrotate does: move the file away, then signal.
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        d.signal(SIGHUP)
        try await Task.sleep(for: .milliseconds(400))
        let second = try await d.send(["title": "after rotation"])
        var rotated = ""
        for _ in 0..<100 {
            rotated = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if rotated.contains(second) { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(rotated.contains(second))
        #expect(!rotated.contains(first))
        #expect(try String(contentsOfFile: path + ".1", encoding: .utf8).contains(first))
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdSQLite
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdHTTPServer
@testable import AlertdLogging
@testable import AlertdStore
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

#if canImport(Glibc)
import Glibc
#endif

/// The daemon end to end: the real `alertd` binary, a real receiver, real
/// SQLite, real sockets.
@Suite(.serialized) struct DaemonDeliveryTests {
    func daemon(hook receiver: WebhookReceiver, retry: [String: Any]? = nil, extra: [String: Any] = [:]) throws -> TestDaemon {
        var config: [String: Any] = [
            "presenters": [
                "hook": ["type": "webhook", "url": receiver.url, "timeout": "2s"],
                "file": ["type": "log", "path": "alerts.log"],
            ],
        ]
        if let retry { config["retry"] = retry }
        for (k, v) in extra { config[k] = v }
        return try TestDaemon(config: config)
    }

    func deliveries(_ d: TestDaemon, _ id: String) async throws -> [[String: Any]] {
        try await d.show(id)["deliveries"] as? [[String: Any]] ?? []
    }

    func waitForDeliveries(_ d: TestDaemon, _ id: String, presenter: String = "hook", state: String,
                           timeout: Duration = .seconds(10)) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let hit = try await deliveries(d, id).first(where: { $0["presenter"] as? String == presenter && $0["state"] as? String == state }) {
                return hit
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        Issue.record("delivery to \(presenter) of \(id) never became \(state): \(try await deliveries(d, id))")
        return [:]
    }

    @Test func anAcceptedAlertReachesTheWebhookAndTheLog() async throws {
        let receiver = try WebhookReceiver()
        let d = try daemon(hook: receiver)
        try await d.start()
        let id = try await d.send(["title": "Disk full", "message": "/var at 97%", "severity": "critical",
                                   "labels": ["host": "db1"], "confirm": ["label": "Expand", "url": "https://ops.example/expand"]])
        #expect(await receiver.wait { $0.count == 1 })
        let got = try #require(receiver.received.first)
        #expect(got.alertID == id)
        let alert = try #require(got.json["alert"] as? [String: Any])
        #expect(alert["title"] as? String == "Disk full")
        #expect(alert["severity"] as? String == "critical")
        #expect((alert["labels"] as? [String: String]) == ["host": "db1"])
        #expect(got.request.headers["webhook-id"] != nil)

        _ = try await waitForDeliveries(d, id, presenter: "hook", state: "delivered")
        _ = try await waitForDeliveries(d, id, presenter: "file", state: "delivered")
        let log = try String(contentsOfFile: d.stateDir + "/alerts.log", encoding: .utf8)
        let line = try #require(log.split(separator: "\n").first)
        let entry = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(entry["id"] as? String == id)
        #expect(entry["title"] as? String == "Disk full")
        await receiver.stop()
    }

    @Test func serverErrorsAreRetriedWithBackoffUntilDelivered() async throws {
        let receiver = try WebhookReceiver(script: [500, 500, 500])
        let d = try daemon(hook: receiver, retry: ["initial_delay": "200ms", "factor": 2, "max_delay": "5s", "jitter": false])
        try await d.start()
        let id = try await d.send(["title": "flaky receiver"])
        let delivered = try await waitForDeliveries(d, id, state: "delivered", timeout: .seconds(15))
        #expect(delivered["attempts"] as? Int == 4)
        let arrivals = receiver.received.map(\.at)
        #expect(arrivals.count == 4)
        // Backoff without jitter: 200 ms, 400 ms, 800 ms between attempts (never sooner;
        // the dispatcher may be a little late, never early).
        for (i, ms) in [200, 400, 800].enumerated() where arrivals.count == 4 {
            let gap = arrivals[i + 1] - arrivals[i]
            #expect(gap >= .milliseconds(ms - 10), "gap \(i + 1) was \(gap)")
            #expect(gap < .milliseconds(ms + 700), "gap \(i + 1) was \(gap)")
        }
        // The same delivery id on every attempt: receivers can drop duplicates.
        #expect(Set(receiver.received.compactMap { $0.request.headers["webhook-id"] }).count == 1)
        await receiver.stop()
    }

    @Test func aNotFoundIsDeadAtOnceAndReplayDeliversItLater() async throws {
        let receiver = try WebhookReceiver(script: [404])
        let d = try daemon(hook: receiver)
        try await d.start()
        let id = try await d.send(["title": "wrong path"])
        let dead = try await waitForDeliveries(d, id, state: "dead")
        #expect(dead["attempts"] as? Int == 1)
        #expect((dead["last_error"] as? String)?.contains("404") == true)
        // The receiver is fixed (it answers 200 from now on): replay.
        let r = try await d.request("POST", "/v1/alerts/\(id)/replay")
        #expect(r.status == 200)
        #expect((try JSONSerialization.jsonObject(with: r.body) as? [String: Any])?["replayed"] as? Int == 1)
        _ = try await waitForDeliveries(d, id, state: "delivered")
        #expect(receiver.received.count == 2)
        await receiver.stop()
    }

    @Test func fiftyConcurrentSendsWithOneDedupKeyMakeOneAlertAndOneDelivery() async throws {
        let d = try TestDaemon(config: ["presenters": ["sink": ["type": "test", "record": "presented.jsonl"]]])
        let sink = TestPresenterLog(d)
        try await d.start()
        let results = try await withThrowingTaskGroup(of: (id: String?, deduplicated: Bool?).self) { group in
            for i in 0..<50 {
                group.addTask {
                    let r = try await d.request("POST", "/v1/alerts", json: ["title": "disk \(i)", "dedup_key": "disk:db1"])
                    #expect(r.status == 202)
                    let obj = try JSONSerialization.jsonObject(with: r.body) as? [String: Any] ?? [:]
                    return (obj["id"] as? String, obj["deduplicated"] as? Bool)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 50)
        #expect(Set(results.compactMap(\.id)).count == 1)
        #expect(results.filter { $0.deduplicated == false }.count == 1)
        #expect(await sink.wait { $0.count >= 1 })
        try await Task.sleep(for: .milliseconds(300))
        #expect(sink.entries.count == 1)
        let list = try JSONSerialization.jsonObject(with: try await d.request("GET", "/v1/alerts").body) as? [String: Any]
        #expect((list?["alerts"] as? [Any])?.count == 1)
    }

    @Test func theTestPresenterIsATypeLikeAnyOtherRecordingAndAnsweringItsScript() async throws {
        // The presenter mock: one file in Sources, one line in the registry.
        let d = try TestDaemon(config: [
            "presenters": ["sink": ["type": "test", "record": "presented.jsonl", "outcomes": ["retry", "retry", "delivered"]]],
        ])
        let sink = TestPresenterLog(d)
        try await d.start()
        let id = try await d.send(["title": "scripted"])
        #expect(await sink.wait { $0.count >= 3 })
        try await Task.sleep(for: .milliseconds(300))
        #expect(sink.entries.map(\.attempt) == [1, 2, 3])
        #expect(Set(sink.entries.map(\.deliveryID)) == ["\(id).0"])
        #expect(sink.entries.allSatisfy { $0.title == "scripted" && $0.presenter == "sink" })
        let show = try JSONSerialization.jsonObject(with: try await d.request("GET", "/v1/alerts/\(id)").body) as? [String: Any]
        let delivery = (show?["deliveries"] as? [[String: Any]])?.first
        #expect(delivery?["state"] as? String == "delivered")
        #expect(delivery?["attempts"] as? Int == 3)
        // Bad settings are reported with their path, like any type's.
        let bad = try TestDaemon(config: ["presenters": ["sink": ["type": "test", "outcomes": ["maybe"]]]])
        let check = try await bad.checkConfig()
        #expect(check.exitCode == 65)
        #expect(check.stderr.contains("presenters.sink.outcomes[0]: must be delivered, retry, retry:<duration>, not_sent:<duration> or dead"))
    }

    @Test func retryAfterZeroIsNoHotLoop() async throws {
        // A receiver that always says "429, Retry-After: 0" once made ~290 requests/s.
        let d = try TestDaemon(config: [
            "presenters": ["sink": ["type": "test", "record": "presented.jsonl", "outcomes": ["retry:0s"]]],
            "retry": ["initial_delay": "500ms", "jitter": false],
        ])
        let sink = TestPresenterLog(d)
        try await d.start()
        _ = try await d.send(["title": "busy receiver"])
        #expect(await sink.wait { $0.count >= 1 })
        try await Task.sleep(for: .seconds(2))
        // The backoff goes on as without the header: 500 ms, then 1 s (a third at 1.5 s, a fourth only at 3.5 s).
        // Taken as initial_delay it made one every 500 ms, five in these 2 s.
        #expect((3...4).contains(sink.entries.count), "\(sink.entries.count) attempts in 2 s")
    }

    @Test func aClaimLeftInFlightWithNoAttemptBehindItIsRetriedAfterTheLease() async throws {
        // As when recording an outcome failed (a full disk): the row says
        // in_flight, but no attempt is running. It must not stay so for ever.
        let d = try TestDaemon(config: [
            "presenters": ["sink": ["type": "test", "record": "presented.jsonl"]],
            "dispatcher": ["claim_lease": "1s"],
        ])
        let sink = TestPresenterLog(d)
        try await d.start()
        let id = try await d.send(["title": "lost outcome"])
        #expect(await sink.wait { $0.count == 1 })
        // The presenter records before the daemon writes the outcome: wait for
        // "delivered", or that write would undo the one below.
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline,
              (try await d.show(id)["deliveries"] as? [[String: Any]])?.first?["state"] as? String != "delivered" {
            try await Task.sleep(for: .milliseconds(20))
        }
        let db = try SQLiteConnection(path: d.stateDir + "/alertd.db")
        try db.withLock { c throws(SQLiteError) in
            try c.statement("UPDATE deliveries SET state = 'in_flight', updated_at = 0 WHERE alert_id = ?").run([.text(id)])
        }
        #expect(await sink.wait(timeout: .seconds(5)) { $0.count == 2 })
        #expect(Set(sink.entries.map(\.deliveryID)) == ["\(id).0"])
        let delivery = (try await d.show(id)["deliveries"] as? [[String: Any]])?.first
        #expect(delivery?["state"] as? String == "delivered")
        #expect(d.log.contains("released claims left in flight without a running delivery"))
    }

    @Test func badInputGetsTheRight4xxAndChangesNothing() async throws {
        let receiver = try WebhookReceiver()
        let d = try daemon(hook: receiver)
        try await d.start()
        func errorCode(_ r: HTTPClientResponse) -> String? {
            (try? HTTPErrorBody.decode(r.body))?.code
        }
        let json: HTTPHeaders = ["Content-Type": "application/json"]

        let malformed = try await d.request("POST", "/v1/alerts", body: Data(#"{"title": "x",}"#.utf8), headers: json)
        #expect(malformed.status == 400)
        #expect(errorCode(malformed) == "malformed_json")
        #expect((try? HTTPErrorBody.decode(malformed.body))?.message.contains("line 1, column 14") == true)

        let wrongTypes = try await d.request("POST", "/v1/alerts", json: ["title": 5, "labels": ["a": 1], "severity": true])
        #expect(wrongTypes.status == 422)
        #expect(Set((try HTTPErrorBody.decode(wrongTypes.body).details ?? []).map(\.field)) == ["title", "labels.a", "severity"])

        var big = Data(#"{"title": ""#.utf8)
        big.append(Data(repeating: UInt8(ascii: "a"), count: 10 << 20))
        big.append(Data(#""}"#.utf8))
        let tooBig = try await d.request("POST", "/v1/alerts", body: big, headers: json)
        #expect(tooBig.status == 413)
        #expect(errorCode(tooBig) == "body_too_large")

        var invalidUTF8 = Data(#"{"title": "caf"#.utf8)
        invalidUTF8.append(contentsOf: [0xC3, 0x28])
        invalidUTF8.append(Data(#""}"#.utf8))
        let badBytes = try await d.request("POST", "/v1/alerts", body: invalidUTF8, headers: json)
        #expect(badBytes.status == 400)
        #expect(errorCode(badBytes) == "malformed_json")

        let labels = Dictionary(uniqueKeysWithValues: (0..<1_000).map { ("l\($0)", "v") })
        let manyLabels = try await d.request("POST", "/v1/alerts", json: ["title": "x", "labels": labels])
        #expect(manyLabels.status == 422)
        #expect((try HTTPErrorBody.decode(manyLabels.body).details ?? []).contains { $0.code == "too_many_labels" })

        let form = try await d.request("POST", "/v1/alerts", body: Data("title=x".utf8),
                                       headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(form.status == 415)
        #expect(errorCode(form) == "unsupported_media_type")

        let nowhere = try await d.request("GET", "/v2/alerts")
        #expect(nowhere.status == 404)
        let wrongMethod = try await d.request("DELETE", "/v1/alerts")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["Allow"] != nil)
        #expect(try await d.request("GET", "/v1/alerts/not-an-id").status == 404)

        // Still healthy, and nothing was stored or delivered.
        #expect(try await d.request("GET", "/v1/health").status == 200)
        let list = try JSONSerialization.jsonObject(with: try await d.request("GET", "/v1/alerts").body) as? [String: Any]
        #expect((list?["alerts"] as? [Any])?.isEmpty == true)
        #expect(receiver.received.isEmpty)
        await receiver.stop()
    }

    @Test func tcpNeedsTheTokenAndTheSocketIsGroupOnly() async throws {
        let receiver = try WebhookReceiver()
        let tokenDir = TemporaryDirectory()
        let tokenFile = tokenDir.path + "/token"
        try writeSecretFile("s3cret-token-0123456789\n", to: tokenFile)
        let d = try daemon(hook: receiver, extra: ["api": ["token_file": tokenFile]])
        try await d.start()

        let anonymous = try await d.request("POST", "/v1/alerts", json: ["title": "x"], tcp: true)
        #expect(anonymous.status == 401)
        #expect(anonymous.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
        let wrong = try await d.request("GET", "/v1/alerts", headers: ["Authorization": "Bearer s3cret-token-0123456780"], tcp: true)
        #expect(wrong.status == 401)
        let right = try await d.request("GET", "/v1/alerts", headers: ["Authorization": "Bearer s3cret-token-0123456789"], tcp: true)
        #expect(right.status == 200)
        // The socket needs no token: its permissions are the guard.
        #expect(try await d.request("GET", "/v1/alerts").status == 200)

        var st = stat()
        #expect(stat(d.socketPath, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o660)
        await receiver.stop()
    }

    /// A receiver back from an outage gets its backlog at once: the first
    /// delivery that goes through makes the presenter's waiting retries due,
    /// where each used to wait out its own backoff (here 30 s).
    @Test func aReceiverBackFromAnOutageGetsItsBacklogAtOnce() async throws {
        let receiver = try WebhookReceiver(script: Array(repeating: 503, count: 9))
        let d = try daemon(hook: receiver, retry: ["initial_delay": "30s", "jitter": false])
        try await d.start()
        var waiting: [String] = []
        for i in 0..<9 { waiting.append(try await d.send(["title": "during the outage \(i)"])) }
        // One failed attempt each; the next is 30 s away.
        #expect(await receiver.wait(timeout: .seconds(10)) { $0.count >= 9 })
        try await Task.sleep(for: .milliseconds(300))
        let back = try await d.send(["title": "after it"])
        let sent = ContinuousClock.now
        let all = Set(waiting + [back])
        #expect(await receiver.wait(timeout: .seconds(10)) { got in
            all.isSubset(of: Set(got.dropFirst(9).compactMap(\.alertID)))
        }, "alertd log:\n\(d.log)")
        #expect(ContinuousClock.now - sent < .seconds(10))
        #expect(d.log.contains("its waiting retries are due now"))
    }

    /// A receiver that refuses some alerts and takes the others: each
    /// delivery of another alert made the refused ones' retries due at
    /// once, 41 attempts of one in 10 s against a backoff of 5 s. They are
    /// made due at most once a backoff that doubles each time: here at
    /// once, after 2 s and after 6 s, with their own retries at 2 s and 10 s.
    @Test func aReceiverThatRefusesSomeAlertsDoesNotHaveThemRetriedAtEveryOther() async throws {
        let receiver = try WebhookReceiver(refusing: "poison")
        let d = try daemon(hook: receiver, retry: ["initial_delay": "2s", "jitter": false])
        try await d.start()
        let start = ContinuousClock.now
        let poison = try await d.send(["title": "poison pill"])
        for i in 0..<40 {
            try await Task.sleep(for: .milliseconds(100))
            _ = try await d.send(["title": "normal \(i)"])
        }
        #expect(await receiver.wait(timeout: .seconds(10)) { $0.filter { $0.alertID != poison }.count >= 40 })
        let early = receiver.received.filter { $0.alertID == poison && $0.at < start + .milliseconds(4_000) }
        #expect((2...3).contains(early.count), "\(early.count) attempts of the refused alert in its first 4 s\n\(d.log)")
    }

    /// A call the presenter does not make (a handler host's breaker holds
    /// it) is no attempt: with `max_attempts` 2, three held calls then a
    /// delivered one leave the delivery delivered at its first attempt,
    /// where each held call had counted, and the delivery ended dead
    /// without ever being sent.
    @Test func callsNotSentDoNotCountAsAttempts() async throws {
        let d = try TestDaemon(config: [
            "presenters": ["held": ["type": "test", "outcomes": ["not_sent:1s", "not_sent:1s", "not_sent:1s", "delivered"]]],
            "retry": ["initial_delay": "100ms", "jitter": false, "max_attempts": 2],
        ])
        try await d.start()
        let id = try await d.send(["title": "held three times"])
        var delivery: [String: Any] = [:]
        let deadline = ContinuousClock.now + .seconds(10)
        repeat {
            try await Task.sleep(for: .milliseconds(100))
            delivery = try #require((try await d.show(id))["deliveries"] as? [[String: Any]]).first ?? [:]
        } while ["pending", "in_flight"].contains(delivery["state"] as? String ?? "pending") && ContinuousClock.now < deadline
        #expect(delivery["state"] as? String == "delivered", "\(delivery)\n\(d.log)")
        #expect(delivery["attempts"] as? Int == 1, "\(delivery)")
    }

    /// A receiver that stays down: past 16 failures in a row the presenter
    /// is tried one delivery at a time, at most 5 s apart, so an alert sent
    /// once it is back, and everything waiting, goes within about 5 s.
    @Test func aReceiverDownLongerIsTriedOneAtATimeThenGetsEverything() async throws {
        let receiver = try WebhookReceiver(script: Array(repeating: 503, count: 1_000_000))
        let d = try daemon(hook: receiver, retry: ["initial_delay": "1s", "factor": 10, "jitter": false])
        try await d.start()
        var waiting: [String] = []
        for i in 0..<40 { waiting.append(try await d.send(["title": "during the outage \(i)"])) }
        #expect(await receiver.wait(timeout: .seconds(10)) { $0.count >= 16 })
        // Tried one at a time now: 1 s, then 5 s on. Each on its own backoff made 40 more by 1 s, 80 by 11 s.
        try await Task.sleep(for: .seconds(7))
        let duringOutage = receiver.received.count
        #expect(duringOutage < 60, "\(duringOutage) attempts while down")
        #expect(d.log.contains("presenter failing"), "\(d.log)")
        // Past the trip a failed attempt is a debug line, counted once a
        // minute: a line each, a receiver down for a day made 43,000.
        let retryLines = d.log.components(separatedBy: "delivery failed, will retry").count - 1
        #expect(retryLines <= 20 && retryLines < duringOutage, "\(retryLines) lines for \(duringOutage) attempts:\n\(d.log)")
        receiver.script([])
        let back = try await d.send(["title": "after it"])
        let all = Set(waiting + [back])
        #expect(await receiver.wait(timeout: .seconds(10)) { got in
            all.isSubset(of: Set(got.dropFirst(duringOutage).compactMap(\.alertID)))
        }, "alertd log:\n\(d.log)")
        #expect(d.log.contains("it is tried at full concurrency"))
    }

    /// A reload that changes nothing (logrotate's SIGHUP) leaves a failing
    /// presenter paced: it is tried once at once, where every retry held
    /// back went at the receiver (514 attempts in 5 s, against 2).
    @Test func aReloadThatChangesNothingKeepsAFailingPresenterPaced() async throws {
        let receiver = try WebhookReceiver(script: Array(repeating: 503, count: 1_000_000))
        let config: [String: Any] = [
            "presenters": ["hook": ["type": "webhook", "url": receiver.url, "timeout": "2s"]],
            "retry": ["initial_delay": "1s", "factor": 2, "max_delay": "2s", "jitter": false],
        ]
        let d = try TestDaemon(config: config)
        try await d.start()
        for i in 0..<40 { _ = try await d.send(["title": "during the outage \(i)"]) }
        #expect(await receiver.wait(timeout: .seconds(10)) { $0.count >= 16 })
        // Every retry is due by now, held back by the pacing.
        try await Task.sleep(for: .seconds(3))
        #expect(d.log.contains("presenter failing"), "\(d.log)")
        let before = receiver.received.count
        try await d.reload(config)
        try await Task.sleep(for: .milliseconds(1_500))
        let after = receiver.received.count
        #expect(after - before <= 4, "\(after - before) attempts in the 1.5 s after the reload")
    }

    @Test func sigtermDuringDeliveriesExitsCleanlyAndLosesNothing() async throws {
        let slow = try WebhookReceiver(delay: .milliseconds(300))
        let port = slow.port
        let d = try daemon(hook: slow, extra: ["dispatcher": ["shutdown_grace": "3s"]])
        try await d.start()
        var ids: [String] = []
        for i in 0..<20 { ids.append(try await d.send(["title": "alert \(i)"])) }
        #expect(await slow.wait { $0.count >= 2 })
        let stoppedAt = ContinuousClock.now
        d.signal(SIGTERM)
        let status = await d.waitForExit(timeout: .seconds(8))
        #expect(status == 0, "alertd log:\n\(d.log)")
        #expect(ContinuousClock.now - stoppedAt < .seconds(5))
        await slow.stop()

        // A fast receiver on the same address; the restarted daemon finishes the job.
        let fast = try WebhookReceiver(port: port)
        try await d.start()
        let expected = Set(ids)
        let allArrived = await fast.wait(timeout: .seconds(15)) { got in
            expected.isSubset(of: Set(got.compactMap(\.alertID) + slow.received.compactMap(\.alertID)))
        }
        #expect(allArrived, "missing: \(expected.subtracting(fast.received.compactMap(\.alertID) + slow.received.compactMap(\.alertID)))")
        await fast.stop()
    }
}

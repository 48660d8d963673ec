import Foundation
import Synchronization
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdDaemon

#if canImport(Glibc)
import Glibc
#endif

/// Several real alertd nodes on one real PostgreSQL database, active-active:
/// every node takes alerts and decisions and delivers, and what one node
/// promises holds for all of them.
@Suite(.serialized) struct ClusterTests {
    /// `count` nodes on `url`, started together (so their migrations race),
    /// delivering to `receiver` through webhooks named `presenters`. The
    /// lease is long unless a test kills a node, so a node slowed down by a
    /// busy machine never looks dead to the others.
    func nodes(_ count: Int, url: String, receiver: WebhookReceiver, presenters: [String] = ["hook"],
               lease: String = "30s", concurrency: Int = 8, extra: [String: Any] = [:], first: Int = 0,
               environments: [Int: [String: String]] = [:]) async throws -> [TestDaemon] {
        // Each node's webhook has its own path (`/hook/n0`, …): the same
        // presenter to the store, and the receiver tells who delivered.
        let daemons = try (first..<(first + count)).map { node in
            var hooks: [String: Any] = [:]
            for name in presenters {
                hooks[name] = ["type": "webhook", "url": "http://127.0.0.1:\(receiver.port)/\(name)/n\(node)", "max_concurrency": concurrency]
            }
            var config: [String: Any] = [
                "store": ["url": url], "presenters": hooks, "dispatcher": ["claim_lease": lease],
                "retry": ["initial_delay": "100ms", "factor": 2, "max_delay": "500ms", "jitter": false],
            ]
            for (k, v) in extra { config[k] = v }
            return try TestDaemon(config: config)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, d) in daemons.enumerated() { group.addTask { try await d.start(environment: environments[first + i] ?? [:]) } }
            try await group.waitForAll()
        }
        return daemons
    }

    /// The `webhook-id` of every request received, with how often each came.
    func deliveries(_ receiver: WebhookReceiver) -> [String: Int] {
        var seen: [String: Int] = [:]
        for r in receiver.received { seen[r.request.headers["webhook-id"] ?? "?", default: 0] += 1 }
        return seen
    }

    func json(_ r: HTTPClientResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: r.body)) as? [String: Any] ?? [:]
    }

    @Test func aThousandAlertsAcrossThreeNodesAreEachDeliveredOncePerPresenter() async throws {
        let receiver = try WebhookReceiver()
        let url = try PostgresServer.shared().makeDatabase()
        let cluster = try await nodes(3, url: url, receiver: receiver, presenters: ["a", "b"])
        // 100 batches of 10, spread over the nodes, 10 requests at a time.
        let accepted = try await withThrowingTaskGroup(of: [String].self) { group in
            for worker in 0..<10 {
                group.addTask {
                    var ids: [String] = []
                    for batch in 0..<10 {
                        let n = worker * 10 + batch
                        let alerts = (0..<10).map { ["title": "alert \(n * 10 + $0)"] }
                        let r = try await cluster[n % 3].request("POST", "/v1/alerts", json: alerts)
                        guard r.status == 202, let results = (try JSONSerialization.jsonObject(with: r.body) as? [String: Any])?["results"] as? [[String: Any]]
                        else { throw TestDaemon.Failure("batch \(n): \(r.status) \(String(decoding: r.body, as: UTF8.self))") }
                        ids += results.compactMap { $0["id"] as? String }
                    }
                    return ids
                }
            }
            return try await group.reduce([]) { $0 + $1 }
        }
        #expect(Set(accepted).count == 1_000)
        let done = await receiver.wait(timeout: .seconds(60)) { $0.count >= 2_000 }
        #expect(done, "received \(receiver.received.count) of 2000")
        // Settle a moment: a duplicate would arrive now.
        try await Task.sleep(for: .milliseconds(500))
        let seen = deliveries(receiver)
        #expect(seen.count == 2_000)
        #expect(seen.values.allSatisfy { $0 == 1 }, "duplicates: \(seen.filter { $0.value > 1 }.count)")
        let delivered = Set(receiver.received.compactMap(\.alertID))
        #expect(delivered == Set(accepted))
        for name in ["/a/", "/b/"] { #expect(receiver.received.filter { $0.request.path.hasPrefix(name) }.count == 1_000) }
        // Every node delivered some: the work is shared, not left to one.
        for node in 0..<3 { #expect(receiver.received.contains { $0.request.path.hasSuffix("/n\(node)") }) }
    }

    @Test func aNodeKilledMidDeliveryLeavesItsWorkToTheOthers() async throws {
        let receiver = try WebhookReceiver(delay: .milliseconds(200))
        let url = try PostgresServer.shared().makeDatabase()
        let cluster = try await nodes(2, url: url, receiver: receiver, lease: "2s", concurrency: 8)
        let (doomed, survivor) = (cluster[0], cluster[1])
        // One request, so the work starts all at once and outlasts the kill.
        let r = try await doomed.request("POST", "/v1/alerts", json: (0..<200).map { ["title": "work \($0)"] })
        #expect(r.status == 202)
        let accepted = (json(r)["results"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(accepted.count == 200)
        // Killed while it delivers: its own requests are arriving.
        let busy = await receiver.wait(timeout: .seconds(20)) { $0.filter { $0.request.path == "/hook/n0" }.count >= 12 }
        #expect(busy)
        await doomed.kill9()
        let cutOff = Set(receiver.received.filter { $0.request.path == "/hook/n0" }.compactMap { $0.request.headers["webhook-id"] })
        let done = await receiver.wait(timeout: .seconds(60)) { received in Set(received.compactMap(\.alertID)).isSuperset(of: accepted) }
        #expect(done, "delivered \(Set(receiver.received.compactMap(\.alertID)).count) of 200:\n\(survivor.log.suffix(2000))")
        // The receiver saw the dead node's last requests arrive; the store
        // sees them delivered only once the survivor has taken back the
        // claims (after the lease) and made them again.
        var settled = false
        let deadline = ContinuousClock.now + .seconds(30)
        while !settled && ContinuousClock.now < deadline {
            settled = json(try await survivor.request("GET", "/v1/health"))["pending_deliveries"] as? Int == 0
            if !settled { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(settled, "\(survivor.log.suffix(2000))")
        // At-least-once: only what the dead node had in flight comes twice, with the same webhook-id:
        // at most twice its 8 slots, those being sent and those sent whose outcome was not yet written.
        let twice = deliveries(receiver).filter { $0.value > 1 }
        #expect(twice.count <= 16, "duplicates: \(twice)")
        #expect(twice.values.allSatisfy { $0 == 2 })
        // The dead node's claims were taken back when their lease ran out,
        // and made again by the survivor under the same webhook-id.
        #expect(survivor.log.contains("released claims left in flight"), "\(survivor.log.suffix(2000))")
        #expect(!twice.isEmpty && Set(twice.keys).isSubset(of: cutOff), "duplicates: \(twice.keys.sorted()), dead node sent: \(cutOff.count)")
    }

    /// Leases are judged by the database's clock: a node whose clock runs
    /// 10 s ahead (libfaketime) leaves another node's running deliveries
    /// alone under a 4 s lease. By its own clock it released them at once,
    /// and sent each again while the first attempts still ran.
    @Test func aNodeWhoseClockIsAheadLeavesAnotherNodesRunningDeliveriesAlone() async throws {
        let libraries = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? []
        let faketime = try #require(libraries.map { "/usr/lib/\($0)/faketime/libfaketimeMT.so.1" }.first { FileManager.default.fileExists(atPath: $0) },
                                    "scripts/install-deps.sh --test installs libfaketime")
        let receiver = try WebhookReceiver(delay: .seconds(6))
        let url = try PostgresServer.shared().makeDatabase()
        let ahead = ["LD_PRELOAD": faketime, "FAKETIME": "+10s", "FAKETIME_DONT_FAKE_MONOTONIC": "1"]
        let cluster = try await nodes(2, url: url, receiver: receiver, lease: "4s", environments: [1: ahead])
        // Node b's clock is ahead, or this test proves nothing: its answers' Date says so.
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        let said = try #require(try await cluster[1].request("GET", "/v1/health").headers["Date"].flatMap(format.date(from:)))
        #expect(said.timeIntervalSinceNow > 8, "node b's clock: \(said) at \(Date())")
        let r = try await cluster[0].request("POST", "/v1/alerts", json: (0..<4).map { ["title": "slow \($0)"] })
        #expect(r.status == 202)
        let all = await receiver.wait(timeout: .seconds(30)) { Set($0.compactMap { $0.request.headers["webhook-id"] }).count >= 4 }
        #expect(all)
        // Past the first attempts' answers, when a second one would have come.
        try await Task.sleep(for: .seconds(8))
        let twice = deliveries(receiver).filter { $0.value > 1 }
        #expect(twice.isEmpty, "sent again: \(twice); node b: \(cluster[1].log.suffix(1500))")
        #expect(!cluster[1].log.contains("released claims left in flight"), "\(cluster[1].log.suffix(1500))")
    }

    /// A node stopped cleanly mid-delivery gives back what its grace cut
    /// off: the other node makes those deliveries at once, not a lease later.
    @Test func aNodeStoppedMidDeliveryHandsItsWorkOverAtOnce() async throws {
        let receiver = try WebhookReceiver(delay: .seconds(3))
        let url = try PostgresServer.shared().makeDatabase()
        let extra: [String: Any] = ["dispatcher": ["claim_lease": "60s", "shutdown_grace": "500ms"]]
        // The second node starts once the first has taken all four.
        var cluster = try await nodes(1, url: url, receiver: receiver, concurrency: 4, extra: extra)
        let r = try await cluster[0].request("POST", "/v1/alerts", json: (0..<4).map { ["title": "handed over \($0)"] })
        #expect(r.status == 202)
        let accepted = Set((json(r)["results"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
        #expect(accepted.count == 4)
        #expect(await receiver.wait(timeout: .seconds(10)) { $0.filter { $0.request.path == "/hook/n0" }.count == 4 })
        cluster += try await nodes(1, url: url, receiver: receiver, concurrency: 4, extra: extra, first: 1)
        let stopped = ContinuousClock.now
        cluster[0].signal(SIGTERM)
        #expect(await cluster[0].waitForExit(timeout: .seconds(10)) == 0)
        let handedOver = await receiver.wait(timeout: .seconds(15)) { received in
            Set(received.filter { $0.request.path == "/hook/n1" }.compactMap(\.alertID)).isSuperset(of: accepted)
        }
        #expect(handedOver, "\(cluster[0].log.suffix(1500))")
        #expect(ContinuousClock.now - stopped < .seconds(20), "well within the 60 s lease")
        #expect(cluster[0].log.contains("given back"), "\(cluster[0].log.suffix(1500))")
    }

    /// Two nodes of one name take back each other's claims at a start: a
    /// second that starts beside a first of its name says so.
    @Test func aSecondNodeOfTheSameNameIsWarnedOf() async throws {
        let receiver = try WebhookReceiver()
        let url = try PostgresServer.shared().makeDatabase()
        let extra: [String: Any] = ["store": ["url": url, "node": "twin"]]
        let first = try await nodes(1, url: url, receiver: receiver, extra: extra)
        let second = try await nodes(1, url: url, receiver: receiver, extra: extra, first: 1)
        let other = try await nodes(1, url: url, receiver: receiver, first: 2)
        #expect(!first[0].log.contains("this node's name"))
        #expect(second[0].log.contains("another running node has this node's name"), "\(second[0].log)")
        #expect(!other[0].log.contains("this node's name"))
    }

    @Test func theSameDedupKeyPostedToTwoNodesAtOnceGivesOneAlert() async throws {
        let receiver = try WebhookReceiver()
        let url = try PostgresServer.shared().makeDatabase()
        let cluster = try await nodes(2, url: url, receiver: receiver)
        for round in 0..<5 {
            let ids = try await withThrowingTaskGroup(of: String.self) { group in
                for i in 0..<10 {
                    group.addTask { try await cluster[i % 2].send(["title": "disk full", "dedup_key": "disk:\(round)"]) }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(ids.count == 1, "round \(round): \(ids)")
        }
        _ = await receiver.wait(timeout: .seconds(10)) { $0.count >= 5 }
        try await Task.sleep(for: .milliseconds(300))
        #expect(receiver.received.count == 5)
    }

    @Test func confirmOnOneNodeAndCancelOnAnotherGiveOneWinnerAndOneHandlerCall() async throws {
        let receiver = try WebhookReceiver()
        let handler = try WebhookReceiver()
        let url = try PostgresServer.shared().makeDatabase()
        let cluster = try await nodes(2, url: url, receiver: receiver, extra: ["actions": ["allow": ["127.0.0.1"], "timeout": "2s"]])
        var alerts: [String] = []
        for i in 0..<5 {
            alerts.append(try await cluster[0].send([
                "title": "Deploy \(i)?",
                "confirm": ["label": "Deploy", "url": "http://127.0.0.1:\(handler.port)/confirm"],
                "cancel": ["label": "Abort", "url": "http://127.0.0.1:\(handler.port)/cancel"],
            ]))
        }
        for id in alerts {
            async let confirm = cluster[0].request("POST", "/v1/alerts/\(id)/confirm")
            async let cancel = cluster[1].request("POST", "/v1/alerts/\(id)/cancel")
            let statuses = [try await confirm.status, try await cancel.status].sorted()
            #expect(statuses == [200, 409], "\(id): \(statuses)")
        }
        _ = await handler.wait(timeout: .seconds(10)) { $0.count >= 5 }
        try await Task.sleep(for: .milliseconds(500))
        #expect(handler.received.count == 5)
        #expect(Set(handler.received.compactMap(\.alertID)) == Set(alerts))
        // Each node tells the same story.
        for id in alerts {
            let a = try await cluster[0].show(id), b = try await cluster[1].show(id)
            #expect(a["state"] as? String == b["state"] as? String)
        }
    }

    @Test func theEventStreamOfEveryNodeCarriesEveryNodesEvents() async throws {
        let receiver = try WebhookReceiver()
        let url = try PostgresServer.shared().makeDatabase()
        let cluster = try await nodes(2, url: url, receiver: receiver)
        async let stream = TestBinaries.run("/usr/bin/curl", ["-sN", "--max-time", "3", "--unix-socket", cluster[1].socketPath,
                                                             "http://localhost/v1/events?since=now"])
        try await Task.sleep(for: .milliseconds(700))
        let id = try await cluster[0].send(["title": "seen everywhere"])
        let out = try await stream.stdout
        #expect(out.contains("alert.created") && out.contains(id), "stream on node 2:\n\(out)")
    }

    @Test func theURLFileIsASecretAndThePasswordIsNeverLogged() async throws {
        let url = try PostgresServer.shared().makeDatabase()
        // The test cluster trusts loopback, so any password works; it must not be shown.
        let withPassword = url.replacingOccurrences(of: "alertd@", with: "alertd:TopSecret42@")
        let d = try TestDaemon(config: ["store": ["url_file": "db.url"]])
        try FileManager.default.createDirectory(atPath: d.stateDir, withIntermediateDirectories: true)
        try Data(withPassword.utf8).write(to: URL(fileURLWithPath: d.stateDir + "/db.url"))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: d.stateDir + "/db.url")
        #expect(try await d.startExpectingExit() != 0)
        #expect(d.log.contains("db.url"), "\(d.log)")
        try writeSecretFile(withPassword, to: d.stateDir + "/db.url")
        try await d.start(extraArguments: ["--log-level", "debug"])
        _ = try await d.send(["title": "through the url file"])
        #expect(d.log.contains("alertd:***@"), "\(d.log)")
        #expect(!d.log.contains("TopSecret42"))
        let health = try await d.request("GET", "/v1/health")
        #expect(!String(decoding: health.body, as: UTF8.self).contains("TopSecret42"))
    }

    /// A node cut off from the database inside a transaction, holding the
    /// event log's lock (a network gone quiet, not a reset): the server
    /// ends the transaction within seconds and the other nodes take alerts
    /// again. The session lived on with its locks, for two hours with the
    /// server's default keepalives, and every write of the others waited.
    @Test func aNodeCutOffInsideATransactionHoldsTheOthersUpForSecondsNotHours() async throws {
        let receiver = try WebhookReceiver()
        let server = try PostgresServer.shared()
        let url = try server.makeDatabase()
        let dir = TemporaryDirectory()
        let armed = dir.path + "/armed"
        let proxyPort = try TestDaemon.freePort()
        let proxy = try ExternalProgram("python3", ["-c", Self.freezingProxy, "\(proxyPort)", "\(server.port)", armed], logPath: dir.path + "/proxy.log")
        defer { proxy.signal(SIGKILL) }
        for _ in 0..<100 where !proxy.log.contains("listening") { try await Task.sleep(for: .milliseconds(50)) }
        let cutOff = try await nodes(1, url: url.replacingOccurrences(of: ":\(server.port)/", with: ":\(proxyPort)/"), receiver: receiver)
        let other = try await nodes(1, url: url, receiver: receiver, first: 1)

        // The cut-off node takes the event log's lock for an alert; its connection then goes quiet.
        try "pg_advisory_xact_lock".write(toFile: armed, atomically: true, encoding: .utf8)
        let stuck = Task { try? await cutOff[0].request("POST", "/v1/alerts", json: ["title": "cut off"]) }
        defer { stuck.cancel() }
        var frozen = false
        for _ in 0..<100 where !frozen {
            frozen = !FileManager.default.fileExists(atPath: armed)
            if !frozen { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(frozen, "the proxy never saw the lock taken; its log:\n\(proxy.log)\nthe node's:\n\(cutOff[0].log.suffix(2000))")

        let since = ContinuousClock.now
        var accepted = false
        while !accepted && ContinuousClock.now - since < .seconds(45) {
            accepted = (try? await other[0].request("POST", "/v1/alerts", json: ["title": "the other node"]))?.status == 202
            if !accepted { try await Task.sleep(for: .milliseconds(500)) }
        }
        #expect(accepted, "the other node took no alert in 45 s; its log:\n\(other[0].log.suffix(2000))")
        #expect(ContinuousClock.now - since < .seconds(35), "\(ContinuousClock.now - since)")
    }

    /// A TCP proxy (listen port, target port, arm file) that, once the arm
    /// file exists and the client sends its text, forwards that chunk and
    /// then nothing more on that connection, either way, and removes the
    /// file: a network gone quiet, the sockets still open.
    static let freezingProxy = """
        import asyncio, os, sys
        listen, target, armed = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
        async def pipe(r, w, up, frozen):
            try:
                while not frozen.is_set():
                    d = await r.read(65536)
                    if not d or frozen.is_set(): break
                    w.write(d); await w.drain()
                    if up and os.path.exists(armed) and open(armed, "rb").read().strip() in d:
                        os.remove(armed); frozen.set()
                await asyncio.Event().wait() if frozen.is_set() else None
            except Exception: pass
            finally:
                if not frozen.is_set(): w.close()
        async def handle(cr, cw):
            try: sr, sw = await asyncio.open_connection("127.0.0.1", target)
            except Exception: cw.close(); return
            frozen = asyncio.Event()
            await asyncio.gather(pipe(cr, sw, True, frozen), pipe(sr, cw, False, frozen))
        async def main():
            s = await asyncio.start_server(handle, "127.0.0.1", listen)
            print("listening", flush=True)
            async with s: await s.serve_forever()
        asyncio.run(main())
        """

    @Test func postgresStoppedUnderLoadMeans503sAndNothingAcknowledgedIsLost() async throws {
        let receiver = try WebhookReceiver()
        let server = try PostgresServer()
        let url = try server.makeDatabase()
        // A short lease: outcomes that could not be recorded while the database was down are retried soon after.
        let cluster = try await nodes(2, url: url, receiver: receiver, lease: "3s")
        let accepted = Mutex<[String]>([])
        let statuses = Mutex<[Int: Int]>([:])
        let sending = Atomic<Bool>(true)
        let load = Task {
            var n = 0
            while sending.load(ordering: .relaxed) && n < 2_000 {
                n += 1
                guard let r = try? await cluster[n % 2].request("POST", "/v1/alerts", json: ["title": "load \(n)"]) else { continue }
                statuses.withLock { $0[Int(r.status), default: 0] += 1 }
                if r.status == 202, let id = (try? JSONSerialization.jsonObject(with: r.body) as? [String: Any])?["id"] as? String {
                    accepted.withLock { $0.append(id) }
                }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        try await Task.sleep(for: .seconds(1))
        server.stop()
        try await Task.sleep(for: .seconds(2))
        let health = try await cluster[0].request("GET", "/v1/health")
        #expect(health.status == 503)
        #expect(json(health)["status"] as? String != "ok")
        let duringOutage = statuses.withLock { $0[503, default: 0] }
        #expect(duringOutage > 0, "no 503 while the database was down: \(statuses.withLock { $0 })")
        try server.start()
        // Back within the reconnect backoff (1 s at most).
        var healthy = false
        let deadline = ContinuousClock.now + .seconds(15)
        while !healthy && ContinuousClock.now < deadline {
            healthy = try await cluster.asyncAllSatisfy { try await $0.request("GET", "/v1/health").status == 200 }
            if !healthy { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(healthy)
        try await Task.sleep(for: .seconds(1))
        sending.store(false, ordering: .relaxed)
        await load.value
        let counts = statuses.withLock { $0 }
        #expect(Set(counts.keys).isSubset(of: [202, 503]), "\(counts)")
        let ids = Set(accepted.withLock { $0 })
        #expect(!ids.isEmpty)
        let done = await receiver.wait(timeout: .seconds(30)) { Set($0.compactMap(\.alertID)).isSuperset(of: ids) }
        #expect(done, "delivered \(Set(receiver.received.compactMap(\.alertID)).intersection(ids).count) of \(ids.count) acknowledged")
        // Every acknowledged alert is in the database.
        for id in ids.prefix(50) { #expect(try await cluster[1].request("GET", "/v1/alerts/\(id)").status == 200) }
    }
}

extension Array where Element: Sendable {
    func asyncAllSatisfy(_ predicate: (Element) async throws -> Bool) async rethrows -> Bool {
        for e in self where try await !predicate(e) { return false }
        return true
    }
}

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A store that cannot be written makes alertd say so everywhere it reports
/// its health, and a start on one fails; see ``StorageFaults`` for how the
/// storage is made to fail for real, root included.
@Suite(.serialized) struct UnwritableStoreTests {
    func health(_ d: TestDaemon) async throws -> (status: Int, body: [String: Any]) {
        let r = try await d.request("GET", "/v1/health")
        return (r.status, try JSONSerialization.jsonObject(with: r.body) as? [String: Any] ?? [:])
    }

    func writableGauge(_ d: TestDaemon) async throws -> String? {
        let text = String(decoding: try await d.request("GET", "/metrics").body, as: UTF8.self)
        return text.split(separator: "\n").first { $0.hasPrefix("alertd_store_writable ") }.map { String($0.dropFirst(22)) }
    }

    /// Health, metrics and the status line while writes fail, and after.
    func expectDegraded(_ d: TestDaemon, reason: String, status: DatagramReceiver) async throws {
        var refused: Int?
        for i in 0..<50 {
            let r = try await d.request("POST", "/v1/alerts", json: ["title": "refused \(i)"])
            if r.status != 202 { refused = r.status; break }
        }
        #expect(refused == 503, "log:\n\(d.log)")
        let (code, body) = try await health(d)
        #expect(code == 503)
        #expect(body["status"] as? String == "degraded")
        #expect(body["store"] as? String == "unwritable")
        #expect(body["dispatcher"] as? String == "running")
        #expect((body["reason"] as? String)?.contains(reason) == true, "\(body)")
        #expect(body["open_alerts"] is Int, "reads still work, so the counts are there")
        #expect(try await writableGauge(d) == "0")
        // Not ready either: a load balancer must stop sending alerts that all get 503.
        let ready = try await d.request("GET", "/-/ready")
        #expect(ready.status == 503, "\(String(decoding: ready.body, as: UTF8.self))")
        #expect(String(decoding: ready.body, as: UTF8.self).contains("store unwritable"), "\(String(decoding: ready.body, as: UTF8.self))")
        var line: String?
        let deadline = ContinuousClock.now + .seconds(10)
        while line == nil, ContinuousClock.now < deadline, let m = await status.next(timeout: .seconds(1)) {
            line = m.split(separator: "\n").first { $0.hasPrefix("STATUS=Degraded, store not writable") }.map(String.init)
        }
        #expect(line != nil, "no degraded STATUS= line")
        #expect(d.log.contains("the store cannot be written; alerts are refused until a write succeeds"))
    }

    func expectRecovered(_ d: TestDaemon) async throws {
        // Nobody writes: the store's own probe (every 5 s) sees the disk back.
        let deadline = ContinuousClock.now + .seconds(20)
        while try await health(d).status != 200, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let (code, body) = try await health(d)
        #expect(code == 200, "\(body)")
        #expect(body["status"] as? String == "ok")
        #expect(body["reason"] == nil)
        #expect(try await writableGauge(d) == "1")
        #expect(try await d.request("GET", "/-/ready").status == 200)
        #expect(d.log.contains("the store takes writes again"))
        _ = try await d.send(["title": "after"])
    }

    @Test(.enabled(if: StorageFaults.canFreeze, "chattr +i is not available (needs root and a file system with the immutable attribute); read-only store case skipped"))
    func aStoreMadeReadOnlyAfterStartIsDegradedAndRecovers() async throws {
        let status = try DatagramReceiver()
        let d = try TestDaemon()
        // The watchdog period makes the status line refresh every half second.
        try await d.start(environment: ["NOTIFY_SOCKET": status.address, "WATCHDOG_USEC": "1000000"])
        #expect(try await writableGauge(d) == "1")
        _ = try await d.send(["title": "before"])
        // Not the -shm file: see StorageFaults.
        let frozen = [d.stateDir + "/alertd.db", d.stateDir + "/alertd.db-wal", d.stateDir]
        try StorageFaults.freeze(frozen)
        defer { StorageFaults.thaw(frozen) }
        try await expectDegraded(d, reason: "Writing to the store failed", status: status)
        StorageFaults.thaw(frozen)
        try await expectRecovered(d)
    }

    @Test(.enabled(if: StorageFaults.canMountPrivateTmpfs, "cannot mount a tmpfs in a private mount namespace (needs root and unshare/nsenter); full disk case skipped"))
    func aFullDiskIsDegradedAndRecovers() async throws {
        let status = try DatagramReceiver()
        let mount = TemporaryDirectory()
        let state = mount.path + "/state"
        // A short lease: the check of stale claims runs every half second.
        let d = try TestDaemon(config: ["dispatcher": ["claim_lease": "2s"]], launcher: StorageFaults.privateTmpfs(on: state, size: "2m"),
                               stateDir: state)
        try await d.start(environment: ["NOTIFY_SOCKET": status.address, "WATCHDOG_USEC": "1000000"])
        let pid = try #require(d.pid)
        _ = try await d.send(["title": "before"])
        // Fill the tmpfs to the last block (cat stops at "No space left").
        StorageFaults.inMountNamespace(of: pid, "cat /dev/zero > '\(state)/filler'")
        try await expectDegraded(d, reason: "the disk is full", status: status)
        // alertctl's exit says try again later (75), not failed (1).
        let refused = try await d.alertctl(["send", "--title", "while full"])
        #expect(refused.exitCode == 75, "\(refused.stderr)")
        // A failure met every round is a line when it starts, not one a round.
        try await Task.sleep(for: .seconds(2))
        let staleLines = d.log.components(separatedBy: "could not release stale claims").count - 1
        #expect(staleLines == 1, "\(staleLines) lines:\n\(d.log)")
        #expect(StorageFaults.inMountNamespace(of: pid, "rm '\(state)/filler'").status == 0)
        try await expectRecovered(d)
    }

    /// The log presenter on a full disk: a line the disk had room for only
    /// part of is taken back, so when space returns the retried lines start
    /// on lines of their own. Half a line stayed, and the next was glued to
    /// it: neither could be read.
    @Test(.enabled(if: StorageFaults.canMountPrivateTmpfs, "cannot mount a tmpfs in a private mount namespace (needs root and unshare/nsenter); full disk case skipped"))
    func aLogLineTheDiskHadNoRoomForLeavesNoFragment() async throws {
        let mount = TemporaryDirectory()
        let logs = mount.path + "/logs"
        let d = try TestDaemon(config: ["presenters": ["file": ["type": "log", "path": logs + "/alerts.log", "format": "json"]],
                                        "default_route": ["presenters": ["file"]]],
                               launcher: StorageFaults.privateTmpfs(on: logs, size: "16k"))
        try await d.start()
        let pid = try #require(d.pid)
        let message = String(repeating: "m", count: 3_000)
        for i in 0..<10 { _ = try await d.send(["title": "L-\(i)", "message": message]) }
        func lines() -> [Substring] {
            StorageFaults.inMountNamespace(of: pid, "cat '\(logs)/alerts.log'").output.split(separator: "\n", omittingEmptySubsequences: false)
        }
        // Some lines in, the rest waiting for room.
        #expect(await eventually(.seconds(10)) { d.log.contains("writing to log file") }, "\(d.log)")
        #expect(StorageFaults.inMountNamespace(of: pid, "mount -o remount,size=1m '\(logs)'").status == 0)
        _ = await eventually(.seconds(30)) { lines().filter { !$0.isEmpty }.count >= 10 }
        let written = lines().filter { !$0.isEmpty }
        #expect(written.count == 10, "\(written.map { $0.prefix(60) })")
        for line in written {
            let parsed = try? JSONSerialization.jsonObject(with: Data(line.utf8))
            #expect(parsed != nil, "not one JSON line: \(line.prefix(80))…\(line.suffix(40))")
        }
    }

    /// A disk with room for the lock file but not the store: 73, as for a
    /// disk with no room at all, not 1 (a generic failure).
    @Test(.enabled(if: StorageFaults.canMountPrivateTmpfs, "cannot mount a tmpfs in a private mount namespace (needs root and unshare/nsenter); full disk case skipped"))
    func aStartOnANearlyFullDiskExits73() async throws {
        let mount = TemporaryDirectory()
        let state = mount.path + "/state"
        let launcher = ["unshare", "-m", "--propagation", "private", "--", "/bin/sh", "-c",
                        #"mkdir -p "$0" && mount -t tmpfs -o size=64k,mode=0750 alertd-test "$0" && head -c 40000 /dev/zero > "$0/filler" && exec "$@""#,
                        state]
        let d = try TestDaemon(launcher: launcher, stateDir: state)
        #expect(try await d.startExpectingExit() == 73, "\(d.log)")
        #expect(d.log.contains("code=store_cannot_open") && d.log.contains("has room"), "\(d.log)")
    }

    /// A state directory whose path runs through a file cannot be created
    /// there, and one that is a file cannot be used: 73, as for a read-only
    /// disk and as the man page says, not 1.
    @Test(arguments: [("/file/state", "a part of its path is a file"), ("/file", "is not a directory")])
    func aStateDirectoryAtAFileExits73(under path: String, says: String) async throws {
        let dir = TemporaryDirectory()
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: dir.path + "/file"))
        let d = try TestDaemon(stateDir: dir.path + path)
        #expect(try await d.startExpectingExit() == 73, "\(d.log)")
        #expect(d.log.contains("code=state_unwritable") && d.log.contains(says), "\(d.log)")
    }

    @Test func aStartOnAnUnwritableStateDirectoryFailsNamingIt() async throws {
        let d = try TestDaemon()
        try await d.start()
        d.signal(SIGTERM)
        #expect(await d.waitForExit() == 0)
        // Root ignores permission bits; the immutable attribute binds it too.
        let asRoot = getuid() == 0
        if asRoot {
            try #require(StorageFaults.canFreeze, "as root, only chattr +i makes a directory unwritable")
            try StorageFaults.freeze([d.stateDir])
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o550], ofItemAtPath: d.stateDir)
        }
        defer {
            if asRoot { StorageFaults.thaw([d.stateDir]) }
            try? FileManager.default.setAttributes([.posixPermissions: 0o750], ofItemAtPath: d.stateDir)
        }
        #expect(try await d.startExpectingExit() == 73)
        #expect(d.log.contains("The state directory \(d.stateDir) cannot be written"), "\(d.log)")
        #expect(d.log.contains("code=state_unwritable"))
    }
}

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One alertd per state directory: a second one must not touch the first
/// one's store, not even to reset its deliveries in flight.
@Suite(.serialized) struct StateDirectoryLockTests {
    /// Deliveries that take long stay in flight while a second alertd tries.
    static var config: [String: Any] { ["presenters": ["slow": ["type": "test", "delay": "60s"]]] }

    /// A running alertd with one delivery in flight, and a look at that delivery.
    func firstWithADeliveryInFlight() async throws -> (TestDaemon, pid: Int32, delivery: () async throws -> [String: Any]) {
        let first = try TestDaemon(config: Self.config)
        try await first.start()
        let pid = try #require(first.pid)
        let id = try await first.send(["title": "in flight"])
        let delivery = { () async throws -> [String: Any] in
            try #require((try await first.show(id))["deliveries"] as? [[String: Any]]).first ?? [:]
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while try await delivery()["state"] as? String != "in_flight", ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try await delivery()["state"] as? String == "in_flight")
        return (first, pid, delivery)
    }

    @Test func aSecondAlertdOnTheSameStateDirectoryExitsAndLeavesTheFirstAlone() async throws {
        let (first, pid, delivery) = try await firstWithADeliveryInFlight()

        // Its own socket and port, so nothing but the lock can stop it.
        let second = try TestDaemon(config: Self.config, stateDir: first.stateDir)
        let status = try await second.startExpectingExit()
        #expect(status == 75, "log:\n\(second.log)")
        #expect(second.log.contains("Another alertd (pid \(pid)) is running on the state directory \(first.stateDir)"), "\(second.log)")
        #expect(second.log.contains("code=state_locked"))
        #expect(try String(contentsOfFile: first.stateDir + "/alertd.lock", encoding: .utf8) == "\(pid)\n")

        // The first one's delivery was not reset: still in flight, first attempt.
        let after = try await delivery()
        #expect(after["state"] as? String == "in_flight")
        #expect(after["attempts"] as? Int == 1)
        #expect(try await first.request("GET", "/v1/health").status == 200)

        // --check-config neither takes the lock nor waits for it.
        let check = try await second.checkConfig()
        #expect(check.exitCode == 0, "\(check.stderr)")

        // The kernel lets the lock go with its holder, however it dies.
        await first.kill9()
        try await second.start()
        #expect(try String(contentsOfFile: first.stateDir + "/alertd.lock", encoding: .utf8) == "\(try #require(second.pid))\n")
    }

    /// `store.path` may name a store outside the state directory, even
    /// another daemon's: two on one file took each other's deliveries, and
    /// the first to stop emptied the other's write-ahead log. The file's
    /// own lock refuses the second, by any name of the file.
    @Test func aSecondAlertdOnAnotherStateDirectoryButTheSameStoreFileExitsAndLeavesTheFirstAlone() async throws {
        let (first, pid, delivery) = try await firstWithADeliveryInFlight()

        let elsewhere = TemporaryDirectory()
        let link = elsewhere.path + "/shared.db"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: first.stateDir + "/alertd.db")
        for path in [first.stateDir + "/alertd.db", link] {
            // No presenter of the first's name: had it opened the store, it would have ended that delivery dead.
            let second = try TestDaemon(config: ["store": ["path": path]])
            #expect(try await second.startExpectingExit() == 75, "log:\n\(second.log)")
            #expect(second.log.contains("Another process (pid \(pid)) holds the store \(path)"), "\(second.log)")
            #expect(second.log.contains("code=state_locked"))
        }

        let after = try await delivery()
        #expect(after["state"] as? String == "in_flight")
        #expect(after["attempts"] as? Int == 1)
        _ = try await first.send(["title": "still writes"])
        #expect(try await first.request("GET", "/v1/health").status == 200)

        await first.kill9()
        let second = try TestDaemon(config: ["store": ["path": link], "presenters": ["slow": ["type": "test"]]])
        try await second.start()
        #expect(try await second.request("GET", "/v1/health").status == 200)
    }

    /// A state directory handed to the service's user after a start as
    /// root: the files that start left are named, with their owner and the
    /// fix. It said to make the directory writable, as it was, or that
    /// SQLite was "unable to open database file".
    @Test(.enabled(if: getuid() == 0, "needs root to give files away"), arguments: ["alertd.lock", "alertd.db-wal"])
    func filesAnotherUserLeftAreNamed(_ left: String) async throws {
        let dir = TemporaryDirectory()
        chmod(dir.path, 0o755)
        let state = dir.path + "/state"
        let alertd = try TestBinaries.path(of: "alertd")
        let first = try await TestBinaries.run("/usr/bin/timeout", ["--preserve-status", "-s", "INT", "2", alertd, "--state-dir", state, "--socket", state + "/s.sock"])
        #expect(first.exitCode == 0, "\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: state + "/" + left) || left == "alertd.db-wal")
        _ = FileManager.default.createFile(atPath: state + "/" + left, contents: nil)
        #expect(chown(state, 65_534, 65_534) == 0)
        for name in try FileManager.default.contentsOfDirectory(atPath: state) where name != left {
            #expect(chown(state + "/" + name, 65_534, 65_534) == 0)
        }
        let second = try await TestBinaries.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", alertd,
                                                                      "--state-dir", state, "--socket", state + "/s.sock"])
        #expect(second.exitCode == 73, "\(second.stderr)")
        #expect(second.stderr.contains("The file \(state)/\(left) belongs to uid 0, not to the user alertd runs as (uid 65534)"), "\(second.stderr)")
        #expect(second.stderr.contains("chown -R 65534 \(state)"), "\(second.stderr)")
    }
}

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One alertd per state directory: a second one must not touch the first
/// one's store, not even to reset its deliveries in flight.
@Suite(.serialized) struct StateDirectoryLockTests {
    @Test func aSecondAlertdOnTheSameStateDirectoryExitsAndLeavesTheFirstAlone() async throws {
        // Deliveries that take long stay in flight while the second one tries.
        let config: [String: Any] = ["presenters": ["slow": ["type": "test", "delay": "60s"]]]
        let first = try TestDaemon(config: config)
        try await first.start()
        let pid = try #require(first.pid)
        let id = try await first.send(["title": "in flight"])
        func delivery() async throws -> [String: Any] {
            try #require((try await first.show(id))["deliveries"] as? [[String: Any]]).first ?? [:]
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while try await delivery()["state"] as? String != "in_flight", ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try await delivery()["state"] as? String == "in_flight")

        // Its own socket and port, so nothing but the lock can stop it.
        let second = try TestDaemon(config: config, stateDir: first.stateDir)
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
}

import Foundation
import Testing
import Synchronization
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdDaemon

/// SIGHUP reloads beside the signal loop: a reload whose read hung (a
/// config on an NFS server gone) held SIGTERM behind it for good, the
/// daemon serving on as if nothing had been asked.
@Suite struct ReloadSignalTests {
    final class Reads: Sendable {
        let count = Atomic(0)
    }

    /// A reload that takes out a presenter with a backlog ends the backlog
    /// dead, and says so in a line per presenter, not one a delivery: a
    /// backlog of 300 was 300 error lines.
    @Test func aRemovedPresentersBacklogIsLoggedOnceNotPerDelivery() async throws {
        let hook: [String: Any] = ["type": "webhook", "url": "http://127.0.0.1:1/"]
        let slow: [String: Any] = ["initial_delay": "1h", "max_delay": "1h", "jitter": false]
        let d = try TestDaemon(config: ["presenters": ["hook": hook], "default_route": ["presenters": ["hook"]], "retry": slow])
        try await d.start()
        let alerts = (0..<40).map { ["title": "backlog \($0)"] }
        #expect(try await d.request("POST", "/v1/alerts", json: alerts).status == 202)
        // Each failed once (nothing listens on port 1) and waits an hour for its retry.
        let deadline = ContinuousClock.now + .seconds(20)
        while d.log.components(separatedBy: "delivery failed, will retry").count - 1 < 40, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        try await d.reload(["presenters": ["log": ["type": "log", "path": "alerts.log"]], "default_route": ["presenters": ["log"]],
                            "retry": slow])
        func ended() -> Int {
            d.log.split(separator: "\n").filter { $0.contains("deliveries dead: their presenter is not configured") }
                .compactMap { line in line.firstMatch(of: /count=(\d+)/).flatMap { Int($0.1) } }.reduce(0, +)
        }
        while ended() < 40, ContinuousClock.now < deadline + .seconds(10) { try await Task.sleep(for: .milliseconds(50)) }
        #expect(ended() == 40, "\(d.log)")
        #expect(!d.log.contains("delivery dead"), "\(d.log)")
        let lines = d.log.split(separator: "\n").filter { $0.contains("deliveries dead:") }
        #expect(lines.count < 10, "\(lines.count) lines for 40 deliveries")
        // A line for several names none of them as its alert: beside a count, one read as that alert's.
        for line in lines where line.firstMatch(of: /count=(\d+)/).flatMap({ Int($0.1) }) != 1 {
            #expect(!line.contains("alert.id=") && line.contains("first_delivery.id="), "\(line)")
        }
    }

    /// An attempt still running when a reload takes its presenter out fails
    /// (here: its timeout) and is not retried: the log said "will retry",
    /// and the delivery ended dead at its retry.
    @Test func anAttemptARemovedPresenterLeftRunningIsNotSaidToBeRetried() async throws {
        let silent = try SilentListener()
        let hook: [String: Any] = ["type": "webhook", "url": "http://127.0.0.1:\(silent.port)/", "timeout": "2s"]
        let quick: [String: Any] = ["initial_delay": "200ms", "max_delay": "200ms", "jitter": false]
        let d = try TestDaemon(config: ["presenters": ["hook": hook], "default_route": ["presenters": ["hook"]], "retry": quick])
        try await d.start()
        #expect(try await d.request("POST", "/v1/alerts", json: ["title": "in flight at the reload"]).status == 202)
        try await Task.sleep(for: .milliseconds(300))
        try await d.reload(["presenters": ["log": ["type": "log", "path": "alerts.log"]], "default_route": ["presenters": ["log"]],
                            "retry": quick])
        let deadline = ContinuousClock.now + .seconds(20)
        while !d.log.contains("presenter=hook"), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(d.log.contains("delivery failed; its presenter is no longer configured, so it ends dead at its retry"), "\(d.log)")
        #expect(!d.log.contains("will retry"), "\(d.log)")
    }

    @Test func aReloadThatHangsDoesNotHoldShutdown() async throws {
        let dir = TemporaryDirectory()
        let json = #"{"presenters": {"log": {"type": "log", "path": "alerts.log"}}, "default_route": {"presenters": ["log"]}}"#
        let config = try DaemonConfiguration.parse(Data(json.utf8), stateDirectory: dir.path + "/state")
        let daemon = try await AlertDaemon.open(config, mode: .run)
        let (signals, send) = AsyncStream.makeStream(of: ProcessSignal.self)
        let reads = Reads()
        let clock = ContinuousClock()
        let run = Task {
            try await daemon.run(signals: signals, notifier: SystemdNotifier(environment: [:]), environment: [:]) {
                () throws(ConfigurationError) -> DaemonConfiguration in
                reads.count.add(1, ordering: .relaxed)
                Thread.sleep(forTimeInterval: 30)
                return config
            }
        }
        try await Task.sleep(for: .seconds(1))
        send.yield(.hangUp)
        send.yield(.hangUp)  // one more after the one hanging, not a queue of them
        try await Task.sleep(for: .milliseconds(500))
        let stopping = clock.now
        send.yield(.terminate)
        try await run.value
        #expect(clock.now - stopping < .seconds(10), "stopped after \(clock.now - stopping)")
        #expect(reads.count.load(ordering: .relaxed) == 1)
    }

    /// A stop waits for a reload applying before the store closes, and no
    /// reload applies once the stop has begun: one past its read when
    /// SIGTERM came applied routes through a store being closed under it.
    /// The wait ends with its time, or at a second signal.
    @Test func aStopWaitsForAReloadApplyingAndNoneAppliesAfter() async throws {
        final class Flag: Sendable { let done = Atomic(false) }
        func stopping(_ gate: ReloadGate, atMost limit: Duration) -> (Task<Void, Never>, Flag) {
            let flag = Flag()
            return (Task { await gate.closeAndWait(atMost: limit); flag.done.store(true, ordering: .relaxed) }, flag)
        }
        let gate = ReloadGate()
        #expect(gate.enter())
        let (stop, flag) = stopping(gate, atMost: .seconds(60))
        try await Task.sleep(for: .milliseconds(100))
        let stoppedEarly = flag.done.load(ordering: .relaxed)
        #expect(!stoppedEarly, "the stop went on while a reload applied")
        #expect(!gate.enter(), "a reload applied after the stop began")
        #expect(gate.isClosed)
        gate.leave()
        await stop.value
        // Nothing applying: the stop goes on at once.
        let idle = ReloadGate()
        idle.close()
        #expect(!idle.enter())
        await idle.closeAndWait(atMost: .seconds(60))
        // A reload that never ends holds the stop for its time at most, or until a second signal.
        let clock = ContinuousClock()
        for cutShort in [false, true] {
            let stuck = ReloadGate()
            #expect(stuck.enter())
            let start = clock.now
            let (stop, _) = stopping(stuck, atMost: cutShort ? .seconds(60) : .milliseconds(200))
            if cutShort {
                try await Task.sleep(for: .milliseconds(100))
                stuck.stopWaiting()
            }
            await stop.value
            #expect(clock.now - start < .seconds(5), "cut short: \(cutShort)")
        }
    }
}

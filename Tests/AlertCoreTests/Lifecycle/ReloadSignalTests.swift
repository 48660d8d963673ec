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
}

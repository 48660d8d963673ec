import Foundation
import Synchronization
import Testing
@testable import AlertModel
@testable import AlertdSQLite
@testable import AlertdHTTPServer
@testable import AlertdClient

/// Nothing acknowledged is lost, however often alertd is killed.
@Suite struct CrashRecoveryTests {
    @Test func everyAcknowledgedAlertIsDeliveredAfterRepeatedKillNine() async throws {
        // The receiver is down for the whole kill loop: deliveries fail and wait.
        let port = try TestDaemon.freePort()
        let d = try TestDaemon(config: [
            "presenters": ["hook": ["type": "webhook", "url": "http://127.0.0.1:\(port)/hook", "timeout": "1s"]],
            "retry": ["initial_delay": "100ms", "factor": 2, "max_delay": "500ms", "jitter": false],
        ])
        let acknowledged = Locked<Set<String>>([])
        let kills = 20
        for round in 0..<kills {
            try await d.start()
            // A steady stream of sends from four clients, cut off by SIGKILL mid-flight.
            let senders = (0..<4).map { client in
                Task {
                    var i = 0
                    while !Task.isCancelled {
                        guard let r = try? await d.request("POST", "/v1/alerts", json: ["title": "r\(round) c\(client) #\(i)"]),
                              r.status == 202,
                              let id = (try? JSONSerialization.jsonObject(with: r.body) as? [String: Any])?["id"] as? String
                        else { break }
                        _ = acknowledged.withLock { $0.insert(id) }
                        i += 1
                    }
                }
            }
            // Some sends acknowledged first, however slow the machine, so the
            // count below means something; then a random moment mid-flight.
            let before = acknowledged.value.count
            let deadline = ContinuousClock.now + .seconds(10)
            while acknowledged.value.count < before + 5, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...160)))
            await d.kill9()
            for s in senders { s.cancel(); await s.value }
        }
        let expected = acknowledged.value
        #expect(expected.count > kills * 4, "too few sends acknowledged to mean anything: \(expected.count)")

        let receiver = try WebhookReceiver(port: port)
        try await d.start()
        let complete = await receiver.wait(timeout: .seconds(60)) { got in
            expected.isSubset(of: Set(got.compactMap(\.alertID)))
        }
        let missing = expected.subtracting(receiver.received.compactMap(\.alertID))
        #expect(complete, "\(missing.count) of \(expected.count) acknowledged alerts never arrived, e.g. \(missing.prefix(3))")
        await receiver.stop()
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdHTTPServer
@testable import AlertdDaemon

#if canImport(Glibc)
import Glibc
#endif

/// `dispatcher.shutdown_grace` against the real binary: a delivery that
/// hangs gets the grace and no more, stays in flight, and is delivered after
/// restart; a second signal stops at once.
@Suite(.serialized) struct ShutdownGraceTests {
    /// A webhook presenter `hook` at `url` that waits far longer than any grace.
    func config(url: String, grace: String) -> [String: Any] {
        [
            "presenters": ["hook": ["type": "webhook", "url": url, "timeout": "60s"]],
            "dispatcher": ["shutdown_grace": grace],
        ]
    }

    /// Starts a daemon whose one delivery is hanging in the receiver.
    func daemonWithAHungDelivery(_ receiver: WebhookReceiver, grace: String) async throws -> (TestDaemon, String) {
        let d = try TestDaemon(config: config(url: receiver.url, grace: grace))
        try await d.start()
        let id = try await d.send(["title": "slow receiver"])
        #expect(await receiver.wait { $0.count == 1 }, "log:\n\(d.log)")
        return (d, id)
    }

    @Test func sigtermExitsWhenTheGraceIsOverAndTheCutDeliveryIsRetriedAfterRestart() async throws {
        let hung = try WebhookReceiver(delay: .seconds(25))
        let (d, id) = try await daemonWithAHungDelivery(hung, grace: "2s")
        let firstDeliveryID = hung.received.first?.request.headers["webhook-id"]

        let signalled = ContinuousClock.now
        d.signal(SIGTERM)
        let status = await d.waitForExit(timeout: .seconds(15))
        let took = ContinuousClock.now - signalled
        #expect(status == 0, "log:\n\(d.log)")
        // The delivery had its grace, and the process did not wait for the receiver.
        #expect(took >= .milliseconds(1800), "exited after \(took)")
        #expect(took < .milliseconds(4500), "exited after \(took); log:\n\(d.log)")
        #expect(d.log.contains("deliveries cut off by shutdown"))

        // Cut off, it stayed in flight: the next start delivers it again, same id.
        let fast = try WebhookReceiver()
        let base: [String: Any] = ["presenters": ["log": ["type": "log", "path": "alerts.log"]],
                                   "retry": ["initial_delay": "100ms", "jitter": false]]
        var next = base.merging(config(url: fast.url, grace: "2s")) { $1 }
        next["presenters"] = ["hook": ["type": "webhook", "url": fast.url]]
        try JSONSerialization.data(withJSONObject: next).write(to: URL(fileURLWithPath: d.configPath))
        try await d.start()
        #expect(await fast.wait { $0.contains { $0.alertID == id } }, "log:\n\(d.log)")
        #expect(fast.received.first?.request.headers["webhook-id"] == firstDeliveryID)
        d.signal(SIGTERM)
        #expect(await d.waitForExit() == 0)
        await fast.stop()
        await hung.stop()
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSecondSignalStopsAtOnce(_ second: Int32) async throws {
        let hung = try WebhookReceiver(delay: .seconds(25))
        let (d, _) = try await daemonWithAHungDelivery(hung, grace: "30s")
        d.signal(SIGTERM)
        // Shutdown has begun and is waiting for the delivery.
        for _ in 0..<100 where !d.log.contains("signal received, shutting down") {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(await d.waitForExit(timeout: .milliseconds(50)) == nil, "exited on the first signal; log:\n\(d.log)")

        let signalled = ContinuousClock.now
        d.signal(second)
        let status = await d.waitForExit(timeout: .seconds(10))
        let took = ContinuousClock.now - signalled
        #expect(status == 0, "log:\n\(d.log)")
        #expect(took < .milliseconds(1500), "exited after \(took); log:\n\(d.log)")
        #expect(d.log.contains("second signal received, stopping at once"))
        await hung.stop()
    }
}

import Foundation
import Testing
@testable import AlertdCurl

/// A burst to a receiver with a small listen backlog, as Python's
/// `http.server` has: the connections are opened a few at a time, so the
/// kernel drops none and nothing waits on a SYN sent again.
@Suite struct ReceiverBacklogDaemonTests {
    /// 300 deliveries at once opened 200 and more connections at once; the
    /// attempts the full backlog dropped were tried again after 1, 3, 7 s,
    /// and the last arrived after 22–26 s, some twice (a timed-out attempt
    /// retried while its first request was still queued).
    @Test func aBurstToAReceiverWithASmallBacklogArrivesPromptlyAndOnce() async throws {
        let receiver = try await PythonWebhookReceiver()
        let d = try TestDaemon(config: ["presenters": ["hook": ["type": "webhook", "url": receiver.url]],
                                        "default_route": ["presenters": ["hook"]]])
        try await d.start()
        let posted = try await d.request("POST", "/v1/alerts", json: (0..<300).map { ["title": "burst \($0)"] })
        #expect(posted.status == 202)
        let started = ContinuousClock.now
        #expect(await eventually(.seconds(30)) { ((try? await receiver.counts().requests) ?? 0) >= 300 })
        let took = ContinuousClock.now - started
        try await Task.sleep(for: .milliseconds(300))
        let (requests, connections) = try await receiver.counts()
        #expect(requests == 300, "each once")
        #expect(connections <= 80, "\(connections) connections for 300 requests")
        #expect(took < .seconds(8), "took \(took)")
    }

    @Test func hostsAreTheirSchemeHostAndPort() {
        #expect(CurlHostSlots.key(of: "http://127.0.0.1:8080/hook?x=1") == "http://127.0.0.1:8080")
        #expect(CurlHostSlots.key(of: "https://hooks.example?x") == "https://hooks.example")
        #expect(CurlHostSlots.key(of: "https://[::1]:9/a#b") == "https://[::1]:9")
    }
}

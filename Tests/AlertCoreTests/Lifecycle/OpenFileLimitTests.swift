import Foundation
import Testing
@testable import AlertdHTTPServer
@testable import AlertdDaemon

/// Connections to the API cannot take every descriptor: systemd's soft
/// limit of 1,024 was filled by half-open connections, and then every
/// delivery failed to connect.
@Suite struct OpenFileLimitTests {
    @Test func listenersLeaveDescriptorsForEverythingElse() {
        #expect(AlertDaemon.connectionLimit(openFiles: 65_536, listeners: 2) == HTTPServerConfiguration().connectionLimit)
        #expect(AlertDaemon.connectionLimit(openFiles: 1_024, listeners: 2) == (1_024 - AlertDaemon.reservedFiles) / 2)
        #expect(AlertDaemon.connectionLimit(openFiles: 100, listeners: 1) == 75, "a quarter kept for the rest at so low a limit")
        #expect(AlertDaemon.connectionLimit(openFiles: 64, listeners: 2, deliveries: 512) == 16)
        // A webhook's 512 in flight keep their sockets too.
        #expect(AlertDaemon.connectionLimit(openFiles: 1_024, listeners: 2, deliveries: 512) == (1_024 - AlertDaemon.reservedFiles - 512) / 2)
        #expect(AlertDaemon.connectionLimit(openFiles: 65_536, listeners: 2, deliveries: 1_024) == HTTPServerConfiguration().connectionLimit)
    }

    /// Started at a soft limit of 512 (hard 2,048), the daemon raises it to
    /// the hard one and says what room that leaves its two listeners.
    @Test func theDaemonRaisesItsSoftLimitToTheHardOne() async throws {
        let d = try TestDaemon(launcher: ["/usr/bin/prlimit", "--nofile=512:2048", "--"])
        try await d.start()
        let pid = try #require(d.pid)
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        #expect(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).prefix(2) == ["2048", "2048"], "\(line)")
        // Its presenters' and handler calls' deliveries keep theirs.
        let said = try #require(d.log.firstMatch(of: /with (\d+) kept for deliveries/), "\(d.log)")
        let deliveries = try #require(Int(said.1))
        #expect(deliveries > 0)
        let room = AlertDaemon.connectionLimit(openFiles: 2_048, listeners: 2, deliveries: deliveries)
        #expect(d.log.contains("leaves room for \(room) connections per listener"), "\(d.log)")
    }

    /// At a limit of 64, 200 deliveries to a receiver that answers in 3 s
    /// opened connections until no descriptor was left: the API accepted
    /// nothing on either listener, and the idle connections kept after
    /// kept it so until a restart. Deliveries now keep to what the
    /// listeners leave them.
    @Test func deliveriesLeaveTheAPIRoomToAnswerAtALowLimit() async throws {
        #expect(AlertDaemon.deliveryConnectionLimit(openFiles: 64, listeners: 2, perListener: 16) == 16)
        #expect(AlertDaemon.deliveryConnectionLimit(openFiles: 1_024, listeners: 2, perListener: 128) == 512)
        let receiver = try WebhookReceiver(delay: .seconds(3))
        let d = try TestDaemon(config: ["presenters": ["hook": ["type": "webhook", "url": receiver.url]],
                                        "default_route": ["presenters": ["hook"]]],
                               launcher: ["/usr/bin/prlimit", "--nofile=64:64", "--"])
        try await d.start()
        let pid = try #require(d.pid)
        let batch = (0..<200).map { ["title": "slow \($0)"] }
        let posted = try await d.request("POST", "/v1/alerts", json: batch)
        #expect(posted.status == 202)
        for _ in 0..<6 {
            try await Task.sleep(for: .milliseconds(700))
            let started = ContinuousClock.now
            let health = try await d.request("GET", "/v1/health")
            #expect(health.status == 200 && ContinuousClock.now - started < .seconds(2), "health took \(ContinuousClock.now - started)")
            let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
            #expect(open < 60, "\(open) descriptors open of 64")
        }
        #expect(d.log.contains("with 16 kept for deliveries"), "\(d.log)")
    }
}

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
        #expect(AlertDaemon.connectionLimit(openFiles: 100, listeners: 1) == 16)
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
}

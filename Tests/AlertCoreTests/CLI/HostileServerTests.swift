import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdClient

/// alertctl against a server that is not alertd, or not a friendly one:
/// what it answers must not grow alertctl without bound or drive the
/// terminal.
@Suite struct HostileServerTests {
    /// A server on a Unix socket in a temp dir that answers one request
    /// with `mode`'s bytes, then writes how many body bytes it got out
    /// before alertctl hung up.
    static let script = #"""
    import socket, sys
    path, mode, out = sys.argv[1:4]
    s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen(1)
    open(out + ".ready", "w").close()
    c, _ = s.accept(); c.recv(65536)
    sent = 0
    try:
        if mode == "bigchunk":
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffff\r\n")
            block = b"x" * 65536
            for _ in range(48 * 16):
                c.sendall(block); sent += len(block)
        elif mode == "headers":
            c.sendall(b"HTTP/1.1 200 OK\r\n")
            for i in range(2000):
                c.sendall(b"".join(b"X-%d-%d: y\r\n" % (i, j) for j in range(100))); sent += 100
    except OSError:
        pass
    open(out, "w").write(str(sent))
    """#

    /// Runs the server in `mode`, sends one request to it, and gives what
    /// the client got and how much the server managed to send.
    func exchange(_ mode: String) async throws -> (Result<HTTPClientResponse, HTTPClientError>, Int) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-hostile-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let socket = dir.path + "/s.sock", out = dir.path + "/sent"
        try Self.script.write(toFile: dir.path + "/server.py", atomically: true, encoding: .utf8)
        let server = try SpawnedProcess("/usr/bin/python3", [dir.path + "/server.py", socket, mode, out], output: dir.path + "/log")
        defer { server.kill() }
        let ready = await eventually(.seconds(10)) { FileManager.default.fileExists(atPath: out + ".ready") }
        try #require(ready)
        let request = HTTPClientRequest(url: "http://localhost/v1/alerts", timeout: .seconds(20), unixSocketPath: socket,
                                        maxResponseBytes: 16 << 20)
        let client = try #require(SocketHTTPClient(request))
        let result: Result<HTTPClientResponse, HTTPClientError>
        do {
            result = .success(try await client.send())
        } catch {
            result = .failure(error)
        }
        let done = await eventually(.seconds(20)) { FileManager.default.fileExists(atPath: out) }
        try #require(done)
        let sent = Int((try? String(contentsOfFile: out, encoding: .utf8)) ?? "") ?? -1
        return (result, sent)
    }

    /// A chunk declared terabytes long is refused at its size line, not read
    /// whole (48 MiB here, past the 16 MiB limit) before the limit is checked.
    @Test func aHugeChunkIsRefusedBeforeItIsRead() async throws {
        let (result, sent) = try await exchange("bigchunk")
        guard case .failure(let error) = result, case .responseTooLarge = error else {
            Issue.record("expected responseTooLarge, got \(result)")
            return
        }
        #expect(sent >= 0 && sent < 16 << 20, "the server got \(sent) bytes out")
    }

    /// Endless header lines end the exchange at 256.
    @Test func endlessHeaderLinesAreRefused() async throws {
        let (result, sent) = try await exchange("headers")
        guard case .failure(let error) = result, case .connectionLost(_, let reason) = error else {
            Issue.record("expected connectionLost, got \(result)")
            return
        }
        #expect(reason.contains("header lines"))
        #expect(sent >= 0 && sent < 200_000, "the server got \(sent) header lines out")
    }

    /// `alertctl show` prints a delivery's holder as the server sent it: a
    /// silence id carrying escape sequences must not reach the terminal.
    @Test func deliveryLinesCarryNoControlCharacters() {
        let now = Date()
        let record = DeliveryRecord(
            id: "dlv-1", alertID: AlertID.generate(), kind: .presenter("ops"), state: .silenced, nextAttemptAt: nil,
            createdAt: now, updatedAt: now, silencedBy: SilenceID(rawValue: "s\u{1B}]0;PWNED\u{07}\u{1B}[2J\u{9B}31m"))
        let lines = AlertDetailView.deliveryLines([record], now: now)
        #expect(lines.count == 2)
        #expect(!lines.joined().unicodeScalars.contains { $0.properties.generalCategory == .control })
    }
}

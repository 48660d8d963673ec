import Foundation
import Testing
@testable import AlertdHTTP
@testable import AlertdHTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// 1,100 idle TCP connections used to take every slot of the TCP listener
/// for 40 s. Now one client address holds at most
/// `perClientConnectionLimit` connections (the rest are closed as they are
/// accepted), and a connection that sends no complete request is closed
/// after `connectionTimeout`.
@Suite(.serialized) struct ConnectionLimitDaemonTests {
    /// Opens up to `count` connections to 127.0.0.1:`port` that send nothing,
    /// within `limit`; each connect waits at most a second.
    func idleConnections(_ count: Int, port: UInt16, within limit: Duration) -> [Int32] {
        var fds: [Int32] = []
        let deadline = ContinuousClock.now + limit
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        while fds.count < count, ContinuousClock.now < deadline {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { break }
            var timeout = timeval(tv_sec: 1, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if rc == 0 { fds.append(fd) } else { close(fd) }
        }
        return fds
    }

    func health(_ socket: RawSocket) async -> (reply: String, took: Duration) {
        let start = ContinuousClock.now
        socket.send("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let reply = await socket.read()
        return (reply, ContinuousClock.now - start)
    }

    @Test func idleConnectionsFromOneAddressDoNotLockOthersOut() async throws {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 4096 {
            limit.rlim_cur = min(4096, limit.rlim_max)
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        let d = try TestDaemon()
        try await d.start()
        let idle = idleConnections(1_100, port: d.port, within: .seconds(15))
        defer { idle.forEach { close($0) } }
        #expect(idle.count == 1_100)

        // Another client, on a fresh connection: answered at once.
        let other = try RawSocket(port: d.port, source: "127.0.0.2")
        let (reply, took) = await health(other)
        #expect(reply.hasPrefix("HTTP/1.1 200 OK"), "\(reply)")
        #expect(took < .seconds(1), "health over TCP took \(took)")

        // The address holding them: refused at once (closed on accept), not left waiting.
        let abuser = try RawSocket(port: d.port)
        let (refused, refusedIn) = await health(abuser)
        #expect(refused.isEmpty || refused.hasPrefix("HTTP/1.1 200"), "\(refused)")
        #expect(refusedIn < .seconds(2), "the abusive address waited \(refusedIn)")

        // The Unix socket never noticed.
        let start = ContinuousClock.now
        #expect(try await d.request("GET", "/v1/health").status == 200)
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    /// A connection that starts a request and never finishes it is closed.
    @Test func anIncompleteRequestIsClosedAfterTheIdleTimeout() async throws {
        var configuration = HTTPServerConfiguration(listener: .tcp(host: "127.0.0.1", port: 0))
        configuration.connectionTimeout = .seconds(1)
        let server = HTTPServer(configuration: configuration) { _ in .text("ok") }
        try server.start()
        let socket = try RawSocket(port: try #require(server.port))
        socket.send("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        let start = ContinuousClock.now
        let (text, closed) = await socket.readToEnd()
        #expect(closed && text.isEmpty)
        #expect(ContinuousClock.now - start < .seconds(4))
        await server.stop()
    }
}

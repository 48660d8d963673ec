import Foundation
import Synchronization
import Testing
@testable import AlertdHTTP
@testable import AlertdHTTPServer
@testable import AlertdCurl

#if canImport(Glibc)
import Glibc
#endif

/// 1,100 idle TCP connections used to take every slot of the TCP listener
/// for 40 s. Now one client address holds at most
/// `perClientConnectionLimit` connections (the rest are closed as they are
/// accepted), and a connection that sends no complete request is closed
/// after `connectionTimeout`. Connections that trickle a request (a header
/// line every few seconds, from several addresses) held the listener for
/// as long as they kept it up; now a request must be whole within
/// `requestTimeout`, and within `requestTimeoutUnderLoad` once most of the
/// connection limit is in use.
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

    /// Sends a header line on a copy of `fd` every `interval`, on a thread of
    /// its own, until the server closes the connection, `limit` passes or
    /// the returned flag is set. The copy keeps the thread from ever writing
    /// to a descriptor number a later test reuses.
    final class StopFlag: Sendable {
        private let flag = Atomic(false)
        var isSet: Bool { flag.load(ordering: .relaxed) }
        func set() { flag.store(true, ordering: .relaxed) }
    }

    func trickle(_ fd: Int32, every interval: Duration, for limit: Duration) -> StopFlag {
        let stop = StopFlag()
        let copy = dup(fd)
        Thread {
            defer { close(copy) }
            let deadline = ContinuousClock.now + limit
            let line = Array("X-Trickle: 1\r\n".utf8)
            while ContinuousClock.now < deadline, !stop.isSet {
                guard line.withUnsafeBytes({ Glibc.send(copy, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) > 0 else { return }
                usleep(UInt32(interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000))
            }
        }.start()
        return stop
    }

    /// A server answering "ok", set up by `configure`, and a connection to
    /// it that has sent only the first lines of a request.
    func incompleteRequest(
        _ configure: (inout HTTPServerConfiguration) -> Void
    ) throws -> (server: HTTPServer, socket: RawSocket, configuration: HTTPServerConfiguration) {
        var configuration = HTTPServerConfiguration(listener: .tcp(host: "127.0.0.1", port: 0))
        configure(&configuration)
        let server = HTTPServer(configuration: configuration) { _ in .text("ok") }
        try server.start()
        let socket = try RawSocket(port: try #require(server.port))
        socket.send("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        return (server, socket, configuration)
    }

    /// A request whose headers keep coming, never silent long enough for
    /// the idle timeout, is closed once `requestTimeout` has passed.
    @Test func aTrickledRequestIsClosedAtTheRequestTimeout() async throws {
        let (server, socket, configuration) = try incompleteRequest {
            $0.connectionTimeout = .seconds(10)
            $0.requestTimeout = .seconds(1)
        }
        let start = ContinuousClock.now
        let stop = trickle(socket.fd, every: .milliseconds(200), for: .seconds(8))
        defer { stop.set() }
        let (text, closed) = await socket.readToEnd()
        let took = ContinuousClock.now - start
        #expect(closed && text.isEmpty, "\(text)")
        #expect(took >= .milliseconds(900) && took < .seconds(3), "closed after \(took)")

        // A stream that runs past the request timeout is not cut: its request was whole.
        let streaming = HTTPServer(configuration: configuration, handler: countingEventStream(8, every: .milliseconds(250)))
        try streaming.start()
        let response = try await HTTPClient().send(HTTPClientRequest(url: "http://127.0.0.1:\(try #require(streaming.port))/v1/events"))
        #expect(String(decoding: response.body, as: UTF8.self) == (0..<8).map { "data: \($0)\n\n" }.joined())
        await streaming.stop()
        await server.stop()
    }

    /// The attack, scaled down: every slot held by connections trickling
    /// their headers. Under that load they get `requestTimeoutUnderLoad`,
    /// so a new client gets in within about that; before, never.
    @Test func tricklersMakeRoomForANewClientWhenTheListenerIsFull() async throws {
        var configuration = HTTPServerConfiguration(listener: .tcp(host: "127.0.0.1", port: 0))
        configuration.connectionLimit = 16
        configuration.perClientConnectionLimit = 0
        configuration.connectionTimeout = .seconds(10)
        configuration.requestTimeoutUnderLoad = .milliseconds(500)
        let server = HTTPServer(configuration: configuration) { _ in .text("ok") }
        try server.start()
        let port = try #require(server.port)
        var tricklers: [RawSocket] = []
        var stops: [StopFlag] = []
        defer { for stop in stops { stop.set() } }
        for _ in 0..<16 {
            let socket = try RawSocket(port: port)
            socket.send("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            stops.append(trickle(socket.fd, every: .milliseconds(200), for: .seconds(10)))
            tricklers.append(socket)
        }
        try await Task.sleep(for: .milliseconds(200))

        let start = ContinuousClock.now
        var answer = ""
        while !answer.hasPrefix("HTTP/1.1 200"), ContinuousClock.now - start < .seconds(5) {
            if let client = try? RawSocket(port: port) {
                client.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                answer = await client.readToEnd().text
            }
            if !answer.hasPrefix("HTTP/1.1 200") { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(answer.hasPrefix("HTTP/1.1 200"), "no answer within \(ContinuousClock.now - start): \(answer)")
        #expect(ContinuousClock.now - start < .seconds(3))
        withExtendedLifetime(tricklers) {}
        await server.stop()
    }

    /// Streams wait for events by design, so no timeout closes them: a
    /// client with a read token opened 1,024 from 8 addresses, never read
    /// them, and locked every other client out. Now one address holds at
    /// most `maxStreamsPerClient` and all together half the connection
    /// limit; past that a stream is 503 `too_many_streams`, and the other
    /// half of the slots still serves everything else.
    @Test func streamsFromSeveralAddressesLeaveHalfTheSlotsToOthers() async throws {
        var configuration = HTTPServerConfiguration(listener: .tcp(host: "127.0.0.1", port: 0))
        configuration.connectionLimit = 8
        configuration.perClientConnectionLimit = 0
        configuration.maxStreamsPerClient = 2
        let events = countingEventStream(100, every: .seconds(1))
        let server = HTTPServer(configuration: configuration) { request in
            request.path == "/events" ? await events(request) : .text("ok")
        }
        try server.start()
        let port = try #require(server.port)
        var open: [RawSocket] = []
        func stream(from source: String) async throws -> String {
            let socket = try RawSocket(port: port, source: source)
            socket.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            open.append(socket)
            return await socket.read { $0.contains("\r\n\r\n") && ($0.hasPrefix("HTTP/1.1 200") || $0.contains("}")) }
        }
        for source in ["127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.3"] {
            #expect(try await stream(from: source).hasPrefix("HTTP/1.1 200"))
        }
        // A third from one address, and a first from a new one past the total: refused.
        for source in ["127.0.0.2", "127.0.0.4"] {
            let refused = try await stream(from: source)
            #expect(refused.hasPrefix("HTTP/1.1 503") && refused.contains("too_many_streams"), "\(refused)")
        }
        // Everything else is still served.
        let other = try RawSocket(port: port, source: "127.0.0.5")
        other.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(await other.readToEnd().text.hasPrefix("HTTP/1.1 200"))
        withExtendedLifetime(open) {}
        await server.stop()
    }

    /// A stream waiting for events is not written to until the next one
    /// (or keep-alive): its client closing it must still free its slot at
    /// once, or a client reconnecting (EventSource, a console reloaded)
    /// meets 503s for a keep-alive after closing everything.
    @Test func aClosedStreamFreesItsSlotAtOnce() async throws {
        var configuration = HTTPServerConfiguration(listener: .tcp(host: "127.0.0.1", port: 0))
        configuration.perClientConnectionLimit = 0
        configuration.maxStreamsPerClient = 2
        let events = countingEventStream(2, every: .seconds(60))
        let server = HTTPServer(configuration: configuration) { request in await events(request) }
        try server.start()
        let port = try #require(server.port)
        func stream() async throws -> (RawSocket, String) {
            let socket = try RawSocket(port: port, source: "127.0.0.2")
            socket.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return (socket, await socket.read { $0.contains("\r\n\r\n") && ($0.hasPrefix("HTTP/1.1 503") || $0.contains("data: 0")) })
        }
        var first: [RawSocket]? = []
        for _ in 0..<2 {
            let (socket, head) = try await stream()
            #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
            first?.append(socket)
        }
        let (over, refused) = try await stream()
        #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused)")
        withExtendedLifetime(over) {}
        first = nil  // closes both
        try await Task.sleep(for: .milliseconds(100))
        let (again, head) = try await stream()
        #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
        withExtendedLifetime(again) {}
        await server.stop()
    }

    /// A connection that starts a request and never finishes it is closed.
    @Test func anIncompleteRequestIsClosedAfterTheIdleTimeout() async throws {
        let (server, socket, _) = try incompleteRequest { $0.connectionTimeout = .seconds(1) }
        let start = ContinuousClock.now
        let (text, closed) = await socket.readToEnd()
        #expect(closed && text.isEmpty)
        #expect(ContinuousClock.now - start < .seconds(4))
        await server.stop()
    }

    /// An IPv6 host has a /64 of addresses: counted by address (as
    /// libmicrohttpd counts), one host held `perClientConnectionLimit`
    /// connections from each of them, and so every connection there is. In
    /// a network namespace of its own, alertd listens on fd00::1: one address
    /// of fd00::/64 holds 128 connections and no more, the addresses of the
    /// /64 together 512 (half the slots) and no more, a client of fd01::/64
    /// is still answered, and closed connections give their room back. Event
    /// streams likewise: 16 from one address, 256 from the /64.
    @Test(.enabled(if: Self.canMakeNetworkNamespace, "no network namespace (needs root, util-linux's unshare and iproute2)"))
    func anIPv6ClientIsCountedByItsAddressAndItsSlash64() async throws {
        let dir = TemporaryDirectory()
        try Data(Self.slash64Clients.utf8).write(to: URL(fileURLWithPath: dir.path + "/clients.py"))
        let result = try await TestBinaries.run(
            "/usr/bin/unshare", ["-n", "python3", dir.path + "/clients.py", try TestBinaries.path(of: "alertd"), dir.path + "/state"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                                  "\(result.stdout) \(result.stderr)")
        #expect(report["one_address"] as? Int == 128)
        #expect(report["past_the_address"] as? String == "closed")
        #expect(report["whole_network"] as? Int == 384)
        #expect(report["past_the_network"] as? String == "closed")
        #expect(report["other_network"] as? String == "200")
        #expect(report["after_closing"] as? String == "200")
        #expect(report["streams_one_address"] as? Int == 16)
        #expect(report["stream_past_the_address"] as? String == "503")
        #expect(report["streams_whole_network"] as? Int == 256)
        #expect(report["stream_past_the_network"] as? String == "503")
        #expect(report["stream_other_network"] as? String == "200")
    }

    /// Whether `unshare -n` and `ip` work here.
    static let canMakeNetworkNamespace: Bool = {
        let result = StorageFaults.run(["unshare", "-n", "ip", "link", "set", "lo", "up"])
        return result.status == 0
    }()

    /// Runs inside the namespace: alertd (argument 1, its state in argument
    /// 2), the clients, then one line of JSON with what they got.
    static let slash64Clients = #"""
import json, os, resource, socket, subprocess, sys, time
alertd, state = sys.argv[1], sys.argv[2]
# Room for 1,024 connections at each end.
resource.setrlimit(resource.RLIMIT_NOFILE, (8192, 8192))
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
batch = "".join(f"addr add fd00::{i:x}/64 dev lo nodad\n" for i in range(1, 40)) + "addr add fd01::1/64 dev lo nodad\n"
subprocess.run(["ip", "-6", "-batch", "-"], input=batch.encode(), check=True)
os.makedirs(state, exist_ok=True)
open(f"{state}/c.json", "w").write(json.dumps({"presenters": {}, "default_route": {"presenters": []}}))
port = 9190
p = subprocess.Popen([alertd, "--config", f"{state}/c.json", "--state-dir", f"{state}/st", "--listen", f"[fd00::1]:{port}"],
                     stdout=open(f"{state}/log", "w"), stderr=subprocess.STDOUT)
def conn(source):
    s = socket.socket(socket.AF_INET6); s.settimeout(5); s.bind((source, 0)); s.connect(("fd00::1", port)); return s
def health(s):
    # A connection closed as it was accepted reads as closed, or as reset
    # when the request was already on its way.
    try:
        s.sendall(f"GET /v1/health HTTP/1.1\r\nHost: [fd00::1]:{port}\r\n\r\n".encode())
        data = s.recv(4096)
        return data.split(b" ")[1].decode() if data else "closed"
    except (ConnectionResetError, BrokenPipeError):
        return "closed"
    except OSError as e:
        return type(e).__name__
out = {}
try:
    for _ in range(200):
        try:
            if health(conn("fd01::1")) == "200": break
        except OSError: pass
        time.sleep(0.05)
    one = [conn("fd00::2") for _ in range(128)]
    out["one_address"] = [health(s) for s in one].count("200")
    out["past_the_address"] = health(conn("fd00::2"))
    rest = [conn(f"fd00::{3 + i // 96:x}") for i in range(384)]    # four more addresses, 512 in the /64
    out["whole_network"] = [health(s) for s in rest].count("200")
    out["past_the_network"] = health(conn("fd00::9"))
    out["other_network"] = health(conn("fd01::1"))
    for s in rest[:8]: s.close()
    time.sleep(0.5)
    out["after_closing"] = health(conn("fd00::9"))
    for s in one + rest: s.close()
    time.sleep(0.5)
    # Event streams: 16 from one address, 256 from the /64.
    def stream(source):
        s = conn(source)
        try:
            s.sendall(f"GET /v1/events?since=now HTTP/1.1\r\nHost: [fd00::1]:{port}\r\n\r\n".encode())
            data = s.recv(64)
            return s, (data.split(b" ")[1].decode() if data else "closed")
        except OSError as e:
            return s, type(e).__name__
    streams = [stream("fd00::10") for _ in range(16)]
    out["streams_one_address"] = [code for _, code in streams].count("200")
    out["stream_past_the_address"] = stream("fd00::10")[1]
    streams += [stream(f"fd00::{0x11 + i // 16:x}") for i in range(240)]
    out["streams_whole_network"] = [code for _, code in streams].count("200")
    out["stream_past_the_network"] = stream("fd00::21")[1]
    out["stream_other_network"] = stream("fd01::1")[1]
finally:
    p.terminate(); p.wait()
print(json.dumps(out))
"""#
}

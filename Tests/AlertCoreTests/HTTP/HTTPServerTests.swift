import Foundation
import Synchronization
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdHTTPServer
@testable import AlertdCommandLine
@testable import AlertdDelivery
@testable import AlertdDaemon
@testable import AlertdClient

@Suite struct HTTPServerTests {
    let client = HTTPClient()

    @Test func echoesMethodPathQueryHeadersAndBodyOverTCP() async throws {
        let (server, base) = try startLoopbackServer(handler: EchoedRequest.handler)
        defer { Task { await server.stop() } }
        var headers: HTTPHeaders = ["Content-Type": "text/plain"]
        headers.add("X-Test", "one")
        headers.add("x-test", "two")
        let response = try await client.send(HTTPClientRequest(
            url: base + "/echo/a%20b?x=1&x=2&y=hello+world&flag", method: "POST", headers: headers,
            body: Data("payload ✓".utf8)))
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        let echoed = try EchoedRequest.decode(response.body)
        #expect(echoed.method == "POST")
        #expect(echoed.path == "/echo/a b")
        #expect(echoed.query == "x=1&x=2&y=hello+world&flag")
        #expect(echoed.queryItems == [["x", "1"], ["x", "2"], ["y", "hello world"], ["flag", ""]])
        let received = HTTPHeaders(echoed.headers.map { HTTPHeaders.Field(name: $0[0], value: $0[1]) })
        #expect(received.values(for: "X-TEST") == ["one", "two"])
        #expect(received["content-type"] == "text/plain")
        #expect(echoed.body == "payload ✓")
        #expect(echoed.peer == "tcp:127.0.0.1")
        #expect(echoed.listener == "tcp")
    }

    /// Every answer is kept out of caches and from being sniffed as a page,
    /// unless its handler chose its own caching (an event stream's `no-cache`).
    @Test func answersAreNotCachedOrSniffedUnlessTheHandlerSaysOtherwise() async throws {
        let (server, base) = try startLoopbackServer { request in
            request.path == "/own"
                ? HTTPResponse(status: 200, headers: ["Cache-Control": "no-cache", "Content-Type": "text/plain"], body: Data("x".utf8))
                : HTTPResponse.json(status: 404, body: Data("{}".utf8))
        }
        defer { Task { await server.stop() } }
        let plain = try await client.send(HTTPClientRequest(url: base + "/anything"))
        #expect(plain.status == 404)
        #expect(plain.headers.values(for: "Cache-Control") == ["no-store"])
        #expect(plain.headers.values(for: "X-Content-Type-Options") == ["nosniff"])
        let own = try await client.send(HTTPClientRequest(url: base + "/own"))
        #expect(own.headers.values(for: "Cache-Control") == ["no-cache"])
        #expect(own.headers.values(for: "X-Content-Type-Options") == ["nosniff"])
    }

    /// libmicrohttpd 0.9.75 kept each query parameter in its 32 KB pool and,
    /// past some 500, neither answered nor closed: the client waited out the
    /// connection timeout. The server reads the query from its own copy.
    @Test func aTargetWithManyQueryParametersIsAnsweredWithAllOfThem() async throws {
        let (server, base) = try startLoopbackServer(handler: EchoedRequest.handler)
        defer { Task { await server.stop() } }
        let query = (0..<2_000).map { "p\($0)=v\($0)" }.joined(separator: "&")
        var request = HTTPClientRequest(url: base + "/echo?" + query)
        request.timeout = .seconds(5)
        let response = try await client.send(request)
        #expect(response.status == 200)
        let echoed = try EchoedRequest.decode(response.body)
        #expect(echoed.query == query)
        #expect(echoed.queryItems.count == 2_000)
        #expect(echoed.queryItems.last == ["p1999", "v1999"])
    }

    /// Both ends of a TCP request are named in dotted decimal, every octet
    /// as written (Linux answers on all of 127/8).
    @Test func namesBothEndsOfATCPConnection() async throws {
        for host in ["127.0.0.1", "127.0.10.200", "127.255.99.9"] {
            let server = HTTPServer(configuration: .init(listener: .tcp(host: host, port: 0)), handler: EchoedRequest.handler)
            try server.start()
            let response = try await client.send(HTTPClientRequest(url: "http://\(host):\(server.port ?? 0)/"))
            await server.stop()
            let echoed = try EchoedRequest.decode(response.body)
            #expect(echoed.localAddress == host)
            #expect(echoed.peer.hasPrefix("tcp:127."), "peer \(echoed.peer)")
        }
    }

    /// Each connection's ends are found once and kept for its later
    /// requests: two kept-alive connections from different addresses,
    /// taking turns, each hear their own.
    @Test func namesEachKeptAliveConnectionsOwnEnds() async throws {
        let (server, _) = try startLoopbackServer(handler: EchoedRequest.handler)
        defer { Task { await server.stop() } }
        let port = try #require(server.port)
        let sources = ["127.0.0.2", "127.0.0.4"]
        let sockets = try sources.map { try RawSocket(port: port, source: $0) }
        for _ in 0..<2 {
            for (socket, source) in zip(sockets, sources) {
                socket.send("GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                let text = await socket.read(until: { $0.hasSuffix("}") })
                let body = try #require(text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) }, "response: \(text)")
                let echoed = try EchoedRequest.decode(Data(body.utf8))
                #expect(echoed.localAddress == "127.0.0.1")
                #expect(echoed.peer == "tcp:\(source)")
            }
        }
    }

    @Test func servesAUnixSocketWithPeerCredentialsAndMode() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/api.sock"
        let server = HTTPServer(configuration: .init(listener: .unixSocket(path: path)), handler: EchoedRequest.handler)
        try server.start()
        var st = stat()
        #expect(stat(path, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o660)
        #expect(st.st_mode & S_IFMT == S_IFSOCK)

        let response = try await client.send(HTTPClientRequest(url: "http://localhost/v1/ping", unixSocketPath: path))
        let echoed = try EchoedRequest.decode(response.body)
        #expect(echoed.peer == "unix:\(getuid()):\(getgid()):\(getpid())")
        #expect(echoed.listener == "unix")
        #expect(echoed.path == "/v1/ping")

        await server.stop()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func unixSocketModeIsConfigurable() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/api.sock"
        let server = HTTPServer(configuration: .init(listener: .unixSocket(path: path, mode: 0o600)), handler: EchoedRequest.handler)
        try server.start()
        var st = stat()
        #expect(stat(path, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o600)
        await server.stop()
    }

    @Test func replacesAStaleSocketButRefusesALiveOne() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/api.sock"
        // A socket file nobody listens on, as a crash would leave it.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: path.utf8) }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        close(stale)

        let first = HTTPServer(configuration: .init(listener: .unixSocket(path: path)), handler: EchoedRequest.handler)
        try first.start()
        let second = HTTPServer(configuration: .init(listener: .unixSocket(path: path)), handler: EchoedRequest.handler)
        #expect(throws: HTTPServerError.socketPathInUse(path: path)) { try second.start() }
        // The refused server must not have removed the live socket.
        let response = try await client.send(HTTPClientRequest(url: "http://localhost/", unixSocketPath: path))
        #expect(response.status == 200)
        await first.stop()
    }

    /// A socket file removed while the server runs is made again. A
    /// connection made before goes on being served, and one that waited in
    /// the old socket's queue (the server at its connection limit) is still
    /// taken up; another's file put at the path is left alone.
    @Test func aRemovedSocketFileIsMadeAgainAndNoConnectionIsLost() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/api.sock"
        var configuration = HTTPServerConfiguration(listener: .unixSocket(path: path, mode: 0o600))
        configuration.connectionLimit = 1
        let server = HTTPServer(configuration: configuration, handler: EchoedRequest.handler)
        try server.start()
        #expect(try server.remakeSocketFileIfRemoved() == .inPlace)

        func connected() throws -> Int32 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var addr = sockaddr_un()
            addr.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: path.utf8) }
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            try #require(rc == 0)
            return fd
        }
        /// One request on `fd`, and the start of its answer.
        func exchange(_ fd: Int32, _ target: String, close: Bool) async -> String {
            let request = Array("GET \(target) HTTP/1.1\r\nHost: localhost\r\n\(close ? "Connection: close\r\n" : "")\r\n".utf8)
            // MSG_NOSIGNAL: a connection reset must fail the test, not end the process with SIGPIPE.
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            return await Task.detached {
                var answer = [UInt8](repeating: 0, count: 4096)
                let got = answer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                return String(decoding: answer.prefix(max(0, got)), as: UTF8.self)
            }.value
        }

        let early = try connected()
        defer { close(early) }
        #expect(await exchange(early, "/first", close: false).hasPrefix("HTTP/1.1 200"))
        // At the limit of one: this one waits in the socket's queue.
        let queued = try connected()
        defer { close(queued) }

        #expect(unlink(path) == 0)
        #expect(try server.remakeSocketFileIfRemoved() == .remade)
        #expect(try server.remakeSocketFileIfRemoved() == .inPlace)
        let status = try #require(try? FileStatus.link(path).get())
        #expect(status.kind == .other && status.permissions == 0o600, "\(status)")
        #expect(await exchange(early, "/second", close: true).hasPrefix("HTTP/1.1 200"), "the connection made before")
        #expect(await exchange(queued, "/queued", close: true).hasPrefix("HTTP/1.1 200"), "the connection waiting in the old queue")
        #expect(try await client.send(HTTPClientRequest(url: "http://localhost/", unixSocketPath: path)).status == 200)

        // Not the server's to remove or replace.
        #expect(unlink(path) == 0)
        #expect(FileManager.default.createFile(atPath: path, contents: Data("keep me".utf8)))
        #expect(try server.remakeSocketFileIfRemoved() == .taken)
        await server.stop()
        #expect(FileManager.default.contents(atPath: path) == Data("keep me".utf8))
    }

    @Test func refusesToReplaceSomethingThatIsNotASocket() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/api.sock"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("keep me".utf8)))
        let server = HTTPServer(configuration: .init(listener: .unixSocket(path: path)), handler: EchoedRequest.handler)
        let error = #expect(throws: HTTPServerError.self) { try server.start() }
        #expect(error == .socketPathNotASocket(path: path))
        #expect(error?.code == "socket_path_not_a_socket")
        #expect(FileManager.default.contents(atPath: path) == Data("keep me".utf8))
    }

    @Test func reportsAnAddressInUse() async throws {
        let (server, _) = try startLoopbackServer(handler: EchoedRequest.handler)
        let port = try #require(server.port)
        let second = HTTPServer(configuration: .init(listener: .tcp(host: "127.0.0.1", port: port)), handler: EchoedRequest.handler)
        let error = #expect(throws: HTTPServerError.self) { try second.start() }
        #expect(error == .addressInUse(address: "127.0.0.1:\(port)"))
        #expect(error?.message.contains("already in use") == true)
        await server.stop()
    }

    @Test func servesAnAdoptedListeningSocket() async throws {
        let listener = try SilentListener()
        let server = HTTPServer(
            configuration: .init(listener: .listeningSocket(descriptor: listener.fd, kind: .tcp)), handler: EchoedRequest.handler)
        try server.start()
        #expect(server.port == listener.port)
        let response = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(listener.port)/adopted"))
        #expect(try EchoedRequest.decode(response.body).path == "/adopted")
        await server.stop()
        // Stopping leaves an adopted descriptor open for its owner.
        #expect(fcntl(listener.fd, F_GETFD) >= 0)
    }

    /// systemd keeps the listener across restarts of the service, and
    /// clients connect while it restarts. libmicrohttpd, handed the
    /// listener, shut it down as it stopped with a pool of threads, and the
    /// next start served nothing (connections refused, on TCP and Unix
    /// sockets alike). The listener outlives each server, and what connected
    /// between two servers is served by the next.
    @Test func anAdoptedListenerOutlivesItsServerAndTheNextServesWhatConnectedMeanwhile() async throws {
        let tcp = try SilentListener()
        let dir = TemporaryDirectory()
        let unix = try ListeningSocket.unix(path: dir.path + "/api.sock", mode: 0o600)
        defer { unix.close() }
        for (descriptor, kind) in [(tcp.fd, HTTPRequest.Listener.tcp), (unix.descriptor, .unixSocket)] {
            func server() throws -> HTTPServer {
                var configuration = HTTPServerConfiguration(listener: .listeningSocket(descriptor: descriptor, kind: kind))
                configuration.threadPoolSize = 2
                let server = HTTPServer(configuration: configuration, handler: EchoedRequest.handler)
                try server.start()
                return server
            }
            let url = kind == .tcp ? "http://127.0.0.1:\(tcp.port)" : "http://localhost"
            let path = kind == .tcp ? nil : dir.path + "/api.sock"
            for round in 0..<3 {
                let first = try server()
                #expect(try await client.send(HTTPClientRequest(url: url + "/before", unixSocketPath: path)).status == 200)
                await first.stop()
                // Nothing serves the listener now; this waits in its queue, on a
                // client of its own (a kept connection to the stopped server would not do).
                let client = HTTPClient()
                let meanwhile = Task { try await client.send(HTTPClientRequest(url: url + "/meanwhile/\(round)", unixSocketPath: path)) }
                try await Task.sleep(for: .milliseconds(100))
                let next = try server()
                let answered = try await meanwhile.value
                #expect(try EchoedRequest.decode(answered.body).path == "/meanwhile/\(round)", "\(kind), round \(round)")
                await next.stop()
            }
        }
    }

    /// Past the connection limit, connections wait in the listener's
    /// queue and are served as others close. libmicrohttpd 0.9.75, handed a
    /// connection for a worker at its own limit, kept a mutex locked and its
    /// worker waited on itself for good: the server answered nothing more.
    @Test func connectionsPastTheLimitWaitAndTheServerStillAnswersAfterward() async throws {
        let (server, _) = try startLoopbackServer(configure: {
            $0.connectionLimit = 8
            $0.perClientConnectionLimit = 0
            $0.threadPoolSize = 2
        }, handler: EchoedRequest.handler)
        defer { Task { await server.stop() } }
        let port = try #require(server.port)
        for round in 0..<3 {
            // Three times the limit, all at once and idle: the rest wait queued.
            var held = try (0..<24).map { _ in try RawSocket(port: port) }
            try await Task.sleep(for: .milliseconds(200))
            held.removeAll()
            try await Task.sleep(for: .milliseconds(200))
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/after/\(round)")
            request.timeout = .seconds(5)
            let response = try await HTTPClient().send(request)
            #expect(try EchoedRequest.decode(response.body).path == "/after/\(round)")
        }
        // A queued connection is served once one of those ahead of it closes.
        var ahead = try (0..<8).map { _ in try RawSocket(port: port) }
        try await Task.sleep(for: .milliseconds(100))
        let queued = try RawSocket(port: port)
        queued.send("GET /queued HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        ahead.removeFirst()
        let answer = await queued.readToEnd()
        #expect(answer.text.hasPrefix("HTTP/1.1 200"), "\(answer.text)")
        ahead.removeAll()
    }

    @Test func anAdoptedDescriptorThatIsNoSocketIsRefusedByNameAndKept() throws {
        // /dev/null is no socket (libmicrohttpd, handed it, refused it with no
        // reason given, and the error blamed the settings).
        let adopted = open("/dev/null", O_RDONLY | O_CLOEXEC)
        try #require(adopted >= 0)
        defer { close(adopted) }
        func nullDescriptors() throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == "/dev/null"
            }
        }
        let before = try nullDescriptors()
        let server = HTTPServer(configuration: .init(listener: .listeningSocket(descriptor: adopted, kind: .tcp)), handler: EchoedRequest.handler)
        let error = #expect(throws: HTTPServerError.self) { try server.start() }
        #expect(error == .notAListeningSocket(address: "socket descriptor \(adopted)", reason: "it is not a socket"))
        #expect(try nullDescriptors() == before)
        #expect(fcntl(adopted, F_GETFD) >= 0)
    }

    @Test func anAdoptedSocketThatDoesNotListenIsNamedAsSuch() throws {
        let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let unlistened = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(udp >= 0 && unlistened >= 0)
        defer { close(udp); close(unlistened) }
        for (descriptor, reason) in [(udp, "it is a socket, but not a stream socket"), (unlistened, "it is a stream socket that does not listen")] {
            let server = HTTPServer(configuration: .init(listener: .listeningSocket(descriptor: descriptor, kind: .tcp)), handler: EchoedRequest.handler)
            let error = #expect(throws: HTTPServerError.self) { try server.start() }
            #expect(error == .notAListeningSocket(address: "socket descriptor \(descriptor)", reason: reason))
            #expect(error?.code == "not_a_listening_socket")
            #expect(fcntl(descriptor, F_GETFD) >= 0)
        }
    }

    /// A client waiting for `100 Continue`, or declaring more than is worth
    /// reading, is answered before its body is read.
    @Test func answers413BeforeReadingAnOversizedDeclaredBody() async throws {
        let (server, _) = try startLoopbackServer(maxBodyBytes: 1024, handler: EchoedRequest.handler)
        defer { Task { await server.stop() } }
        for (length, expect) in [(5_000, "Expect: 100-continue\r\n"), (MHDServerCore.drainedBodyBytes + 1, "")] {
            let socket = try RawSocket(port: try #require(server.port))
            socket.send("POST /x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\(expect)Content-Length: \(length)\r\n\r\n")
            let reply = await socket.read { $0.contains("}}") }
            #expect(reply.hasPrefix("HTTP/1.1 413"), "\(reply)")
            #expect(reply.contains(#"{"error":{"code":"body_too_large","message":"#))
        }
    }

    @Test func answers413ToCurlWaitingForContinue() async throws {
        let (server, base) = try startLoopbackServer(maxBodyBytes: 1024, handler: EchoedRequest.handler)
        defer { Task { await server.stop() } }
        let response = try await client.send(HTTPClientRequest(
            url: base + "/x", method: "POST", headers: ["Expect": "100-continue"], body: Data(count: 4096)))
        #expect(response.status == 413)
        let error = try JSONDecoder().decode(HTTPErrorBody.self, from: response.body)
        #expect(error.error.code == "body_too_large")
    }

    @Test func answers413ToAnOversizedChunkedBody() async throws {
        let (server, base) = try startLoopbackServer(maxBodyBytes: 1024, handler: EchoedRequest.handler)
        defer { Task { await server.stop() } }
        let response = try await client.send(HTTPClientRequest(
            url: base + "/x", method: "POST", headers: ["Transfer-Encoding": "chunked"], body: Data(count: 1500)))
        #expect(response.status == 413)
        #expect(try JSONDecoder().decode(HTTPErrorBody.self, from: response.body).error.code == "body_too_large")

        let fits = try await client.send(HTTPClientRequest(
            url: base + "/x", method: "POST", headers: ["Transfer-Encoding": "chunked"], body: Data(repeating: 65, count: 1024)))
        #expect(fits.status == 200)
        #expect(try EchoedRequest.decode(fits.body).body.count == 1024)
    }

    /// A large body counts toward a trim of the heap though the handler has
    /// let it go before the exchange ends, and so does a chunked one read
    /// until it was too large; a small exchange leads to none.
    @Test func largeBodiesAreFollowedByATrimOnceQuiet() async throws {
        let releases = HeapTrimmerTests.Releases()
        let (server, base) = try startLoopbackServer(
            maxBodyBytes: 512 << 10, trimmer: HeapTrimmer(quiet: .milliseconds(100)) { releases.record() }) { _ in HTTPResponse(status: 200) }
        defer { Task { await server.stop() } }
        for (size, status, trims) in [(10 << 10, 200, 0), (300 << 10, 200, 1), (600 << 10, 413, 2)] {
            let chunked: HTTPHeaders = status == 413 ? ["Transfer-Encoding": "chunked"] : [:]
            let response = try await client.send(HTTPClientRequest(url: base + "/x", method: "POST", headers: chunked, body: Data(count: size)))
            #expect(response.status == status)
            try await Task.sleep(for: .milliseconds(600))
            #expect(releases.count == trims, "after a body of \(size) bytes")
        }
        // An upload its client drops unfinished held what it sent until then.
        let port = try #require(server.port)
        do {
            let dropped = try RawSocket(port: port)
            dropped.send("POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(400 << 10)\r\n\r\n")
            dropped.send(bytes: [UInt8](repeating: 65, count: 300 << 10))
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(await eventually(.seconds(3)) { releases.count == 3 }, "after an upload dropped unfinished")
    }

    /// A handler whose client closed or reset the connection is cancelled
    /// about a second in: thirty clients that sent a costly listing and
    /// went kept a core busy for 51 s. One whose client stays runs on.
    @Test func aHandlerWhoseClientWentIsCancelled() async throws {
        let cancelled = Mutex<[String]>([])
        let (server, _) = try startLoopbackServer { request in
            for _ in 0..<300 where !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
            if Task.isCancelled { cancelled.withLock { $0.append(request.path) } }
            return .text("done")
        }
        defer { Task { await server.stop() } }
        let port = try #require(server.port)
        let started = ContinuousClock.now
        do {
            let gone = try RawSocket(port: port)
            gone.send("GET /gone HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(await eventually(.seconds(3)) { cancelled.withLock { $0 } == ["/gone"] })
        #expect(ContinuousClock.now - started < .seconds(3))
        let stays = try RawSocket(port: port)
        stays.send("GET /stays HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(await stays.read { $0.hasSuffix("done") }.hasPrefix("HTTP/1.1 200"))
        #expect(cancelled.withLock { $0 } == ["/gone"])
    }

    @Test func survivesMalformedRequests() async throws {
        let (server, base) = try startLoopbackServer(handler: EchoedRequest.handler)
        defer { Task { await server.stop() } }
        let port = try #require(server.port)
        for garbage in [
            "GARBAGE\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\nabc\r\n",
            "GET / HTTP/1.1\r\nBad Header Without Colon\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 100_000) + "\r\n\r\n",
        ] {
            let socket = try RawSocket(port: port)
            socket.send(garbage)
            let reply = await socket.read()
            #expect(!reply.hasPrefix("HTTP/1.1 2"), "accepted: \(garbage.prefix(40))")
        }
        let response = try await client.send(HTTPClientRequest(url: base + "/still-alive"))
        #expect(response.status == 200)
    }

    @Test func handlesConcurrentRequests() async throws {
        let (server, base) = try startLoopbackServer { request in
            try? await Task.sleep(for: .milliseconds(Int.random(in: 0...5)))
            return .text(request.path)
        }
        defer { Task { await server.stop() } }
        let client = self.client
        let statuses = try await withThrowingTaskGroup(of: [Bool].self) { group in
            for worker in 0..<16 {
                group.addTask {
                    var ok: [Bool] = []
                    for i in stride(from: worker, to: 200, by: 16) {
                        let r = try await client.send(HTTPClientRequest(url: base + "/n/\(i)", method: "POST", body: Data("\(i)".utf8)))
                        ok.append(r.status == 200 && String(decoding: r.body, as: UTF8.self) == "/n/\(i)")
                    }
                    return ok
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(statuses.count == 200)
        #expect(statuses.allSatisfy { $0 })
    }

    @Test func streamsChunksInOrder() async throws {
        let (server, base) = try startLoopbackServer(handler: countingEventStream(20, every: .milliseconds(2)))
        defer { Task { await server.stop() } }
        let response = try await client.send(HTTPClientRequest(url: base + "/v1/events"))
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/event-stream")
        let expected = (0..<20).map { "data: \($0)\n\n" }.joined()
        #expect(String(decoding: response.body, as: UTF8.self) == expected)
    }

    /// HEAD on a stream gets the head alone: a kept-alive connection's next
    /// answer starts right after it.
    @Test func aStreamsAnswerToHeadHasNoBody() async throws {
        let (server, _) = try startLoopbackServer(handler: countingEventStream(3, every: .milliseconds(2)))
        defer { Task { await server.stop() } }
        let socket = try RawSocket(port: try #require(server.port))
        socket.send("HEAD /v1/events HTTP/1.1\r\nHost: x\r\n\r\nHEAD /v1/events HTTP/1.1\r\nHost: x\r\n\r\n")
        let reply = await socket.read { $0.components(separatedBy: "\r\n\r\n").count > 2 }
        let parts = reply.components(separatedBy: "\r\n\r\n")
        #expect(parts.count == 3 && parts[2].isEmpty, "\(reply)")
        #expect(parts.dropLast().allSatisfy { $0.hasPrefix("HTTP/1.1 200") }, "\(reply)")
        #expect(!reply.contains("data:"))
    }

    @Test func streamDeliversEachChunkBeforeTheNextExists() async throws {
        let gate = AsyncStream<Void>.makeStream()
        let (server, _) = try startLoopbackServer { _ in
            let (stream, continuation) = AsyncStream<Data>.makeStream()
            Task {
                continuation.yield(Data("first|".utf8))
                // The second chunk waits until the client has read the first.
                for await _ in gate.stream { break }
                continuation.yield(Data("second|".utf8))
                continuation.finish()
            }
            return HTTPResponse(stream: stream)
        }
        defer { Task { await server.stop() } }
        let socket = try RawSocket(port: try #require(server.port))
        socket.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = await socket.read { $0.contains("first|") }
        #expect(head.hasPrefix("HTTP/1.1 200"))
        #expect(head.lowercased().contains("transfer-encoding: chunked"))
        #expect(!head.contains("second|"))
        gate.continuation.yield()
        let rest = await socket.read { $0.contains("\r\n0\r\n\r\n") }
        #expect(rest.contains("second|"))
    }

    /// A stream takes from its producer only what its client has room for:
    /// for a client that reads nothing, `maxStreamBufferBytes` and the
    /// kernel's buffers, not the producer's 4 MB; and its connection ends
    /// once the client has taken nothing for `streamIdleTimeout`, cut short.
    @Test func aStreamTakesWhatItsClientReadsAndEndsWhenItTakesNothing() async throws {
        let taken = Locked(0)
        let (server, _) = try startLoopbackServer(configure: {
            $0.maxStreamBufferBytes = 64 * 1024
            $0.streamIdleTimeout = .seconds(2)
        }) { _ in
            let (stream, continuation) = AsyncStream<Data>.makeStream(bufferingPolicy: .bufferingOldest(1))
            Task {
                let chunk = Data(repeating: UInt8(ascii: "x"), count: 16 * 1024)
                var left = 256
                while left > 0 {
                    switch continuation.yield(chunk) {
                    case .enqueued: left -= 1; taken.withLock { $0 += 1 }
                    case .dropped: try? await Task.sleep(for: .milliseconds(2))
                    default: return
                    }
                }
                continuation.finish()
            }
            return HTTPResponse(stream: stream)
        }
        defer { Task { await server.stop() } }
        let socket = try RawSocket(port: try #require(server.port), receiveBuffer: 4096)
        socket.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        try await Task.sleep(for: .seconds(1))
        // 64 KB held, a chunk past it, the kernel's 64 KB and the client's few: some 10 chunks.
        let whileStalled = taken.value
        #expect(whileStalled < 24, "\(whileStalled) chunks of 16 KB taken for a client that read nothing")
        try await Task.sleep(for: .seconds(3))
        let (text, closed) = await socket.readToEnd()
        #expect(closed)
        #expect(!text.hasSuffix("\r\n0\r\n\r\n"), "the stream was finished, not cut short")
        #expect(taken.value < 24)
    }

    @Test func stopLetsRunningHandlersFinish() async throws {
        let started = AsyncStream<Void>.makeStream()
        let (server, base) = try startLoopbackServer { _ in
            started.continuation.yield()
            try? await Task.sleep(for: .milliseconds(300))
            return .text("finished")
        }
        let client = self.client
        let pending = Task { try await client.send(HTTPClientRequest(url: base + "/slow")) }
        for await _ in started.stream { break }
        await server.stop()
        let response = try await pending.value
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "finished")
        await #expect(throws: HTTPClientError.self) { try await client.send(HTTPClientRequest(url: base + "/after")) }
    }

    @Test func aConnectionOpenedWhileStoppingIsClosedUnserved() async throws {
        let started = AsyncStream<Void>.makeStream()
        let served = Mutex<[String]>([])
        let (server, base) = try startLoopbackServer { request in
            served.withLock { $0.append(request.path) }
            started.continuation.yield()
            try? await Task.sleep(for: .milliseconds(600))
            return .text("finished")
        }
        let port = try #require(server.port)
        let client = self.client
        let pending = Task { try await client.send(HTTPClientRequest(url: base + "/slow")) }
        for await _ in started.stream { break }
        let stopping = Task { await server.stop() }
        try await Task.sleep(for: .milliseconds(100))
        // The listener is still open (the slow request holds stop() in its
        // grace period), so the connect succeeds into its queue; nothing
        // takes it from there, and it is closed unread with the listener.
        let late = try RawSocket(port: port)
        late.send("GET /late HTTP/1.1\r\nHost: x\r\n\r\n")
        let (text, closedByPeer) = await late.readToEnd()
        #expect(text.isEmpty && closedByPeer)
        #expect(try await pending.value.status == 200)
        await stopping.value
        #expect(served.withLock { $0 } == ["/slow"])
    }

    /// libmicrohttpd 0.9.75's `MHD_quiesce_daemon` raced its epoll worker and
    /// aborted the process ("Failed to remove listen FD from epoll set") when
    /// it lost; the server no longer quiesces. Many stops with connections
    /// arriving, and afterwards nothing listens on the port: the duplicate
    /// descriptor libmicrohttpd is given is closed with the listener.
    @Test func stopsCleanlyWhileConnectionsArriveAndLeavesNothingListening() async throws {
        for _ in 0..<60 {
            let (server, _) = try startLoopbackServer { _ in .text("ok") }
            let port = try #require(server.port)
            let knocking = Atomic<Bool>(true)
            let knocker = Thread {
                while knocking.load(ordering: .relaxed) {
                    guard let socket = try? RawSocket(port: port) else { continue }
                    socket.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                }
            }
            knocker.start()
            try await Task.sleep(for: .milliseconds(5))
            await server.stop()
            knocking.store(false, ordering: .relaxed)
            #expect(throws: POSIXError.self, "port \(port) still accepts connections after stop()") { try RawSocket(port: port) }
        }
    }

    /// A server with `grace` whose handler takes five seconds, and a
    /// request it is handling.
    func stuckRequest(grace: Duration) async throws -> (server: HTTPServer, pending: Task<HTTPClientResponse, any Error>) {
        let started = AsyncStream<Void>.makeStream()
        let (server, base) = try startLoopbackServer(shutdownGracePeriod: grace) { _ in
            started.continuation.yield()
            try? await Task.sleep(for: .seconds(5))
            return .text("too late")
        }
        let client = self.client
        let pending = Task { try await client.send(HTTPClientRequest(url: base + "/stuck")) }
        for await _ in started.stream { break }
        return (server, pending)
    }

    @Test func stopAnswers503WhenTheGracePeriodRunsOut() async throws {
        let (server, pending) = try await stuckRequest(grace: .milliseconds(100))
        let clock = ContinuousClock()
        let elapsed = await clock.measure { await server.stop() }
        let response = try await pending.value
        #expect(response.status == 503)
        #expect(try JSONDecoder().decode(HTTPErrorBody.self, from: response.body).error.code == "shutting_down")
        #expect(elapsed < .seconds(2))
    }

    /// The grace over (the service's task cancelled, its waits cut short),
    /// what is still running is answered all the same.
    @Test func aCancelledStopStillAnswersWhatItCutsShort() async throws {
        let (server, pending) = try await stuckRequest(grace: .seconds(30))
        let stopping = Task { await server.stop() }
        try await Task.sleep(for: .milliseconds(50))
        stopping.cancel()
        await stopping.value
        let response = try await pending.value
        #expect(response.status == 503)
        #expect(try JSONDecoder().decode(HTTPErrorBody.self, from: response.body).error.code == "shutting_down")
    }

    /// A request still sending its body when the stop begins has the
    /// grace to finish it, and is answered: it was closed unanswered at once.
    @Test func stopWaitsForABodyStillComing() async throws {
        let (server, _) = try startLoopbackServer(shutdownGracePeriod: .seconds(5)) { request in .text("got \(request.body.count)") }
        let socket = try RawSocket(port: try #require(server.port))
        socket.send("POST /x HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\n12345")
        try await Task.sleep(for: .milliseconds(300))
        let stopping = Task { await server.stop() }
        try await Task.sleep(for: .milliseconds(300))
        socket.send("67890")
        let reply = await socket.read { $0.contains("got 10") }
        #expect(reply.hasPrefix("HTTP/1.1 200"), "reply: \(reply)")
        // Answered as the stop answers, so the stop had begun before the body ended.
        #expect(reply.lowercased().contains("connection: close"), "reply: \(reply)")
        await stopping.value
    }

    @Test func stopEndsOpenStreams() async throws {
        let opened = AsyncStream<Void>.makeStream()
        let (server, base) = try startLoopbackServer { _ in
            let (stream, continuation) = AsyncStream<Data>.makeStream()
            continuation.yield(Data("hello|".utf8))
            opened.continuation.yield()
            // Never finishes on its own, like an event stream.
            return HTTPResponse(stream: stream)
        }
        let client = self.client
        let pending = Task { try await client.send(HTTPClientRequest(url: base + "/v1/events")) }
        for await _ in opened.stream { break }
        try await Task.sleep(for: .milliseconds(50))
        await server.stop()
        let response = try await pending.value
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello|")
    }
}

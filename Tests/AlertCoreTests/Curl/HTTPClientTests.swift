import Foundation
import Synchronization
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdSQLite
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdHTTPServer
@testable import AlertdStore
@testable import AlertdDelivery
@testable import AlertdDaemon
@testable import AlertdClient

@Suite struct HTTPClientTests {
    let client = HTTPClient()

    @Test func getsAndPostsWithHeaders() async throws {
        let (server, base) = try startLoopbackServer(handler: EchoedRequest.handler)
        defer { Task { await server.stop() } }

        let get = try await client.send(HTTPClientRequest(url: base + "/things?a=1", headers: ["Accept": "application/json"]))
        #expect(get.status == 200)
        let seen = try EchoedRequest.decode(get.body)
        #expect(seen.method == "GET")
        #expect(seen.body.isEmpty)
        #expect(seen.headers.contains(["Accept", "application/json"]))
        #expect(!seen.headers.contains { $0[0].lowercased() == "expect" })

        let post = try await client.send(HTTPClientRequest(
            url: base + "/things", method: "POST", headers: ["Content-Type": "application/json", "X-Empty": ""],
            body: Data(#"{"a":1}"#.utf8)))
        let posted = try EchoedRequest.decode(post.body)
        #expect(posted.method == "POST")
        #expect(posted.body == #"{"a":1}"#)
        #expect(posted.headers.contains(["Content-Type", "application/json"]))
        #expect(posted.headers.contains(["X-Empty", ""]))

        let put = try await client.send(HTTPClientRequest(url: base + "/things/1", method: "PUT", body: Data("x".utf8)))
        let putSeen = try EchoedRequest.decode(put.body)
        #expect(putSeen.method == "PUT")
        #expect(putSeen.body == "x")
        // No body type is invented for the caller.
        #expect(!putSeen.headers.contains { $0[0].lowercased() == "content-type" })

        let delete = try await client.send(HTTPClientRequest(url: base + "/things/1", method: "DELETE"))
        #expect(try EchoedRequest.decode(delete.body).method == "DELETE")
    }

    /// Finished transfers leave their easy handles for the next ones:
    /// nothing one request set (method, headers, body, socket, timeouts)
    /// may carry over into the next on the same client. A request like the
    /// one before it keeps the handle's shared options and sets only its
    /// own (`CurlTransfer.Profile`), so both kinds of turn are taken here.
    @Test func aRequestTakesNothingFromTheOneBeforeIt() async throws {
        let (server, base) = try startLoopbackServer(handler: EchoedRequest.handler)
        defer { Task { await server.stop() } }
        let dir = TemporaryDirectory()
        let path = dir.path + "/c.sock"
        let unixServer = HTTPServer(configuration: .init(listener: .unixSocket(path: path)), handler: EchoedRequest.handler)
        try unixServer.start()
        defer { Task { await unixServer.stop() } }

        for round in 0..<3 {
            let head = try await client.send(HTTPClientRequest(url: base + "/h", method: "HEAD", timeout: .milliseconds(900)))
            #expect(head.status == 200 && head.body.isEmpty)
            let posted = try EchoedRequest.decode(try await client.send(HTTPClientRequest(
                url: base + "/p", method: "POST", headers: ["X-Only-Here": "\(round)", "Content-Type": "text/plain"],
                body: Data("body \(round)".utf8), unixSocketPath: round == 1 ? path : nil)).body)
            #expect(posted.method == "POST" && posted.body == "body \(round)")
            #expect(posted.listener == (round == 1 ? "unix" : "tcp"))
            // The same kind of request again, the method spelled otherwise.
            let again = try EchoedRequest.decode(try await client.send(HTTPClientRequest(
                url: base + "/q", method: "post", body: Data("again \(round)".utf8), unixSocketPath: round == 1 ? path : nil)).body)
            #expect(again.method == "POST" && again.body == "again \(round)" && again.path == "/q")
            #expect(again.listener == (round == 1 ? "unix" : "tcp"))
            #expect(!again.headers.contains { ["x-only-here", "content-type"].contains($0[0].lowercased()) })
            let got = try await client.send(HTTPClientRequest(url: base + "/g"))
            let seen = try EchoedRequest.decode(got.body)
            #expect(seen.method == "GET" && seen.body.isEmpty && seen.listener == "tcp")
            #expect(!seen.headers.contains { ["x-only-here", "content-type"].contains($0[0].lowercased()) })
        }
    }

    @Test func talksOverAUnixSocket() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/c.sock"
        let server = HTTPServer(configuration: .init(listener: .unixSocket(path: path)), handler: EchoedRequest.handler)
        try server.start()
        let response = try await client.send(HTTPClientRequest(
            url: "http://localhost/v1/alerts", method: "POST", body: Data("{}".utf8), unixSocketPath: path))
        #expect(try EchoedRequest.decode(response.body).listener == "unix")
        await server.stop()

        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClientRequest(url: "http://localhost/", unixSocketPath: path))
        }
        guard case .couldNotConnect(_, let address, _) = error else {
            Issue.record("expected couldNotConnect, got \(String(describing: error))")
            return
        }
        #expect(address == "unix socket \(path)")
    }

    @Test func timesOutAgainstAServerThatNeverAnswers() async throws {
        let silent = try SilentListener()
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(silent.port)/", timeout: .milliseconds(300)))
        }
        #expect(clock.now - start < .seconds(2))
        #expect(error == .timedOut(url: "http://127.0.0.1:\(silent.port)/", phase: .response, after: .milliseconds(300)))
        #expect(error?.code == "timed_out")
    }

    /// On a connection kept from an earlier request libcurl reports no
    /// connect time; a slow answer there is still a slow answer, not "no
    /// connection" (which sent an operator looking at firewalls).
    @Test func aSlowAnswerOnAKeptConnectionIsASlowAnswer() async throws {
        let slow = try WebhookReceiver(delay: .milliseconds(400))
        defer { Task { await slow.stop() } }
        _ = try await client.send(HTTPClientRequest(url: slow.url, method: "POST", body: Data("{}".utf8), timeout: .seconds(5)))
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClientRequest(url: slow.url, method: "POST", body: Data("{}".utf8), timeout: .milliseconds(150)))
        }
        #expect(error == .timedOut(url: slow.url, phase: .response, after: .milliseconds(150)))
    }

    /// A server that sent its status line and then stalled was said to give
    /// "no response": it answered, and its body was what came late.
    @Test func aResponseThatStallsAfterItsStatusLineIsLateInItsBody() async throws {
        let dir = TemporaryDirectory()
        let port = try TestDaemon.freePort()
        let script = """
            import socket, time
            s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", \(port))); s.listen(1)
            open("\(dir.path)/ready", "w").close()
            c, _ = s.accept(); c.recv(65536)
            c.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 60\\r\\n\\r\\nx")
            time.sleep(10)
            """
        try script.write(toFile: dir.path + "/server.py", atomically: true, encoding: .utf8)
        let server = try PythonServer.spawn(dir.path + "/server.py", [], log: dir.path + "/log")
        defer { server.kill() }
        try #require(await eventually(.seconds(10)) { FileManager.default.fileExists(atPath: dir.path + "/ready") })
        let url = "http://127.0.0.1:\(port)/"
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClientRequest(url: url, timeout: .milliseconds(500)))
        }
        #expect(error == .timedOut(url: url, phase: .body, after: .milliseconds(500)))
        #expect(error?.summary == "the response from \(url) did not end within 500ms")
    }

    @Test func reportsARefusedConnection() async throws {
        let closed = try ClosedPort()
        let url = "http://127.0.0.1:\(closed.port)/x"
        let error = await #expect(throws: HTTPClientError.self) { try await client.send(HTTPClientRequest(url: url)) }
        #expect(error == .couldNotConnect(url: url, address: "127.0.0.1:\(closed.port)", reason: "connection refused"))
        #expect(error?.summary == "connection refused by 127.0.0.1:\(closed.port)")
        #expect(error?.message.contains(url) == true)
    }

    /// Each way a connection fails reads as a phrase: "could not connect by
    /// 127.0.0.1:9" was what libcurl's missing error number gave (an
    /// attack ran the daemon out of descriptors), and running out is said.
    @Test func connectFailuresReadAsPhrases() {
        func summary(_ errno: Int32) -> String {
            HTTPClientError.couldNotConnect(url: "http://h/x", address: "127.0.0.1:9", reason: HTTPClientError.connectFailureReason(errno: errno)).summary
        }
        #expect(summary(0) == "could not connect to 127.0.0.1:9")
        #expect(summary(ECONNREFUSED) == "connection refused by 127.0.0.1:9")
        #expect(summary(ENETUNREACH) == "could not connect to 127.0.0.1:9: network unreachable")
        #expect(summary(EMFILE) == "could not connect to 127.0.0.1:9: no file descriptor left for a socket (the open-file limit; raise LimitNOFILE=)")
        let message = HTTPClientError.couldNotConnect(url: "http://h/x", address: "127.0.0.1:9", reason: "could not connect").message
        #expect(message == "Could not connect to http://h/x: could not connect to 127.0.0.1:9. Is the server running and listening there?")
    }

    @Test func capsTheResponseBody() async throws {
        let (server, base) = try startLoopbackServer { _ in HTTPResponse(body: Data(repeating: 7, count: 100_000)) }
        defer { Task { await server.stop() } }

        let error = await #expect(throws: HTTPClientError.self) { try await client.send(HTTPClientRequest(url: base + "/big")) }
        #expect(error == .responseTooLarge(url: base + "/big", limit: 64 * 1024))

        let truncated = try await client.send(HTTPClientRequest(url: base + "/big", oversizedResponse: .truncate))
        #expect(truncated.status == 200)
        #expect(truncated.body.count == 64 * 1024)
        #expect(truncated.bodyTruncated)

        let roomy = try await client.send(HTTPClientRequest(url: base + "/big", maxResponseBytes: 200_000))
        #expect(roomy.body.count == 100_000)
        #expect(!roomy.bodyTruncated)
    }

    /// Deliveries read answers a kilobyte at a time: a longer one still
    /// comes whole and in order, and the cap still cuts it where it says.
    @Test func aSmallReceiveBufferReadsAnAnswerInPieces() async throws {
        let sent = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
        let (server, base) = try startLoopbackServer { _ in HTTPResponse(body: sent) }
        defer { Task { await server.stop() } }

        let whole = try await client.send(HTTPClientRequest(url: base + "/", receiveBufferSize: HTTPClientRequest.smallReceiveBuffer))
        #expect(whole.body == sent)
        #expect(!whole.bodyTruncated)

        let capped = try await client.send(HTTPClientRequest(
            url: base + "/", maxResponseBytes: 2_500, oversizedResponse: .truncate, receiveBufferSize: HTTPClientRequest.smallReceiveBuffer))
        #expect(capped.body == sent.prefix(2_500))
        #expect(capped.bodyTruncated)

        // A handle whose transfer failed before it began keeps libcurl's
        // buffer, and libcurl refuses a new size then: the request on it
        // still goes out.
        _ = try? await client.send(HTTPClientRequest(url: ""))
        let after = try await client.send(HTTPClientRequest(url: base + "/", receiveBufferSize: HTTPClientRequest.smallReceiveBuffer))
        #expect(after.body == sent)
    }

    @Test func runsManyRequestsAtOnce() async throws {
        let (server, base) = try startLoopbackServer { request in .text(request.path) }
        defer { Task { await server.stop() } }
        let client = self.client
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<100 {
                group.addTask {
                    let r = try await client.send(HTTPClientRequest(url: base + "/p/\(i)"))
                    return r.status == 200 && String(decoding: r.body, as: UTF8.self) == "/p/\(i)"
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 100)
        #expect(results.allSatisfy { $0 })
    }

    /// Response header lines are read as sent: values without the spaces
    /// and tabs (or other space separators) at either end, an empty value
    /// kept, a folded line joined to the field before it, and the headers
    /// of an interim 1xx response dropped.
    @Test func readsResponseHeadersAsSent() async throws {
        let listener = try SilentListener()
        let response = "HTTP/1.1 100 Continue\r\nX-Interim: gone\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Spaced: \t padded  value \t\r\nX-Empty:\r\n"
            + "X-Folded: first\r\n \t second part\r\nX-Wide:\u{A0}nbsp\u{3000}\r\nConnection: close\r\n\r\nok"
        Self.answerOnce(on: listener, with: Array(response.utf8))
        let r = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(listener.port)/"))
        #expect(r.status == 200)
        #expect(r.body == Data("ok".utf8))
        #expect(r.headers["x-spaced"] == "padded  value")
        #expect(r.headers["x-empty"] == "")
        #expect(r.headers["x-folded"] == "first second part")
        #expect(r.headers["x-wide"] == "nbsp")
        #expect(r.headers["x-interim"] == nil)
    }

    /// libcurl 7.88 calls a line of the answer's head past 100 KB "Out of
    /// memory", which read in a delivery's last error as alertd's own memory
    /// running out: a header line, or the status line itself.
    @Test(arguments: [("HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: 200_000), 200 as Int?),
                      ("HTTP/1.1 200 " + String(repeating: "a", count: 200_000), nil)])
    func anOversizedHeadLineIsCalledThat(head: String, status: Int?) async throws {
        let listener = try SilentListener()
        Self.answerOnce(on: listener, with: Array((head + "\r\nContent-Length: 0\r\n\r\n").utf8))
        do {
            _ = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(listener.port)/"))
            Issue.record("the answer was taken")
        } catch {
            #expect(error == .headerTooLarge(url: "http://127.0.0.1:\(listener.port)/", status: status), "\(error)")
            #expect(!error.description.lowercased().contains("memory"), "\(error)")
        }
    }

    /// Answers one request on `listener` with `response`, on a thread of its own.
    static func answerOnce(on listener: SilentListener, with response: [UInt8]) {
        let fd = listener.fd
        Thread {
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var request: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while !String(decoding: request, as: UTF8.self).contains("\r\n\r\n") {
                let n = read(connection, &buffer, buffer.count)
                guard n > 0 else { return }
                request += buffer[..<n]
            }
            // The client may hang up first: no SIGPIPE for this process.
            _ = response.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }.start()
    }

    @Test func doesNotFollowRedirects() async throws {
        let recorder = RequestRecorder()
        let (server, base) = try startLoopbackServer { request in
            await recorder.record(request)
            return HTTPResponse(status: 302, headers: ["Location": "/elsewhere"])
        }
        defer { Task { await server.stop() } }
        let response = try await client.send(HTTPClientRequest(url: base + "/start"))
        #expect(response.status == 302)
        #expect(response.headers["location"] == "/elsewhere")
        #expect(await recorder.paths == ["/start"])
    }

    @Test func connectPolicyCanRefuseTheAddress() async throws {
        let recorder = RequestRecorder()
        let (server, base) = try startLoopbackServer { request in
            await recorder.record(request)
            return .text("should not get here")
        }
        defer { Task { await server.stop() } }
        let seen = Mutex<[HTTPConnectTarget]>([])
        let policy = HTTPConnectPolicy { target in
            seen.withLock { $0.append(target) }
            return target.remoteAddress == "127.0.0.1" ? .refuse(reason: "loopback addresses are not allowed") : .allow
        }
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClientRequest(url: base + "/hook", method: "POST", body: Data("{}".utf8), connectPolicy: policy))
        }
        #expect(error == .refusedByPolicy(url: base + "/hook", reason: "loopback addresses are not allowed"))
        #expect(seen.withLock { $0.first?.remotePort } == Int(server.port ?? 0))
        #expect(await recorder.requests.isEmpty)

        let allowed = try await client.send(HTTPClientRequest(url: base + "/ok", connectPolicy: HTTPConnectPolicy { _ in .allow }))
        #expect(allowed.status == 200)
    }

    /// A transfer whose connect timed out left its handle, kept for the
    /// next transfer, giving that one's refused connect the same code: a
    /// handler call the policy refused read as a timeout, and was retried.
    @Test func aRefusalAfterATimedOutConnectIsStillARefusal() async throws {
        var configuration = HTTPClientConfiguration()
        configuration.threads = 1
        let client = HTTPClient(configuration: configuration)
        // A listener whose backlog is full: a connect to it is never answered.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                try #require(bind(listener, $0, length) == 0 && listen(listener, 0) == 0 && getsockname(listener, $0, &length) == 0)
            }
        }
        let port = UInt16(bigEndian: address.sin_port)
        var filling: [Int32] = []
        defer { filling.forEach { close($0) } }
        for _ in 0..<4 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            filling.append(fd)
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) } }
        }
        let url = "http://127.0.0.1:\(port)"
        let timedOut = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClientRequest(url: url + "/slow", connectTimeout: .milliseconds(300),
                                                    connectPolicy: HTTPConnectPolicy { _ in .allow }))
        }
        guard case .timedOut(_, .connect, _)? = timedOut else {
            Issue.record("expected the connect to time out, got \(String(describing: timedOut))")
            return
        }
        let refused = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClientRequest(url: url + "/refused", connectPolicy: HTTPConnectPolicy { _ in .refuse(reason: "not here") }))
        }
        #expect(refused == .refusedByPolicy(url: url + "/refused", reason: "not here"))
    }

    @Test func connectPolicyAlsoJudgesARequestOnAPooledConnection() async throws {
        let recorder = RequestRecorder()
        let (server, base) = try startLoopbackServer { request in
            await recorder.record(request)
            return .text("ok")
        }
        defer { Task { await server.stop() } }
        // The first request leaves a kept-alive connection in the client's pool.
        #expect(try await client.send(HTTPClientRequest(url: base + "/open")).status == 200)
        let seen = Mutex<[HTTPConnectTarget]>([])
        let policy = HTTPConnectPolicy { target in
            seen.withLock { $0.append(target) }
            return .refuse(reason: "not on this connection")
        }
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClientRequest(url: base + "/reused", connectPolicy: policy))
        }
        #expect(error == .refusedByPolicy(url: base + "/reused", reason: "not on this connection"))
        #expect(await recorder.paths == ["/open"])
        // Judged once, on the pooled connection: no socket was opened for it.
        let targets = seen.withLock { $0 }
        #expect(targets.count == 1)
        #expect(targets.first?.remoteAddress == "127.0.0.1")
        #expect(targets.first?.localPort ?? 0 > 0, "the prereq callback sees the connection's own end too")
    }

    @Test func aCheckedRequestGoesOutAsGiven() async throws {
        let (server, base) = try startLoopbackServer { request in .text(request.path) }
        defer { Task { await server.stop() } }
        let checked = try await client.send(HTTPClientRequest(url: base + "/a/../b", connectPolicy: HTTPConnectPolicy { _ in .allow }))
        #expect(String(decoding: checked.body, as: UTF8.self) == "/a/../b")
        let plain = try await client.send(HTTPClientRequest(url: base + "/a/../b"))
        #expect(String(decoding: plain.body, as: UTF8.self) == "/b")
    }

    @Test func rejectsUnusableURLs() async throws {
        for url in ["ftp://example.com/x", "not a url", ""] {
            let error = await #expect(throws: HTTPClientError.self) { try await client.send(HTTPClientRequest(url: url)) }
            #expect(error?.code == "bad_url", "\(url): \(String(describing: error))")
        }
    }

    @Test func reportsAnUnresolvableHost() async throws {
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClientRequest(url: "http://no-such-host.invalid/", timeout: .seconds(5)))
        }
        #expect(error == .dnsFailure(url: "http://no-such-host.invalid/", host: "no-such-host.invalid"))
    }

    @Test func rejectsHeaderInjection() async throws {
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClientRequest(url: "http://127.0.0.1:9/", headers: ["X-A": "b\r\nX-Evil: 1"]))
        }
        #expect(error?.code == "invalid_request")
        // Nor any other control character but tab (RFC 9110 field values).
        for value in ["a\u{1}b", "a\u{7F}b", "a\u{0}b"] {
            await #expect(throws: HTTPClientError.self) {
                try await client.send(HTTPClientRequest(url: "http://127.0.0.1:9/", headers: ["X-A": value]))
            }
        }
    }

    @Test func cancellingTheTaskAbortsTheTransfer() async throws {
        let silent = try SilentListener()
        let client = self.client
        let task = Task { try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(silent.port)/", timeout: .seconds(20))) }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        let clock = ContinuousClock()
        let start = clock.now
        let result = await task.result
        #expect(clock.now - start < .seconds(2))
        #expect(throws: HTTPClientError.cancelled(url: "http://127.0.0.1:\(silent.port)/")) { try result.get() }
    }

    @Test func sharedClientWorks() async throws {
        let (server, base) = try startLoopbackServer { _ in .text("hi") }
        defer { Task { await server.stop() } }
        let response = try await HTTPClient.shared.send(HTTPClientRequest(url: base + "/"))
        #expect(String(decoding: response.body, as: UTF8.self) == "hi")
    }

    /// Requests are dealt out to the client's threads in turn, and each
    /// thread keeps its own connection alive: four requests one after
    /// another go out on two connections with two threads, on one with one.
    @Test(arguments: [1, 2])
    func dealsRequestsOutToItsThreads(threads: Int) async throws {
        let (server, base) = try startLoopbackServer { _ in .text("ok") }
        defer { Task { await server.stop() } }
        var configuration = HTTPClientConfiguration()
        configuration.threads = threads
        let client = HTTPClient(configuration: configuration)
        let ports = LocalPorts()
        for i in 0..<4 {
            #expect(try await client.send(HTTPClientRequest(url: base + "/\(i)", connectPolicy: ports.policy)).status == 200)
        }
        let seen = ports.taken()
        #expect(seen.count == 4)
        #expect(Set(seen).count == threads)
        if threads == 2 { #expect(seen[0] == seen[2] && seen[1] == seen[3]) }
    }

    /// The limits on open connections hold for the client as a whole: each
    /// thread gets its share, rounded up; no limit stays no limit. Each
    /// thread keeps the whole idle cache.
    @Test func sharesItsLimitsOutBetweenItsThreads() {
        var configuration = HTTPClientConfiguration()
        configuration.maxConnectionsPerHost = 5
        configuration.maxConnections = 0
        configuration.idleConnectionCache = 64
        configuration.threads = 2
        let share = configuration.perThread
        #expect(share.threads == 2)
        #expect(share.maxConnectionsPerHost == 3)
        #expect(share.maxConnections == 0)
        #expect(share.idleConnectionCache == 64)
        configuration.threads = 0
        #expect(configuration.perThread.threads == 1)
    }

    /// More requests at once than the idle cache holds, through two threads
    /// (12 each, the cache 16): every connection is kept and used again,
    /// none opened for the second round. With half the cache each, a thread
    /// closed what it could not keep.
    /// A receiver that reads a request and hangs up without an answer gets
    /// it once: libcurl sent it again on each kept connection in turn, up to
    /// five times, and a confirm handler ran five times in one attempt.
    @Test func aRequestIsSentOnceWhenTheConnectionClosesUnanswered() async throws {
        let listener = try SilentListener()
        let dropped = Mutex(0)
        let fd = listener.fd
        let accepting = Thread {
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }
                Thread {
                    defer { close(connection) }
                    var pending: [UInt8] = []
                    var buffer = [UInt8](repeating: 0, count: 4_096)
                    while true {
                        // One request: its head, then as many bytes as its Content-Length says.
                        var head: [UInt8] = []
                        while true {
                            if let end = pending.indices.dropLast(3).first(where: { pending[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }) {
                                head = Array(pending[..<(end + 4)])
                                pending.removeFirst(end + 4)
                                break
                            }
                            let n = read(connection, &buffer, buffer.count)
                            guard n > 0 else { return }
                            pending += buffer[..<n]
                        }
                        let text = String(decoding: head, as: UTF8.self).lowercased()
                        let length = text.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                        while pending.count < length {
                            let n = read(connection, &buffer, buffer.count)
                            guard n > 0 else { return }
                            pending += buffer[..<n]
                        }
                        pending.removeFirst(length)
                        if text.hasPrefix("post /drop") {
                            dropped.withLock { $0 += 1 }
                            return
                        }
                        usleep(30_000)  // slow enough that the warm-up's requests each take a connection
                        let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
                        _ = answer.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                    }
                }.start()
            }
        }
        accepting.start()
        defer { shutdown(fd, Int32(SHUT_RDWR)) }
        var configuration = HTTPClientConfiguration()
        configuration.idleConnectionCache = 16
        let client = HTTPClient(configuration: configuration)
        let base = "http://127.0.0.1:\(listener.port)"
        try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<6 { group.addTask { try await client.send(HTTPClientRequest(url: base + "/ok/\(i)")).status } }
            for try await status in group { #expect(status == 200) }
        }
        await #expect(throws: HTTPClientError.self) {
            _ = try await client.send(HTTPClientRequest(url: base + "/drop", method: "POST", body: Data("restart nginx".utf8)))
        }
        do {
            _ = try await client.send(HTTPClientRequest(url: base + "/drop", method: "POST", body: Data("again".utf8)))
        } catch {
            #expect(error.code == "connection_lost", "\(error)")
        }
        #expect(dropped.withLock { $0 } == 2, "each of the two requests went out once")
        #expect(try await client.send(HTTPClientRequest(url: base + "/ok/after")).status == 200)
    }

    /// A kept connection idle past a few seconds is not taken again: many
    /// servers (Node's, Apache's) close theirs after 5 s, and a request sent
    /// as one closes fails its attempt. One idle a second is taken again.
    @Test func aConnectionIdleForLongIsNotTakenAgain() async throws {
        let (server, base) = try startLoopbackServer { _ in .text("ok") }
        defer { Task { await server.stop() } }
        let client = HTTPClient()
        let ports = LocalPorts()
        func send() async throws -> [Int] {
            #expect(try await client.send(HTTPClientRequest(url: base + "/", connectPolicy: ports.policy)).status == 200)
            return ports.taken()
        }
        let first = try await send()
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await send() == first, "a connection idle for a moment is taken again")
        // libcurl counts whole seconds: idle a second past the limit, with a margin.
        try await Task.sleep(for: .milliseconds((CurlTransfer.keptConnectionMaxIdleSeconds + 1) * 1_000 + 200))
        let later = try await send()
        #expect(!later.isEmpty && later != first, "a connection idle past the limit was taken again")
    }

    @Test func keepsItsConnectionsWithSeveralThreads() async throws {
        let (server, base) = try startLoopbackServer { _ in
            try? await Task.sleep(for: .milliseconds(20))
            return .text("ok")
        }
        defer { Task { await server.stop() } }
        var configuration = HTTPClientConfiguration()
        configuration.threads = 2
        configuration.idleConnectionCache = 16
        let client = HTTPClient(configuration: configuration)
        let ports = LocalPorts()
        func round() async throws -> Set<Int> {
            _ = ports.taken()
            try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<24 {
                    group.addTask { try await client.send(HTTPClientRequest(url: base + "/\(i)", connectPolicy: ports.policy)).status }
                }
                for try await status in group { #expect(status == 200) }
            }
            return Set(ports.taken())
        }
        let first = try await round()
        let second = try await round()
        #expect(first.count == 24)
        #expect(second.isSubset(of: first), "the second round opened \(second.subtracting(first).count) new connections")
    }

    /// The daemon's shared client keeps as many idle connections as one
    /// presenter may have in flight: with 64, a presenter at 1,024 to a
    /// slow receiver opened a connection for nearly every request (twice
    /// the time and CPU, measured with 5,000 alerts).
    @Test func theDaemonsClientKeepsWhatAPresenterMayHaveInFlight() {
        #expect(PresenterFactory.httpClient.configuration.idleConnectionCache >= PresenterDefinition.maxConcurrencyRange.upperBound)
    }
}

/// The local port of every request's connection, new or reused, as the
/// prereq callback of a connect policy sees it: which connection each
/// request went out on.
private final class LocalPorts: Sendable {
    private let ports = Mutex<[Int]>([])

    var policy: HTTPConnectPolicy {
        HTTPConnectPolicy { [self] target in
            if target.localPort > 0 { ports.withLock { $0.append(target.localPort) } }
            return .allow
        }
    }

    /// The ports seen since the last call, in order.
    func taken() -> [Int] {
        ports.withLock { ports in
            defer { ports.removeAll() }
            return ports
        }
    }
}

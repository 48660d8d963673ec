import Foundation
import Testing
import Synchronization
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdClient
@testable import AlertdCommandLine
@testable import AlertdStore
@testable import AlertdHTTPServer
@testable import AlertdPOSIX

/// alertctl against a server that is not alertd, or not a friendly one:
/// what it answers must not grow alertctl without bound or drive the
/// terminal.
@Suite struct HostileServerTests {
    /// A server on a Unix socket in a temp dir that answers one request
    /// with `mode`'s bytes, then writes how many body bytes it got out
    /// before alertctl hung up.
    static let script = #"""
    import json, os, socket, sys, threading
    path, mode, out = sys.argv[1:4]
    s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen(16)
    open(out + ".ready", "w").close()
    if mode == "esc":
        # Every field alertctl watch prints, carrying escape sequences.
        esc = "\u001b]0;PWNED\u0007\u001b[2J\u009b31m\u202eevil\r\nInjected: line"
        alert = "01a2423b-3fed-7333-9621-99c1e2b5574c"
        events = [{"alert_id": alert, "type": "delivery.failed" + esc, "at": "AT" + esc, "presenter": "p" + esc, "error": "e" + esc},
                  {"alert_id": alert, "type": "alert.confirmed", "at": "2026-12-04T18:05:09.974Z", "actor": "a" + esc, "recipient": "r" + esc}]
        def serve(c):
            request = c.recv(65536)
            if b"/v1/groups" in request:
                group = {"id": "g-0123456789abcdef", "route": "r" + esc, "labels": {"rack" + esc: "7" + esc}, "presenters": ["p" + esc],
                         "created_at": "2026-12-04T18:05:09.974Z", "next_due_at": "2026-12-04T18:05:39.974Z"}
                body = json.dumps({"groups": [group]}).encode()
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            elif b"/v1/events" in request:
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nretry: 60000\n\n"
                          + b"".join(("data: " + json.dumps(e) + "\n\n").encode() for e in events))
                threading.Event().wait(5)
            else:
                body = json.dumps({"error": {"code": "not_found", "message": "no" + esc}}).encode()
                c.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            c.close()
        while True:
            c, _ = s.accept()
            threading.Thread(target=serve, args=(c,), daemon=True).start()
    if mode == "slowshow":
        # alertd's answers to `send --wait`, but the alert itself is never shown.
        alert = "01a2423b-3fed-7333-9621-99c1e2b5574c"
        def answer(c, status, kind, body):
            c.sendall(b"HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % (status, kind, len(body)) + body)
        def serve(c):
            request = c.recv(65536)
            line = request.split(b"\r\n", 1)[0]
            if line.startswith(b"POST /v1/alerts "):
                answer(c, b"202 Accepted", b"application/json", json.dumps({"id": alert, "state": "open", "deduplicated": False}).encode())
            elif line.startswith(b"GET /v1/alerts?"):
                answer(c, b"200 OK", b"application/json", b'{"alerts": []}')
            elif line.startswith(b"GET /v1/events"):
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nretry: 60000\n\n")
                threading.Event().wait(60)
            else:
                with open(out + ".shows", "a") as f: f.write("1")
                threading.Event().wait(60)
            c.close()
        while True:
            c, _ = s.accept()
            threading.Thread(target=serve, args=(c,), daemon=True).start()
    if mode == "fresh":
        # Pages without end, each cursor older than the last, each page 10 KB.
        served = 0
        while served < 1000:
            c, _ = s.accept(); c.recv(65536)
            alert = {"created_at": "2026-12-04T18:05:09.974Z", "updated_at": "2026-12-04T18:05:09.974Z", "state": "open",
                     "id": "01a2423b-3fed-7333-9621-%012x" % (10**6 - served), "spec": {"labels": {"x": "y" * 10000}, "severity": "info", "title": "t"}}
            body = json.dumps({"alerts": [alert], "next_cursor": "01a2423b-3fed-7333-9621-%012x" % (10**6 - served)}).encode()
            served += 1
            with open(out + ".part", "w") as f: f.write(str(served))
            os.rename(out + ".part", out)
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
            c.close()
    if mode == "cursors":
        # Pages of new alerts whose cursors take turns: two ids, over and over.
        served = 0
        while served < 1000:
            c, _ = s.accept(); c.recv(65536)
            alert = {"created_at": "2026-12-04T18:05:09.974Z", "updated_at": "2026-12-04T18:05:09.974Z", "state": "open",
                     "id": "01a2423b-3fed-7333-9621-%012x" % (served + 16), "spec": {"labels": {}, "severity": "info", "title": "t"}}
            body = json.dumps({"alerts": [alert], "next_cursor": "01a2423b-3fed-7333-9621-%012x" % (served % 2)}).encode()
            # Counted before it is sent: alertctl may be gone the moment it has the page.
            served += 1
            with open(out + ".part", "w") as f: f.write(str(served))
            os.rename(out + ".part", out)
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
            c.close()
    c, _ = s.accept(); c.recv(65536)
    sent = 0
    try:
        if mode.startswith("jsonproxy"):
            # A proxy (or gateway) that answers in the API's own error shape.
            page = b'{"error":{"code":"bad_gateway","message":"the upstream is down"}}'
            c.sendall(b"HTTP/1.1 %s Proxy\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (mode[9:].encode(), len(page)) + page)
        elif mode.startswith("proxy"):
            # A reverse proxy's own page, not alertd's JSON.
            page = b"<html><body><h1>%s</h1><hr>nginx</body></html>" % mode[5:].encode()
            c.sendall(b"HTTP/1.1 %s Proxy\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % (mode[5:].encode(), len(page)) + page)
        elif mode == "bigchunk":
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffff\r\n")
            block = b"x" * 65536
            for _ in range(48 * 16):
                c.sendall(block); sent += len(block)
        elif mode == "flood":
            # An event stream of one endless line, as fast as it is taken.
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: ")
            block = b"x" * 65536
            for _ in range(64 * 16):
                c.sendall(block); sent += len(block)
        elif mode == "eventflood":
            # Events, each whole, far faster than anyone reads them.
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
            block = b"".join(b'id: %d\ndata: {"alert_id": "x", "type": "delivery.failed"}\n\n' % i for i in range(1000))
            for _ in range(50):
                c.sendall(block); sent += 1000
        elif mode == "bigeventflood":
            # Events near the 1 MiB an event may hold, faster than anyone reads
            # them; paced, so that the reader parses each as it comes.
            import time
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
            block = b"id: 1\ndata: " + b"x" * 1000000 + b"\n\n"
            for _ in range(100):
                c.sendall(block); sent += 1
                time.sleep(0.02)
        elif mode == "silent":
            # Takes the request and never answers.
            threading.Event().wait(5)
        elif mode == "split":
            # A chunked body that starts in a read of its own, after the
            # head was read to its last byte; then one longer than the head.
            import time
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            time.sleep(0.3)
            body = b'{"ok": "' + b"y" * 70000 + b'"}'
            c.sendall(b"%x\r\n" % len(body) + body + b"\r\n")
            time.sleep(0.3)
            c.sendall(b"0\r\n\r\n"); sent = len(body)
        elif mode == "continue":
            # Interim answers and nothing else.
            for _ in range(10000):
                c.sendall(b"HTTP/1.1 100 Continue\r\n\r\n"); sent += 1
        elif mode == "headbytes":
            # Interim heads of long lines, each head under 256 lines, each line under 64 KB.
            for i in range(17):
                c.sendall(b"HTTP/1.1 100 Continue\r\n")
                for j in range(200):
                    c.sendall(b"X-A: " + b"b" * 60000 + b"\r\n"); sent += 1
                c.sendall(b"\r\n")
        elif mode == "headers":
            c.sendall(b"HTTP/1.1 200 OK\r\n")
            for i in range(2000):
                c.sendall(b"".join(b"X-%d-%d: y\r\n" % (i, j) for j in range(100))); sent += 100
    except OSError:
        pass
    # Renamed into place: the test reads the file as soon as it exists.
    with open(out + ".part", "w") as f:
        f.write(str(sent))
    os.rename(out + ".part", out)
    """#

    /// Starts the server in `mode` in a temp dir; `body` gets its socket
    /// and the file it writes what it sent to.
    func withServer<T>(_ mode: String, _ body: (_ socket: String, _ sent: String) async throws -> T) async throws -> T {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-hostile-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let socket = dir.path + "/s.sock", out = dir.path + "/sent"
        try Self.script.write(toFile: dir.path + "/server.py", atomically: true, encoding: .utf8)
        let server = try PythonServer.spawn(dir.path + "/server.py", [socket, mode, out], log: dir.path + "/log")
        defer { server.kill() }
        let ready = await eventually(.seconds(10)) { FileManager.default.fileExists(atPath: out + ".ready") }
        try #require(ready)
        return try await body(socket, out)
    }

    /// Runs the server in `mode`, sends one request to it, and gives what
    /// the client got and how much the server managed to send.
    func exchange(_ mode: String) async throws -> (Result<HTTPClientResponse, HTTPClientError>, Int) {
        try await withServer(mode) { socket, out in try await exchange(socket: socket, sent: out) }
    }

    private func exchange(socket: String, sent out: String) async throws -> (Result<HTTPClientResponse, HTTPClientError>, Int) {
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

    /// A streamed body its reader does not keep up with is cut off once
    /// ``HTTPClient/maxUnreadChunks`` wait, not kept whole in memory: 64 MiB
    /// sent at once while the reader sleeps.
    @Test func aStreamItsReaderDoesNotKeepUpWithIsCutOff() async throws {
        try await withServer("flood") { socket, out in
            let request = HTTPClientRequest(url: "http://localhost/v1/events", timeout: .seconds(30), unixSocketPath: socket)
            // Held to the end: a client that goes away cancels its transfers.
            let client = HTTPClient()
            defer { withExtendedLifetime(client) {} }
            let response = try await client.stream(request)
            try await Task.sleep(for: .seconds(2))
            var read = 0
            var failure: (any Error)?
            do {
                for try await chunk in response.body { read += chunk.count }
            } catch {
                failure = error
            }
            guard let error = failure as? HTTPClientError, case .connectionLost(_, let reason) = error else {
                Issue.record("expected connectionLost, got \(String(describing: failure)) after \(read) bytes")
                return
            }
            #expect(reason.contains("faster than it was read"))
            #expect(read <= HTTPClient.maxUnreadChunks * 64 * 1024)
            let done = await eventually(.seconds(20)) { FileManager.default.fileExists(atPath: out) }
            try #require(done)
            let sent = Int((try? String(contentsOfFile: out, encoding: .utf8)) ?? "") ?? -1
            #expect(sent >= 0 && sent < 64 << 20, "the server got \(sent) bytes out")
        }
    }

    /// Events sent faster than they are read end the stream with an error
    /// once ``AlertdClient/maxUnreadEvents`` wait, rather than piling up
    /// or being dropped without a word.
    @Test func eventsComingFasterThanTheyAreReadEndTheStream() async throws {
        try await withServer("eventflood") { socket, _ in
            let read = try await readFlood(socket, after: .seconds(2))
            #expect(read <= AlertdClient.maxUnreadEvents)
        }
    }

    /// Connects to the event stream at `socket`, reads nothing for
    /// `pause`, then reads to the end, which must be the client's error for
    /// events read too slowly; how many events it read.
    private func readFlood(_ socket: String, after pause: Duration) async throws -> Int {
        let client = AlertdClient(endpoint: .unixSocket(socket))
        var iterator = client.events(since: 0).makeAsyncIterator()
        guard case .connected = try await iterator.next() else {
            Issue.record("expected the stream to connect first")
            return 0
        }
        try await Task.sleep(for: pause)
        var read = 0
        do {
            while let item = try await iterator.next() {
                switch item {
                case .event: read += 1
                case .connected: break
                case .disconnected(let error):
                    // The connection's own bound on unread chunks, not the events'.
                    Issue.record("the stream was cut below the events after \(read) of them: \(error)")
                    return read
                }
            }
            Issue.record("the stream ended without an error after \(read) events")
        } catch let error as AlertdClientError {
            #expect(error.description.contains("faster than they were read"), "\(error)")
        }
        return read
    }

    /// Large events end the stream once ``AlertdClient/maxUnreadEventBytes``
    /// of them wait, long before ``AlertdClient/maxUnreadEvents``: 4,096
    /// events of up to 1 MiB each were let pile up in the reader.
    @Test func largeEventsComingFasterThanTheyAreReadEndTheStreamByTheirBytes() async throws {
        try await withServer("bigeventflood") { socket, out in
            let read = try await readFlood(socket, after: .seconds(3))
            #expect(read * 1_000_000 <= AlertdClient.maxUnreadEventBytes, "\(read) events waited")
            let done = await eventually(.seconds(20)) { FileManager.default.fileExists(atPath: out) }
            try #require(done)
            #expect((Int((try? String(contentsOfFile: out, encoding: .utf8)) ?? "") ?? 100) < 100, "the reader took every event")
        }
    }

    /// Something on the socket that takes the request and never answers:
    /// alertctl names the socket (the request's URL there is
    /// http://localhost/..., which names nothing), says a send may have
    /// been taken, and exits 69, alertd unavailable, not 1, an error from
    /// alertd. It advised raising a timeout alertctl has no option for.
    @Test func aSocketThatNeverAnswersIsNamedAndUnavailable() async throws {
        try await withServer("silent") { socket, _ in
            let client = AlertdClient(endpoint: .unixSocket(socket), timeout: .seconds(1))
            do throws(AlertdClientError) {
                _ = try await client.list(AlertQuery(limit: 1))
                Issue.record("a server that never answers was taken for alertd")
            } catch {
                guard case .unanswered = error else {
                    Issue.record("expected unanswered, got \(error)")
                    return
                }
                #expect(error.description.hasPrefix("alertd at \(socket) took the connection but did not answer within 1s"), "\(error)")
                #expect(error.description.contains("check with 'alertctl list' before trying again"))
                #expect(error.code == "timed_out")
                let context = CommandContext(environment: [:], output: { _ in }, errorOutput: { _ in }, readInput: { nil })
                #expect(error.report(context) == .unavailable)
            }
        }
        // send --wait's first look keeps to its --timeout (it took the client's 30 s).
        try await withServer("silent") { socket, _ in
            let started = ContinuousClock.now
            let r = try await TestBinaries.alertctl("send", "-t", "x", "--wait", "--timeout", "1s", "--socket", socket)
            #expect(ContinuousClock.now - started < .seconds(4))
            #expect(r.exitCode == 69, "\(r.stderr)")
            #expect(r.stderr.contains("did not answer within 1s"), "\(r.stderr)")
        }
    }

    /// `send --wait` stops at its `--timeout` even while a look at the
    /// alert hangs: the look is cancelled, and the last one is brief. It
    /// took the client's 30 s for each (62 s for a 2 s wait).
    @Test func aWaitEndsAtItsTimeoutWhileTheAlertIsSlowToShow() async throws {
        try await withServer("slowshow") { socket, out in
            let started = ContinuousClock.now
            let r = try await TestBinaries.alertctl("send", "-t", "x", "--wait", "--timeout", "2s", "--socket", socket)
            let took = ContinuousClock.now - started
            #expect(took >= .seconds(2) && took < .seconds(2) + DecisionWaiter.lastLook + .seconds(3), "took \(took)")
            #expect(r.exitCode == 3, "\(r.stderr)")
            #expect(r.stderr.contains("did not answer within 5s"), "\(r.stderr)")
            // The alert was out: the id says which, with or without --json.
            #expect(r.stderr.hasSuffix("alertctl: alert 01a2423b-3fed-7333-9621-99c1e2b5574c was sent; whether anyone decided is unknown\n"), "\(r.stderr)")
            // Both looks were asked for: the one the stream's opening took, and the last.
            #expect((try? String(contentsOfFile: out + ".shows", encoding: .utf8))?.count == 2)
        }
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

    /// Header lines are bounded in bytes too, every head's together: 17
    /// interim heads of 255 lines of 64 KB, each under its own limits, held
    /// 575 MB.
    @Test func longHeaderLinesAreRefusedPastTheirBytes() async throws {
        let (result, sent) = try await exchange("headbytes")
        guard case .failure(let error) = result, case .connectionLost(_, let reason) = error else {
            Issue.record("expected connectionLost, got \(result)")
            return
        }
        #expect(reason.contains("heads are over 256 KB"), "\(reason)")
        #expect(sent >= 0 && sent < 400, "the server got \(sent) lines of 60 KB out")
    }

    /// A line that starts in a read of its own (the head taken to its last
    /// byte, the chunked body sent after a pause) is read, not lost past
    /// the buffer's end: alertctl died of it.
    @Test func aBodyThatStartsInAReadOfItsOwnIsRead() async throws {
        let (result, sent) = try await exchange("split")
        let response = try result.get()
        #expect(response.status == 200)
        #expect(response.body.count == 70_010 && sent == 70_010, "\(response.body.count) of \(sent)")
    }

    /// A socket found in the working directory is sent a request only if its
    /// server runs as this user or root, checked on the connected socket
    /// (`SO_PEERCRED`): what is put at the path after the look at its owner
    /// gets nothing. So for both ways alertctl sends: its own client, and
    /// libcurl (event streams), which is handed the judged connection.
    /// Nobody accepts here, so a request that is sent times out.
    @Test func aSocketWhoseServerRunsAsAnotherUserIsSentNothing() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-peer-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/s.sock"
        let listening = try ListeningSocket.unix(path: path, mode: 0o600)
        defer { listening.close() }
        let me = CurrentProcess.effectiveUserID, other = CurrentProcess.effectiveUserID &+ 1
        let curl = HTTPClient()
        let judged = Mutex<[UInt32?]>([])
        func send(_ peers: Set<UInt32>, to socket: String = path, viaCurl: Bool) async -> HTTPClientError? {
            var request = HTTPClientRequest(url: "http://localhost/v1/alerts", timeout: .seconds(1), unixSocketPath: socket)
            request.unixSocketPeerCheck = { user in
                judged.withLock { $0.append(user) }
                return AlertdEndpoint.stranger(user, peers: peers)
            }
            do {
                _ = viaCurl ? try await curl.send(request) : try await #require(SocketHTTPClient(request)).send()
                return nil
            } catch let error as HTTPClientError {
                return error
            } catch {
                Issue.record("\(error)")
                return nil
            }
        }
        for viaCurl in [false, true] {
            judged.withLock { $0 = [] }
            guard case .couldNotConnect(_, _, let reason)? = await send([other], viaCurl: viaCurl) else {
                Issue.record("a stranger's socket was sent the request (curl: \(viaCurl))")
                continue
            }
            #expect(reason.contains("runs as user \(me)"), "\(reason)")
            let sent = await send([me], viaCurl: viaCurl)
            guard case .timedOut(_, .response, _)? = sent else {
                Issue.record("not sent (curl: \(viaCurl)): \(String(describing: sent))")
                continue
            }
            // Judged once per request, on its own connection (libcurl's pool gave it none).
            #expect(judged.withLock { $0 } == [me, me], "curl: \(viaCurl)")
            guard case .couldNotConnect? = await send([me], to: dir + "/none.sock", viaCurl: viaCurl) else {
                Issue.record("a missing socket was not a failed connect (curl: \(viaCurl))")
                continue
            }
        }
    }

    /// Each peer-checked request through libcurl is judged on a connection
    /// of its own: one kept alive from an earlier request was judged then,
    /// and what is at the path may have changed since.
    @Test func aPeerCheckedRequestNeverRidesAKeptConnection() async throws {
        let d = try TestDaemon()
        try await d.start()
        let judged = Mutex(0)
        var request = HTTPClientRequest(url: "http://localhost/v1/health", unixSocketPath: d.socketPath)
        request.unixSocketPeerCheck = { user in
            judged.withLock { $0 += 1 }
            return AlertdEndpoint.stranger(user, peers: [CurrentProcess.effectiveUserID])
        }
        let curl = HTTPClient()
        for _ in 0..<3 { #expect(try await curl.send(request).status == 200) }
        #expect(judged.withLock { $0 } == 3)
    }

    /// Interim (1xx) answers without end are refused, not read until the timeout.
    @Test func endlessInterimAnswersAreRefused() async throws {
        let (result, sent) = try await exchange("continue")
        guard case .failure(let error) = result, case .connectionLost(_, let reason) = error else {
            Issue.record("expected connectionLost, got \(result)")
            return
        }
        #expect(reason.contains("interim"), "\(reason)")
        #expect(sent >= 0, "the server got \(sent) heads out")
    }

    /// `list --all` stops at a cursor that does not move on to older
    /// alerts: two taking turns read pages for good, each kept (1.9 GB in 20 s).
    @Test func listAllStopsWhenACursorComesBack() async throws {
        let result = try await withServer("cursors") { socket, out in
            let result = try await TestBinaries.run("/usr/bin/timeout", ["10", try TestBinaries.alertctl, "--socket", socket, "list", "--all", "--json"])
            return (result, Int((try? String(contentsOfFile: out, encoding: .utf8)) ?? "") ?? -1)
        }
        #expect(result.0.exitCode == 0, "\(result.0.stderr)")
        #expect(result.1 == 2, "\(result.1) pages served")
    }

    /// Pages without end, each cursor older than the last, are gathered up
    /// to a bound on bytes too: a million alerts of 13 KB were 13 GB.
    @Test func listAllStopsAtItsBoundOnBytes() async throws {
        try await withServer("fresh") { socket, out in
            let client = AlertdClient(endpoint: .unixSocket(socket))
            do {
                _ = try await client.listAll(within: (alerts: 1_000_000, bytes: 100_000))
                Issue.record("a listing without end ended")
            } catch let error as AlertdClientError {
                guard case .badResponse(_, _, let reason) = error else { Issue.record("\(error)"); return }
                #expect(reason.contains("narrow the list"), "\(reason)")
            }
            let served = Int((try? String(contentsOfFile: out, encoding: .utf8)) ?? "") ?? -1
            #expect((10...12).contains(served), "\(served) pages read")
        }
    }

    /// `alertctl watch` prints an event's time, type, presenter, error and
    /// who decided as the server sent them: no escape sequence gets through.
    @Test func watchLinesCarryNoControlCharacters() async throws {
        let result = try await withServer("esc") { socket, _ in
            try await TestBinaries.run("/usr/bin/timeout", ["3", try TestBinaries.alertctl, "--socket", socket, "watch"])
        }
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(result.stdout) \(result.stderr)")
        #expect(lines.contains { $0.contains("PWNED") })
        #expect(!result.stdout.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }, "\(result.stdout)")
        // Nor a right-to-left override, which reorders what the reader sees.
        #expect(!result.stdout.unicodeScalars.contains("\u{202E}"), "\(result.stdout)")
    }

    /// An error the server sends is printed on one line of standard error,
    /// whatever it holds: a line break in it would start a line of the
    /// server's making ("Injected: line").
    @Test func anErrorFromTheServerIsOneSafeLine() async throws {
        let result = try await withServer("esc") { socket, _ in
            try await TestBinaries.run("/usr/bin/timeout", ["5", try TestBinaries.alertctl, "--socket", socket, "show", "01a2423b-3fed-7333-9621-99c1e2b5574c"])
        }
        #expect(result.stderr.hasPrefix("alertctl: alertd answered 404: no") && result.stderr.contains("[not_found]"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.hasSuffix("\n"), "\(result.stderr)")
        #expect(!result.stderr.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }, "\(result.stderr)")
        #expect(!result.stderr.unicodeScalars.contains("\u{202E}"), "\(result.stderr)")
    }

    /// A reverse proxy's page in place of alertd's JSON still gets the exit
    /// its status means: 75 for a 502, 503 or 504 (try again later), 77 for
    /// a 401 or 403; it was 1 for all, and retry-on-75 scripts gave up.
    /// The same when the proxy's page is JSON in the API's shape: 502 and
    /// 504 were then 1.
    @Test(arguments: [("502", 75), ("503", 75), ("504", 75), ("401", 77), ("403", 77), ("404", 1)])
    func aProxysPageGetsTheExitItsStatusMeans(_ status: String, _ exit: Int32) async throws {
        for page in ["proxy", "jsonproxy"] {
            let result = try await withServer(page + status) { socket, _ in
                try await TestBinaries.run("/usr/bin/timeout", ["5", try TestBinaries.alertctl, "--socket", socket, "list"])
            }
            #expect(result.exitCode == exit, "\(page): \(result.stderr)")
        }
    }

    /// `alertctl groups` prints each group's route and labels as the
    /// server sent them: no escape sequence gets through.
    @Test func groupLinesCarryNoControlCharacters() async throws {
        let result = try await withServer("esc") { socket, _ in
            try await TestBinaries.run("/usr/bin/timeout", ["5", try TestBinaries.alertctl, "--socket", socket, "groups"])
        }
        #expect(result.stdout.contains("PWNED"), "\(result.stdout) \(result.stderr)")
        #expect(!result.stdout.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }, "\(result.stdout)")
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

    /// Who decided, as a server that is not alertd sends it, in every line
    /// that tells a decision (`send --wait`, `watch`, `show`): no escape
    /// sequence, and no line break that starts a line of its making.
    @Test func decisionLinesCarryNoControlCharacters() {
        let esc = "a\u{1B}]0;PWNED\u{07}\u{1B}[2J\u{9B}31m\u{202E}\r\nInjected: line"
        let decision = AlertDecision(outcome: .confirmed, actor: esc, comment: esc, recipient: esc)
        for line in [decision.commandLineText, decision.summaryText] {
            #expect(line.contains("PWNED"))
            #expect(!line.unicodeScalars.contains { $0.properties.generalCategory == .control || $0 == "\u{202E}" }, "\(line)")
        }
    }
}


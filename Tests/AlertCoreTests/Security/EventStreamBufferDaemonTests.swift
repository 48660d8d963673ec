import Foundation
import Testing
@testable import AlertdHTTP
@testable import AlertdCurl

/// An event-stream client that stops reading used to have every later
/// event buffered for it without end (20 such clients took alertd from 58
/// to 203 MB in 30 s). Now each stream holds at most
/// `maxStreamBufferBytes` unsent (and the events API a few chunks more),
/// and takes more as the client reads, however slowly; a client that takes
/// nothing for `streamIdleTimeout` is closed (``HTTPServerTests``) and
/// resumes with `Last-Event-ID`, missing nothing.
@Suite(.serialized) struct EventStreamBufferDaemonTests {
    /// The body of a chunked response, as far as it arrived.
    static func body(_ response: String) -> String {
        var bytes = Array(response.utf8)[...]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == Array("\r\n\r\n".utf8) }) else { return "" }
        bytes = bytes[(end + 4)...]
        var out: [UInt8] = []
        while let lineEnd = bytes.firstIndex(of: UInt8(ascii: "\r")),
              let size = Int(String(decoding: bytes[..<lineEnd], as: UTF8.self), radix: 16), size > 0 {
            let start = lineEnd + 2
            guard start <= bytes.endIndex else { break }
            let stop = min(start + size, bytes.endIndex)
            out += bytes[start..<stop]
            guard stop + 2 <= bytes.endIndex else { break }
            bytes = bytes[(stop + 2)...]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The `id:` of each complete frame of an event-stream response.
    static func ids(_ response: String) -> [Int] {
        body(response).components(separatedBy: "\n\n").dropLast().compactMap { frame in
            frame.split(separator: "\n").first { $0.hasPrefix("id: ") }.flatMap { Int($0.dropFirst(4)) }
        }
    }

    func newestEventID(_ d: TestDaemon) async throws -> Int {
        let socket = try RawSocket(port: d.port)
        socket.send("GET /v1/events?since=now HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let head = await socket.read { !Self.ids($0).isEmpty }
        return try #require(Self.ids(head).last)
    }

    func rss(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test func aClientThatStopsReadingHoldsLittleAndGetsEveryEventWhenItReadsAgain() async throws {
        let d = try TestDaemon()
        try await d.start()
        let pid = try #require(d.pid)
        // Clients that read nothing, with small receive buffers so the kernel holds little for them.
        let stalled = try (0..<10).map { _ in try RawSocket(port: d.port, receiveBuffer: 4096) }
        for socket in stalled { socket.send("GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") }
        let before = rss(pid)

        // About 1 MB of events: each alert makes alert.created and, on the log presenter, delivery.succeeded.
        for batch in 0..<3 {
            let alerts = (0..<1_000).map { ["title": "load \(batch)-\($0)", "labels": ["batch": "\(batch)"]] }
            #expect(try await d.request("POST", "/v1/alerts", json: alerts).status == 202)
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let health = try JSONSerialization.jsonObject(with: try await d.request("GET", "/v1/health").body) as? [String: Any]
            if health?["pending_deliveries"] as? Int == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let newest = try await newestEventID(d)
        #expect(newest >= 6_000)
        // Loosely bounded (taking 3,000 alerts costs some memory itself); the drop below is the exact check.
        let grown = rss(pid) - before
        #expect(grown < 64 * 1024, "RSS grew by \(grown) kB")

        // Past the 10 s that took a stalled stream's client for gone.
        try await Task.sleep(for: .seconds(11))

        // The stalled client, reading at last: every event, in order, as if it had never stopped.
        let text = await stalled[0].read { Self.ids($0).last == newest }
        #expect(Self.ids(text) == Array(1...newest), "\(Self.ids(text).count) ids of \(newest)")

        // Reconnecting with Last-Event-ID picks up right after it.
        let last = newest / 2
        let resumed = try RawSocket(port: d.port)
        resumed.send("GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nLast-Event-ID: \(last)\r\nConnection: close\r\n\r\n")
        let next = await resumed.read { !Self.ids($0).isEmpty }
        #expect(Self.ids(next).first == last + 1)
    }

    /// Streams that replayed a long log to clients that never read, once
    /// gone, leave no memory behind: 256 of them left an idle daemon at
    /// 144 MB (25 before), their buffers having doubled past the bound and
    /// the freed heap kept.
    @Test func theMemoryOfStalledStreamsIsGivenBackOnceTheyAreGone() async throws {
        let d = try TestDaemon()
        try await d.start()
        let pid = try #require(d.pid)
        for batch in 0..<12 {
            let alerts = (0..<1_000).map { ["title": "log \(batch)-\($0) " + String(repeating: "x", count: 100)] }
            #expect(try await d.request("POST", "/v1/alerts", json: alerts).status == 202)
        }
        try await Task.sleep(for: .seconds(2))
        let before = rss(pid)
        var stalled = try (0..<128).map { _ in try RawSocket(port: d.port, receiveBuffer: 4096) }
        for socket in stalled { socket.send("GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") }
        try await Task.sleep(for: .seconds(4))
        let during = rss(pid)
        stalled.removeAll()  // closes them
        // The trimmer waits 1.5 s after the last large work.
        let deadline = ContinuousClock.now + .seconds(20)
        var after = rss(pid)
        while ContinuousClock.now < deadline, (after - before) * 4 > during - before {
            try await Task.sleep(for: .milliseconds(500))
            after = rss(pid)
        }
        #expect(during - before > 8 * 1024, "the streams cost \(during - before) kB: the test did not fill their buffers")
        #expect((after - before) * 4 < during - before, "\(before) kB before, \(during) kB with the streams, \(after) kB after")
    }

    /// A client catching up from the start while another stream keeps the
    /// newest events in memory reads to the newest, as fast as it can or
    /// slowly: the kept pages came at once, outran the server's bound for
    /// unsent bytes, and the client was dropped, though it was reading.
    @Test func aClientCatchingUpIntoTheKeptEventsIsNotDropped() async throws {
        let d = try TestDaemon()
        try await d.start()
        let anchor = try RawSocket(port: d.port)
        anchor.send("GET /v1/events?since=now HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        _ = await anchor.read { !Self.ids($0).isEmpty }
        for batch in 0..<3 {
            let alerts = (0..<1_000).map { ["title": "burst \(batch)-\($0)"] }
            #expect(try await d.request("POST", "/v1/alerts", json: alerts).status == 202)
        }
        try await Task.sleep(for: .seconds(2))
        let newest = try await newestEventID(d)
        let files = TemporaryDirectory()
        // The last reader takes some 300 KB a second, for a few seconds.
        for (n, pace) in [[], [], ["--limit-rate", "300k"]].enumerated() {
            let reader = try ExternalProgram("curl", pace + ["-sN", "--max-time", pace.isEmpty ? "5" : "12", d.baseURL + "/v1/events?since=0"],
                                             logPath: files.path + "/read\(n).txt")
            let exit = await reader.waitForExit(timeout: .seconds(20))
            // 28: still open when curl gave up waiting, as a stream should be; 18: cut short.
            #expect(exit == 28, "curl exited \(String(describing: exit))")
            let ids = Self.framedIDs(reader.log)
            #expect(ids.last == newest)
            #expect(ids == Array(1...newest), "\(ids.count) ids of \(newest)")
        }
    }

    /// The ids of the frames in an event stream's body as curl wrote it.
    static func framedIDs(_ body: String) -> [Int] {
        body.components(separatedBy: "\n\n").compactMap { frame in
            frame.split(separator: "\n").first { $0.hasPrefix("id: ") }.flatMap { Int($0.dropFirst(4)) }
        }
    }
}

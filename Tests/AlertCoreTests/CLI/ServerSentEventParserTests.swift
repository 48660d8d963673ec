import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdHTTPServer
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

/// The event-stream parser against the WHATWG rules, fed whole and in pieces.
@Suite struct ServerSentEventParserTests {
    /// Every event `text` yields, fed in one piece and byte by byte; both must agree.
    func parse(_ text: String) -> [ServerSentEvent] {
        var whole = ServerSentEventParser()
        let all = whole.feed(Array(text.utf8))
        var split = ServerSentEventParser()
        let pieces = text.utf8.flatMap { split.feed([$0]) }
        #expect(all == pieces, "byte-by-byte feeding changed the result")
        return all
    }

    @Test func alertdFrames() {
        let events = parse("retry: 1000\n\nid: 7\nevent: alert.created\ndata: {\"alert_id\":\"x\"}\n\n")
        #expect(events == [ServerSentEvent(id: "7", type: "alert.created", data: "{\"alert_id\":\"x\"}")])
    }

    @Test func multiLineDataJoinsWithNewlines() {
        #expect(parse("data: one\ndata: two\ndata:\ndata:  three\n\n") == [ServerSentEvent(data: "one\ntwo\n\n three")])
    }

    @Test func commentsAndUnknownFieldsAreIgnored() {
        #expect(parse(": keep-alive\n\n").isEmpty)
        #expect(parse(": hello\nfoo: bar\ndata: x\n: between\n\n") == [ServerSentEvent(data: "x")])
    }

    @Test func crlfAndLoneCREndLines() {
        #expect(parse("id: 1\r\ndata: a\r\n\r\ndata: b\r\rdata: c\n\n").map(\.data) == ["a", "b", "c"])
        // A chunk that ends between CR and LF does not make an extra blank line.
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("data: a\r".utf8)).isEmpty)
        #expect(parser.feed(Array("\ndata: b\r\n".utf8)).isEmpty)
        #expect(parser.feed(Array("\r\n".utf8)) == [ServerSentEvent(data: "a\nb")])
    }

    @Test func idCarriesOverAndAFrameWithoutDataStillSetsIt() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("retry: 1000\nid: 41\n\n".utf8)).isEmpty)
        #expect(parser.lastEventID == "41")
        #expect(parser.retry == .milliseconds(1000))
        #expect(parser.feed(Array("data: x\n\nid: 42\ndata: y\n\n".utf8)) == [
            ServerSentEvent(id: "41", data: "x"), ServerSentEvent(id: "42", data: "y"),
        ])
        #expect(parser.lastEventID == "42")
    }

    /// An id no header could carry back (a control character) is ignored
    /// as one holding NUL is: the stream resumes from the last good one.
    @Test func anIdWithAControlCharacterIsIgnored() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("id: 5\ndata: a\n\nid: 6\u{1}\ndata: b\n\nid: 7\tx\ndata: c\n\n".utf8)) == [
            ServerSentEvent(id: "5", data: "a"), ServerSentEvent(id: "5", data: "b"), ServerSentEvent(id: "5", data: "c"),
        ])
        #expect(parser.lastEventID == "5")
    }

    @Test func fieldsWithoutColonOrSpace() {
        #expect(parse("data\n\n") == [ServerSentEvent(data: "")])
        #expect(parse("data:x\nevent:ping\n\n") == [ServerSentEvent(type: "ping", data: "x")])
        #expect(parse("\u{FEFF}data: bom\n\n") == [ServerSentEvent(data: "bom")])
    }

    @Test func retryTakesOnlyDigits() {
        var parser = ServerSentEventParser()
        _ = parser.feed(Array("retry: 1.5\nretry: x\n\n".utf8))
        #expect(parser.retry == nil)
        _ = parser.feed(Array("retry:250\n\n".utf8))
        #expect(parser.retry == .milliseconds(250))
    }

    /// A server sending one endless line or endless data cannot grow the
    /// watcher without bound: past the limit the event is dropped whole, and
    /// the stream goes on.
    @Test func anOversizedEventIsDroppedAndTheNextOneRead() {
        var parser = ServerSentEventParser()
        let block = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        var events = parser.feed(Array("id: 1\ndata: ".utf8))
        for _ in 0..<(3 * ServerSentEventParser.maxEventBytes / block.count) { events += parser.feed(block) }
        events += parser.feed(Array("\n\n".utf8))
        for _ in 0..<20 { events += parser.feed(Array("data: ".utf8) + block + Array("\n".utf8)) }
        events += parser.feed(Array("\nid: 2\ndata: ok\n\n".utf8))
        #expect(events == [ServerSentEvent(id: "2", type: "message", data: "ok")])
    }

    /// `retry: 0` from the server does not make a hot reconnect loop.
    @Test func theReconnectDelayHasAFloor() {
        #expect(AlertdClient.reconnectDelay(.zero, failures: 0) == AlertdClient.minReconnectDelay)
        #expect(AlertdClient.reconnectDelay(.zero, failures: 3) == AlertdClient.minReconnectDelay * 8)
        #expect(AlertdClient.reconnectDelay(nil, failures: 0) == .seconds(1))
        #expect(AlertdClient.reconnectDelay(.seconds(30), failures: 0) == AlertdClient.maxReconnectDelay)
    }

    /// The line watch prints before it reconnects says what broke, not to retry (it does).
    @Test func aLostStreamIsToldWithoutAdvice() {
        let lost = AlertdClientError.transport(.connectionLost(url: "http://localhost/v1/events", reason: "connection reset by peer"))
        #expect(lost.summary == "the connection broke: connection reset by peer")
        #expect(lost.message.contains("Retry"))
        let down = AlertdClientError.unreachable(endpoint: .unixSocket("/run/alertd/alertd.sock"), reason: "connection refused")
        #expect(down.summary == "cannot reach alertd: connection refused")
    }

    @Test func anUnfinishedEventIsDroppedAtEndOfStreamButTheIDIsKept() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("id: 5\ndata: a\n\nid: 6\ndata: half".utf8)).map(\.id) == ["5"])
        parser.endOfStream()
        #expect(parser.lastEventID == "5")
        #expect(parser.feed(Array("data: b\n\n".utf8)) == [ServerSentEvent(id: "5", data: "b")])
    }
}

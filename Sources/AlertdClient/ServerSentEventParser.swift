import FoundationEssentials

/// Turns the bytes of a `text/event-stream` into events, as the WHATWG HTML
/// standard's "event stream interpretation" says: lines end in CRLF, LF or
/// CR (also when a chunk ends between CR and LF); `:` starts a comment; one
/// space after the field's colon is dropped; `data:` lines accumulate; a
/// blank line dispatches; `id:` sets the last event id even for a frame
/// without data; `retry:` takes only digits.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for event in parser.feed(chunk) { … }
/// ```
///
/// A pure value: feed it chunks cut anywhere; it keeps the partial line and
/// event between calls.
public struct ServerSentEventParser: Sendable {
    /// The id to resume from (`Last-Event-ID`): the last one dispatched.
    public private(set) var lastEventID: String?
    /// The reconnection delay the server asked for, if it did.
    public private(set) var retry: Duration?

    private var line: [UInt8] = []
    /// The current line or event passed ``maxEventBytes``: it is dropped.
    private var oversized = false
    /// The previous chunk ended in CR: a leading LF belongs to that line end.
    private var skipLineFeed = false
    /// Before the first byte: a UTF-8 byte order mark there is dropped.
    private var atStart = true
    private var data = ""
    private var hasData = false
    private var type = ""
    private var pendingID: String?

    /// The longest line or event data kept, in bytes; a longer event is
    /// dropped whole. alertd's largest event is well under it, and a server
    /// streaming one endless line grew a watcher past a gigabyte.
    public static let maxEventBytes = 1 << 20

    public init(lastEventID: String? = nil) {
        self.lastEventID = lastEventID
        pendingID = lastEventID
    }

    /// The events completed by `bytes`, in order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        let contiguous: Void? = bytes.withContiguousStorageIfAvailable { feed($0, into: &events) }
        if contiguous == nil {
            Array(bytes).withUnsafeBufferPointer { feed($0, into: &events) }
        }
        return events
    }

    /// Takes a line's bytes a run at a time, up to its end: one byte at a
    /// time, a megabyte line took long enough for the connection's own
    /// bound on unread chunks to cut the stream.
    private mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, into events: inout [ServerSentEvent]) {
        var start = 0
        while start < bytes.count {
            let byte = bytes[start]
            if byte == 0x0A || byte == 0x0D {
                start += 1
                if byte == 0x0A, skipLineFeed {
                    skipLineFeed = false
                    continue
                }
                skipLineFeed = byte == 0x0D
                if let event = process(line) { events.append(event) }
                line.removeAll(keepingCapacity: true)
                continue
            }
            skipLineFeed = false
            var end = start + 1
            while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
            let kept = min(end - start, Self.maxEventBytes - line.count)
            line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<start + kept]))
            if kept < end - start { oversized = true }
            start = end
        }
    }

    /// The connection ended: an event without its blank line is dropped, as
    /// the standard says; the last event id and retry are kept for resuming.
    public mutating func endOfStream() {
        line.removeAll()
        oversized = false
        skipLineFeed = false
        atStart = true
        data = ""
        hasData = false
        type = ""
        pendingID = lastEventID
    }

    private mutating func process(_ raw: [UInt8]) -> ServerSentEvent? {
        var bytes = raw[...]
        if atStart {
            atStart = false
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        }
        if bytes.isEmpty { return dispatch() }
        if bytes.first == UInt8(ascii: ":") { return nil }
        let field: String
        let value: String
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            field = String(decoding: bytes[..<colon], as: UTF8.self)
            var rest = bytes[bytes.index(after: colon)...]
            if rest.first == UInt8(ascii: " ") { rest = rest.dropFirst() }
            value = String(decoding: rest, as: UTF8.self)
        } else {
            field = String(decoding: bytes, as: UTF8.self)
            value = ""
        }
        switch field {
        case "event":
            type = value
        case "data":
            if hasData { data += "\n" }
            data += value
            hasData = true
            if data.utf8.count > Self.maxEventBytes {
                oversized = true
                data = ""
            }
        case "id":
            // WHATWG ignores an id holding NUL. One holding any other control
            // character is ignored too: it goes back as `Last-Event-ID`, a
            // header that cannot carry it, and refused there it failed every
            // reconnect, the stream silent for good.
            if !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { pendingID = value }
        case "retry":
            if !value.isEmpty, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
               let ms = Int64(value) {
                retry = .milliseconds(ms)
            }
        default:
            break  // unknown fields are ignored
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        lastEventID = pendingID
        defer {
            data = ""
            hasData = false
            type = ""
            oversized = false
        }
        guard hasData, !oversized else { return nil }
        return ServerSentEvent(id: lastEventID, type: type.isEmpty ? "message" : type, data: data)
    }
}

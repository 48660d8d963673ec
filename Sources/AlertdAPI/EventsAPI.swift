import FoundationEssentials
import AlertdHTTP
import AlertdLogging
import AlertdStore
import AlertModel
import AlertdServices

/// `GET /v1/events`: Server-Sent Events from the store's event log. Every
/// event has the log's sequence number as its SSE id, so a client that
/// reconnects with `Last-Event-ID` (or `?since=`) misses nothing and sees
/// nothing twice. `?since=now` starts after the newest event; the first
/// frame then carries that event's id (`id: N` without data), so even a
/// client that saw no event yet resumes from the right place.
public struct EventsAPI: Sendable {
    package let store: any AlertStore
    package let keepAlive: Duration
    /// The newest events, read once for all the streams that have caught up.
    package let tail: EventTail

    public init(store: any AlertStore, changes: ChangeSignal, keepAlive: Duration = .seconds(15)) {
        self.store = store
        self.keepAlive = keepAlive
        tail = EventTail(store: store, commits: changes)
    }

    public func register(in router: inout APIRouter) {
        router.add("GET", "/v1/events", access: .token(.read)) { req throws(APIError) in
            try await stream(req.http, stillAllowed: req.stillAllowed)
        }
    }

    /// The stream for `request`. It ends once `stillAllowed` says no (its
    /// token taken out of the tokens file and reloaded, its console session
    /// signed out): asked before each page of events and keep-alive, so no
    /// event reaches a caller after it lost its access.
    package func stream(_ request: HTTPRequest, stillAllowed: @escaping @Sendable () -> Bool = { true }) async throws(APIError)
        -> HTTPResponse {
        guard request.queryValues("since").count <= 1 else {
            throw .invalidQuery("`since` is given \(request.queryValues("since").count) times; give it once.")
        }
        let raw = request.headers["Last-Event-ID"] ?? request.queryValue("since") ?? "0"
        let since: Int64
        var announce = ""
        if raw.trimmingSpaces() == "now" {
            // Resolved before answering: whatever happens once the client has
            // the response head is in the stream.
            since = try await APIError.storeCall(await store.lastEventSequence())
            announce = "id: \(since)\n"
        } else {
            guard let given = QueryNumber.value(raw.trimmingSpaces()) else {
                throw .invalidQuery("`since` (or Last-Event-ID) must be an event id or `now`, got `\(TextPolicy.spellingRefused(in: raw))`.")
            }
            // An id past the newest is another store's (wiped, or restored
            // from a backup): waiting for this one's ids to pass it would
            // hide every event until then, so the stream starts over.
            let newest = given > 0 ? try await APIError.storeCall(await store.lastEventSequence()) : 0
            since = given > newest ? 0 : given
        }
        let store = self.store
        let tail = self.tail
        let keepAlive = self.keepAlive
        // The first page is read before answering, so a store that is down
        // gets a 503 rather than a 200 stream that ends at once.
        let firstPage = try await APIError.storeCall(await store.events(after: since, limit: Self.storePageSize))
        // Six chunks of up to 16 KB wait here while the server holds its
        // 128 KB (and one chunk past it) for a client, and one more is
        // offered again: 256 KB a stream, and the frames of the page in hand,
        // for a client that reads nothing until its connection's idle
        // timeout ends it.
        let (stream, continuation) = AsyncStream<Data>.makeStream(bufferingPolicy: .bufferingOldest(6))
        let producer = Task {
            await tail.open()
            defer { Task { await tail.close() } }
            var last = since
            var lastFrame = ContinuousClock.now
            var prefetched: [StoredEvent]? = firstPage
            // Tells the client how long to wait before reconnecting.
            continuation.yield(Data("retry: 1000\n\(announce)\n".utf8))
            while !Task.isCancelled {
                guard stillAllowed() else { break }
                let frames: [EventTail.Frame]
                // The generation of the tail's news to wait for a change from;
                // nil to look again at once.
                var seen: UInt64?
                if let page = prefetched {
                    frames = page.map(EventTail.Frame.init)
                    prefetched = nil
                } else {
                    switch await tail.page(after: last) {
                    case .frames(let kept, let generation):
                        frames = kept
                        seen = generation
                    case .behind:
                        let generation = tail.arrived.generation
                        // The head is sent, so ending the stream is all that is left;
                        // the client reconnects with Last-Event-ID and gets the 503 then.
                        guard let page = try? await store.events(after: last, limit: Self.storePageSize) else {
                            continuation.finish()
                            return
                        }
                        frames = page.map(EventTail.Frame.init)
                        if page.isEmpty { seen = generation }
                    }
                }
                // Frames go out a few kilobytes at a time: one chunk an event
                // cost a stream's server a wake-up and a write an event.
                var from = frames.startIndex
                while from < frames.endIndex {
                    var to = from, size = 0
                    while to < frames.endIndex, to == from || size + frames[to].bytes.count <= Self.chunkBytes {
                        size += frames[to].bytes.count
                        to += 1
                    }
                    var chunk = Data(capacity: size)
                    for frame in frames[from..<to] { chunk.append(frame.bytes) }
                    // The buffer is the backpressure: while the client has the
                    // server's bound unread it fills, and the same events are offered
                    // again after a pause (2 ms for a client reading fast, growing to
                    // 100 ms for one that has stopped) rather than dropped.
                    var pause = Duration.milliseconds(2)
                    while true {
                        switch continuation.yield(chunk) {
                        case .enqueued: break
                        case .dropped:
                            try? await Task.sleep(for: pause)
                            if Task.isCancelled { return }
                            pause = min(pause * 2, .milliseconds(100))
                            continue
                        case .terminated: return
                        @unknown default: return
                        }
                        break
                    }
                    last = frames[to - 1].sequence
                    from = to
                }
                if !frames.isEmpty { lastFrame = .now }
                guard frames.count < EventTail.pageSize, let seen else { continue }
                await tail.arrived.wait(changedFrom: seen, timeout: keepAlive)
                // Silence is measured from the last frame sent.
                if ContinuousClock.now - lastFrame >= keepAlive, !Task.isCancelled, stillAllowed() {
                    // A comment line keeps proxies and idle timeouts from closing the stream.
                    if case .terminated = continuation.yield(Data(": keep-alive\n\n".utf8)) { return }
                    lastFrame = .now
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in producer.cancel() }
        return HTTPResponse(
            status: 200,
            headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"],
            stream: stream)
    }

    /// The most bytes of frames sent as one chunk (one frame may be more).
    static let chunkBytes = 16 * 1024
    /// Events read from the store at a time by a stream further behind than
    /// the tail keeps: its frames are the stream's own, held while its client
    /// catches up (500 were some 250 KB a stalled stream).
    static let storePageSize = 100
    package static func frame(_ event: StoredEvent) -> Data {
        var data = event.data
        data["alert_id"] = event.alertID.rawValue
        data["at"] = Logger.timestamp(event.at)
        data["type"] = event.kind.rawValue
        var json = JSONObject()
        json.strings(data)
        return Data("id: \(event.sequence)\nevent: \(event.kind.rawValue)\ndata: \(json.json)\n\n".utf8)
    }
}

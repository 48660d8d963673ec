import FoundationEssentials
import AlertdCurl

extension AlertdClient {
    /// What ``events(since:)`` yields.
    public enum EventStreamItem: Sendable {
        /// The stream is open: from here on every event arrives. `resumed` is
        /// false the first time. A reader that follows an alert's state reads
        /// it again here, so nothing decided in between goes unseen.
        case connected(resumed: Bool)
        /// One event, in the order of alertd's log.
        case event(ServerSentEvent)
        /// The connection dropped; the stream reconnects by itself after the
        /// delay alertd asked for, and resumes after the last event seen.
        case disconnected(AlertdClientError)
    }

    /// The longest silence before the stream counts as dead; alertd sends a
    /// keep-alive comment every 15 s.
    package static let eventStreamIdleTimeout = Duration.seconds(45)
    /// The longest wait between attempts to reconnect.
    package static let maxReconnectDelay = Duration.seconds(10)

    /// Follows `GET /v1/events` for as long as the caller iterates: the events
    /// after id `since`, or with nil those from now on. When the connection
    /// drops it reconnects with `Last-Event-ID`, so no event is missed or seen
    /// twice. The first connection's failure ends the stream with an
    /// ``AlertdClientError``; later outages are waited out, retrying, except
    /// an answer that will not change (e.g. 401).
    ///
    /// ```swift
    /// for try await item in client.events() {
    ///     if case .event(let event) = item { print(event.type, event.data) }
    /// }
    /// ```
    public func events(since: Int64? = nil) -> EventStream {
        let (stream, continuation) = AsyncThrowingStream<EventStreamItem, any Error>.makeStream(
            bufferingPolicy: .bufferingOldest(Self.maxUnreadEvents))
        let client = self
        let unread = UnreadEvents()
        let task = Task {
            do throws(AlertdClientError) {
                try await client.followEvents(since: since, into: continuation, unread: unread)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return EventStream(items: stream, unread: unread)
    }

    private func followEvents(
        since: Int64?, into out: AsyncThrowingStream<EventStreamItem, any Error>.Continuation, unread: UnreadEvents
    ) async throws(AlertdClientError) {
        var parser = ServerSentEventParser()
        var connected = false
        var failures = 0
        while !Task.isCancelled {
            let resumeFrom = parser.lastEventID.flatMap { $0.isEmpty ? nil : $0 }
            let body: AsyncThrowingStream<Data, any Error>
            do {
                body = try await openEvents(since: since, resumeFrom: resumeFrom)
            } catch {
                if Task.isCancelled { return }
                // The first connection's failure is the caller's to report; later ones are outages.
                guard connected, error.isOutage else { throw error }
                failures += 1
                try? await Task.sleep(for: Self.reconnectDelay(parser.retry, failures: failures))
                continue
            }
            out.yield(.connected(resumed: connected))
            connected = true
            failures = 0
            var lost: AlertdClientError
            var behind = false
            do {
                reading: for try await chunk in body {
                    for event in parser.feed(chunk) {
                        if unread.admit(event) {
                            guard case .dropped = out.yield(.event(event)) else { continue }
                        }
                        behind = true
                        break reading
                    }
                }
                lost = .transport(.connectionLost(url: endpoint.description + "/v1/events", reason: "alertd closed the event stream"))
            } catch let error as HTTPClientError {
                lost = AlertdClientError(error, endpoint: endpoint)
            } catch {
                lost = .transport(.connectionLost(url: endpoint.description + "/v1/events", reason: "\(error)"))
            }
            if Task.isCancelled { return }
            // An event was dropped: going on would miss it without a word.
            if behind {
                throw .transport(.connectionLost(
                    url: endpoint.description + "/v1/events",
                    reason: "events came faster than they were read, \(Self.maxUnreadEvents) or \(Self.maxUnreadEventBytes >> 20) MiB of them ahead"))
            }
            parser.endOfStream()
            out.yield(.disconnected(lost))
            try? await Task.sleep(for: Self.reconnectDelay(parser.retry, failures: 0))
        }
    }

    /// How many events may wait for their reader. A server sending them
    /// faster than they are read (shown on a terminal) ends the stream with
    /// an error past it, rather than growing the reader without bound.
    public static let maxUnreadEvents = 4_096
    /// The same bound in bytes: an event may hold up to
    /// ``ServerSentEventParser/maxEventBytes``, and 4,096 of those are 4 GiB.
    public static let maxUnreadEventBytes = 32 << 20

    /// The server's delay, doubled for each failed attempt in a row, at
    /// least ``minReconnectDelay`` and at most ``maxReconnectDelay``.
    package static func reconnectDelay(_ retry: Duration?, failures: Int) -> Duration {
        let base = max(retry ?? .seconds(1), Self.minReconnectDelay)
        return min(base * (1 << min(failures, 4)), Self.maxReconnectDelay)
    }

    /// The shortest wait before reconnecting, whatever the server's `retry:`
    /// says: at `retry: 0` a stream the server closes at once was reopened
    /// thousands of times a second.
    package static let minReconnectDelay = Duration.milliseconds(250)

    /// Opens the stream: `?since=` the first time, `Last-Event-ID` when resuming.
    private func openEvents(since: Int64?, resumeFrom: String?) async throws(AlertdClientError) -> AsyncThrowingStream<Data, any Error> {
        let path = resumeFrom == nil ? "/v1/events?since=\(since.map(String.init) ?? "now")" : "/v1/events"
        // The stream stays open as long as the reader wants it; `idleTimeout` notices a dead one.
        var request = endpoint.request("GET", path, connectTimeout: connectTimeout, timeout: .seconds(366 * 86_400))
        request.headers.set("Accept", "text/event-stream")
        if let resumeFrom { request.headers.set("Last-Event-ID", resumeFrom) }
        request.idleTimeout = Self.eventStreamIdleTimeout
        let response: HTTPClientStreamingResponse
        do {
            response = try await http.stream(request)
        } catch {
            throw AlertdClientError(error, endpoint: endpoint)
        }
        guard response.status == 200 else {
            var body = Data()
            do {
                for try await chunk in response.body {
                    body.append(chunk)
                    if body.count > 64 * 1024 { break }
                }
            } catch {
                // What arrived is enough to tell the error.
            }
            throw failure(status: response.status, body: body, expected: 200)
        }
        return response.body
    }
}

extension AlertdClientError {
    /// Whether waiting may help: alertd is not there (yet), the connection
    /// broke, or it, or a proxy before it (in a page of its own), answered 5xx.
    package var isOutage: Bool {
        switch self {
        case .unreachable, .unanswered, .transport: true
        case .api(let status, _), .badResponse(_, let status, _): status >= 500
        case .alreadyDecided: false
        }
    }
}

/// One event of a `text/event-stream`, as the WHATWG HTML standard's
/// "dispatch the event" step makes it.
public struct ServerSentEvent: Sendable, Equatable {
    /// The stream's last event id when the event was dispatched: the event's
    /// own `id:` or the latest one before it; nil before any. alertd's ids
    /// are its event log's sequence numbers.
    public var id: String?
    /// The `event:` field; `message` when the event named none.
    public var type: String
    /// The `data:` lines joined with `\n`.
    public var data: String

    public init(id: String? = nil, type: String = "message", data: String) {
        self.id = id
        self.type = type
        self.data = data
    }
}

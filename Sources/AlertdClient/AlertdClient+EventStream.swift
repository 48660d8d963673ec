import Synchronization

extension AlertdClient {
    /// What ``events(since:)`` returns: its items in order, with what waits
    /// unread counted in events and in bytes, so a server that sends faster
    /// than its reader reads ends the stream rather than growing the reader.
    public struct EventStream: AsyncSequence, Sendable {
        public typealias Element = EventStreamItem

        let items: AsyncThrowingStream<EventStreamItem, any Error>
        let unread: UnreadEvents

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(items: items.makeAsyncIterator(), unread: unread)
        }

        public struct AsyncIterator: AsyncIteratorProtocol {
            var items: AsyncThrowingStream<EventStreamItem, any Error>.AsyncIterator
            let unread: UnreadEvents

            public mutating func next() async throws -> EventStreamItem? {
                let item = try await items.next()
                if case .event(let event)? = item { unread.read(event) }
                return item
            }
        }
    }

    /// The bytes of events yielded and not yet read, kept by the stream's
    /// writer and its reader on different tasks.
    final class UnreadEvents: Sendable {
        private let bytes = Atomic<Int>(0)

        /// Counts `event` in if the unread bytes stay within
        /// ``AlertdClient/maxUnreadEventBytes``; false, and nothing counted, if not.
        func admit(_ event: ServerSentEvent) -> Bool {
            let size = Self.size(of: event)
            guard bytes.add(size, ordering: .relaxed).newValue > AlertdClient.maxUnreadEventBytes else { return true }
            bytes.subtract(size, ordering: .relaxed)
            return false
        }

        func read(_ event: ServerSentEvent) {
            bytes.subtract(Self.size(of: event), ordering: .relaxed)
        }

        private static func size(of event: ServerSentEvent) -> Int {
            event.data.utf8.count + event.type.utf8.count + (event.id?.utf8.count ?? 0)
        }
    }
}

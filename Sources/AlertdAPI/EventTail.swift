import FoundationEssentials
import AlertdStore
import AlertdServices

/// The newest events of the store's log, read once for every event stream
/// that has caught up with them, their frames made once. Each stream read
/// the store itself at every commit (a dispatcher's claim included) and
/// made its own frames: 500 streams opened with a read-only token took 1.7
/// of the 2 cores at 50 alerts a second, and held intake to a sixth.
///
/// While a stream is open, one task follows the store's commits; the
/// streams wake only when it has read new events (``arrived``), or at
/// their keep-alive.
package actor EventTail {
    /// One event as a stream sends it.
    package struct Frame: Sendable {
        package let sequence: Int64
        package let bytes: Data

        package init(_ event: StoredEvent) {
            sequence = event.sequence
            bytes = EventsAPI.frame(event)
        }
    }

    /// What a stream that has sent every event through some id gets next.
    package enum Page: Sendable {
        /// The events after it that are kept, up to a page, as of
        /// ``arrived``'s generation `seen`: it waits for a change from that.
        case frames([Frame], seen: UInt64)
        /// It is further behind than what is kept (or nothing is yet, or
        /// the store failed the last look): it reads the store itself.
        case behind
    }

    /// The most events kept: a few pages, so that a stream a page or two
    /// behind catches up from here.
    package static let kept = 2_048
    package static let pageSize = 500
    /// The most pages one look reads; a stream further behind reads the rest.
    private static let pagesALook = 8

    private let read: @Sendable (_ after: Int64, _ limit: Int) async throws(StoreError) -> [StoredEvent]
    private let newest: @Sendable () async throws(StoreError) -> Int64
    private let commits: ChangeSignal
    /// Bumped when new frames are kept, or the store failed a look.
    package nonisolated let arrived = ChangeSignal()

    /// The frames of every event after `base`, oldest first; nil until read.
    private var base: Int64?
    private var frames: [Frame] = []
    private var streams = 0
    private var follower: Task<Void, Never>?

    package init(store: any AlertStore, commits: ChangeSignal) {
        self.init(commits: commits, read: { after, limit throws(StoreError) in try await store.events(after: after, limit: limit) },
                  newest: { () throws(StoreError) in try await store.lastEventSequence() })
    }

    package init(commits: ChangeSignal,
                 read: @escaping @Sendable (_ after: Int64, _ limit: Int) async throws(StoreError) -> [StoredEvent],
                 newest: @escaping @Sendable () async throws(StoreError) -> Int64) {
        self.commits = commits
        self.read = read
        self.newest = newest
    }

    /// A stream opens: the commits are followed while any is open.
    package func open() {
        streams += 1
        guard follower == nil else { return }
        follower = Task { await self.follow() }
    }

    package func close() {
        streams -= 1
    }

    /// The kept events after `last`.
    package func page(after last: Int64) -> Page {
        guard let base, last >= base else { return .behind }
        // Oldest first, so the first after `last` is found by halving.
        var low = 0, high = frames.count
        while low < high {
            let mid = (low + high) / 2
            if frames[mid].sequence <= last { low = mid + 1 } else { high = mid }
        }
        return .frames(Array(frames[low..<min(frames.count, low + Self.pageSize)]), seen: arrived.generation)
    }

    private func follow() async {
        var lastLook = ContinuousClock.now
        while streams > 0, !Task.isCancelled {
            let seen = commits.generation
            lastLook = .now
            let caughtUp = await look()
            // The last stream's close, with nothing committed, is seen within a second.
            if caughtUp { _ = await commits.wait(changedFrom: seen, timeout: .seconds(1)) }
            // Each look that finds events wakes every stream: with many open,
            // commits are taken a few at a time, a wake-up each bringing more.
            // After a quiet spell the next look is at once.
            let next = lastLook + Self.gap(streams: streams)
            if next > .now { try? await Task.sleep(until: next, clock: .continuous) }
        }
        follower = nil
        // Nothing is kept for no one: the next stream's follower reads afresh.
        base = nil
        frames = []
    }

    /// The least time between two looks: 50 µs a stream open, up to 25 ms
    /// (40 wake-ups a second) with 500. A stream's events wait up to that
    /// much longer under a steady flow; 500 streams each woken at every
    /// commit took most of two cores at 50 alerts a second.
    package static func gap(streams: Int) -> Duration {
        .microseconds(min(25_000, 50 * max(0, streams)))
    }

    /// Reads what was committed since the last look, up to a few pages.
    /// Whether it has read all there was.
    private func look() async -> Bool {
        do {
            if base == nil {
                base = try await newest()
                return true
            }
            var through = frames.last?.sequence ?? base!
            var added = false
            defer {
                if frames.count > Self.kept {
                    base = frames[frames.count - Self.kept - 1].sequence
                    frames.removeFirst(frames.count - Self.kept)
                }
                if added { arrived.notify() }
            }
            for _ in 0..<Self.pagesALook {
                let events = try await read(through, Self.pageSize)
                frames += events.map(Frame.init)
                added = added || !events.isEmpty
                through = events.last?.sequence ?? through
                if events.count < Self.pageSize { return true }
            }
            return false
        } catch {
            // Read from the store again once it answers. The streams, told,
            // read it themselves, and end if it fails them too.
            base = nil
            frames = []
            arrived.notify()
            return true
        }
    }
}

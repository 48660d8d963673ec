import Foundation
import Synchronization
import Testing
@testable import AlertModel
@testable import AlertdStore
@testable import AlertdServices
@testable import AlertdAPI

/// Event streams that have caught up share one reading of the store per
/// commit: each stream read the store at every commit, so an alert cost
/// more with every stream a read-only token held open.
@Suite struct EventTailTests {
    /// An event log the tail reads, counting its reads.
    final class Log: Sendable {
        private let state = Mutex<(events: [StoredEvent], reads: Int)>(([], 0))

        var reads: Int { state.withLock { $0.reads } }

        func append(_ count: Int) {
            state.withLock { s in
                for _ in 0..<count {
                    let n = Int64(s.events.count + 1)
                    s.events.append(StoredEvent(sequence: n, kind: .alertCreated, alertID: AlertID(trusted: "a\(n)"), at: Date(), data: [:]))
                }
            }
        }

        func events(after sequence: Int64, limit: Int) -> [StoredEvent] {
            state.withLock { s in
                s.reads += 1
                return Array(s.events.drop { $0.sequence <= sequence }.prefix(limit))
            }
        }

        var newest: Int64 { state.withLock { Int64($0.events.count) } }
    }

    /// A stream as `EventsAPI` runs one: what the tail keeps, else the log.
    static func follow(_ tail: EventTail, _ log: Log, from start: Int64, until end: Int64) async -> [Int64] {
        var last = start
        var seen: [Int64] = []
        while last < end {
            switch await tail.page(after: last) {
            case .frames(let frames, let generation):
                seen += frames.map(\.sequence)
                last = frames.last?.sequence ?? last
                if frames.isEmpty { await tail.arrived.wait(changedFrom: generation, timeout: .seconds(1)) }
            case .behind:
                let generation = tail.arrived.generation
                let page = log.events(after: last, limit: EventTail.pageSize)
                seen += page.map(\.sequence)
                last = page.last?.sequence ?? last
                if page.isEmpty { await tail.arrived.wait(changedFrom: generation, timeout: .seconds(1)) }
            }
        }
        return seen
    }

    @Test func streamsThatHaveCaughtUpShareOneReadingOfEachCommit() async throws {
        let log = Log()
        log.append(10)
        let commits = ChangeSignal()
        let tail = EventTail(commits: commits, read: { after, limit in log.events(after: after, limit: limit) },
                             newest: { log.newest })
        let streams = 40, rounds = 20
        for _ in 0..<streams { await tail.open() }
        #expect(await eventually { if case .frames = await tail.page(after: 10) { true } else { false } })
        let readsBefore = log.reads
        let end = Int64(10 + rounds * 3)
        async let followed = withTaskGroup(of: [Int64].self) { group in
            for _ in 0..<streams { group.addTask { await Self.follow(tail, log, from: 10, until: end) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        for _ in 0..<rounds {
            try await Task.sleep(for: .milliseconds(20))
            log.append(3)
            commits.notify()
            // A commit with no event (a dispatcher's claim) wakes no stream.
            commits.notify()
        }
        let seen = await followed
        #expect(seen.count == streams)
        for one in seen { #expect(one == Array(11...end)) }
        // About one read a commit (two with the empty ones), not one a stream:
        // 40 streams reading each of 40 commits would be 1,600.
        #expect(log.reads - readsBefore <= 2 * 2 * rounds + 10, "\(log.reads - readsBefore) reads")
        for _ in 0..<streams { await tail.close() }
    }

    @Test func aStreamFurtherBehindThanWhatIsKeptReadsTheStoreItself() async throws {
        let log = Log()
        let commits = ChangeSignal()
        let tail = EventTail(commits: commits, read: { after, limit in log.events(after: after, limit: limit) },
                             newest: { log.newest })
        await tail.open()
        #expect(await eventually { if case .frames = await tail.page(after: 0) { true } else { false } })
        log.append(EventTail.kept + 700)
        commits.notify()
        let newest = Int64(EventTail.kept + 700)
        #expect(await eventually {
            if case .frames(let frames, _) = await tail.page(after: newest - 1) { frames.map(\.sequence) == [newest] } else { false }
        })
        guard case .behind = await tail.page(after: 100) else {
            Issue.record("a stream behind what is kept was served from it")
            return
        }
        #expect(await Self.follow(tail, log, from: 0, until: newest) == Array(1...newest))
        await tail.close()
    }
}

import Foundation
import Synchronization
import Testing
@testable import AlertModel
@testable import AlertdSQLite
@testable import AlertdStore
@testable import AlertdSQLiteStore

/// Intake's new rows wait for the end of their group-commit batch
/// (``PendingRows``); every job after them in the batch must still find
/// them as if each job had committed alone.
@Suite struct PendingRowsTests {
    /// The jobs each commit held, in order.
    final class Commits: Sendable {
        private let sizes = Mutex<[Int]>([])
        func add(_ n: Int) { sizes.withLock { $0.append(n) } }
        var all: [Int] { sizes.withLock { $0 } }
    }

    @Test func laterJobsOfABatchFindTheRowsHeldForItsEnd() async throws {
        let dir = TemporaryDirectory()
        let commits = Commits()
        let store = try SQLiteAlertStore(path: dir.path + "/held.db") { commits.add($0) }
        let blocker = try SQLiteConnection(path: dir.path + "/held.db")
        func spec(_ title: String, key: String? = nil) throws -> Alert {
            var b = AlertSpec.Builder().title(title)
            if let key { b = b.dedupKey(key) }
            return Alert(spec: try b.build().get())
        }
        let first = try spec("first", key: "disk/db1")
        let again = try spec("again", key: "disk/db1")
        let second = try spec("second")
        let other = try spec("other")
        func submit(_ a: Alert) -> Task<[SubmissionResult], any Error> {
            Task { try await store.submit([AlertSubmission(alert: a, presenters: ["one"])]) }
        }

        // Another connection holds the write lock: the writer takes the
        // first job and waits on it, and the rest queue, in order, for one
        // batch. Each job is queued before the next is started.
        func queued(_ n: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while store.writer.waitingJobs < n {
                guard ContinuousClock.now < deadline else {
                    Issue.record("\(n) jobs never queued: \(store.writer.waitingJobs)")
                    return
                }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        try blocker.withLock { c throws(SQLiteError) in try c.execute("BEGIN IMMEDIATE") }
        let alone = submit(other)
        // The idle writer takes it as soon as it is queued, and waits in BEGIN.
        try await Task.sleep(for: .milliseconds(200))
        let submitted = submit(first)
        try await queued(1)
        let repeated = submit(again)
        try await queued(2)
        let plain = submit(second)
        try await queued(3)
        // Not intake: it reads the alert with a statement of its own.
        let decided = Task { try await store.decide(second.id, AlertDecision(outcome: .confirmed, actor: "t")) }
        try await queued(4)
        try blocker.withLock { c throws(SQLiteError) in try c.execute("COMMIT") }

        _ = try await alone.value
        #expect(try await submitted.value.first?.id == first.id)
        // The same dedup key while the first alert's row is still held: folded into it.
        let folded = try #require(try await repeated.value.first)
        #expect(folded.id == first.id && folded.deduplicated)
        #expect(try await plain.value.first?.id == second.id)
        guard case .decided(let closed, _) = try await decided.value else {
            Issue.record("the decision did not find the alert submitted before it in its batch")
            return
        }
        #expect(closed.state == .confirmed)
        #expect(commits.all == [1, 4], "jobs per commit: \(commits.all)")

        let stored = try blocker.withLock { c throws(SQLiteError) in
            (Int(try c.scalar("SELECT COUNT(*) FROM alerts") ?? -1),
             Int(try c.scalar("SELECT COUNT(*) FROM alerts WHERE state = 'confirmed'") ?? -1),
             Int(try c.scalar("SELECT repeat_count FROM alerts WHERE id = ?", [.text(first.id.rawValue)]) ?? -1))
        }
        #expect(stored == (3, 1, 1), "alerts, confirmed, repeats of the first: \(stored)")
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdSQLite
@testable import AlertdStore
@testable import AlertdSQLiteStore

/// Waiting for another program's lock on the database file.
@Suite struct SQLiteLockWaitTests {
    /// Writes queued behind a lock another program holds fail once the store
    /// closes, rather than each wait its five seconds in turn: a stop whose
    /// grace was 1 s took 43 s while another program held the lock.
    let dir = TemporaryDirectory()

    /// A store, and another connection to its file holding the write lock.
    func locked() throws -> (store: SQLiteAlertStore, other: SQLiteConnection) {
        let store = try SQLiteAlertStore(path: dir.path + "/locked.db")
        let other = try SQLiteConnection(path: dir.path + "/locked.db")
        try other.withLock { c throws(SQLiteError) in try c.execute("BEGIN IMMEDIATE") }
        return (store, other)
    }

    @Test func closingGivesUpWaitingForAnotherProgramsLock() async throws {
        let (store, other) = try locked()
        let writes = Task {
            await withTaskGroup(of: Bool.self) { group in
                for n in 0..<3 {
                    group.addTask {
                        let alert = Alert(spec: try! AlertSpec.Builder().title("held \(n)").build().get())
                        return (try? await store.submit([AlertSubmission(alert: alert, presenters: [])])) != nil
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        let clock = ContinuousClock()
        let closing = clock.measure { store.close() }
        #expect(closing < .seconds(2), "closing took \(closing)")
        #expect(await writes.value == [false, false, false])
        try other.withLock { c throws(SQLiteError) in try c.execute("ROLLBACK") }
    }

    /// Until then a reader or writer waits for the lock as before.
    @Test func aLockHeldBrieflyIsWaitedFor() async throws {
        let (store, other) = try locked()
        let release = Task {
            try? await Task.sleep(for: .milliseconds(500))
            try? other.withLock { c throws(SQLiteError) in try c.execute("COMMIT") }
        }
        let alert = Alert(spec: try AlertSpec.Builder().title("after the lock").build().get())
        _ = try await store.submit([AlertSubmission(alert: alert, presenters: [])])
        await release.value
        #expect(try await store.record(id: alert.id) != nil)
        store.close()
    }
}

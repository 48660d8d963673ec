import Foundation
import Testing
@testable import AlertdSQLite
@testable import AlertdStore
@testable import AlertdSQLiteStore

/// What the group committer does when the disk, or another program's lock,
/// fails a batch.
@Suite struct GroupCommitterFailureTests {
    /// A committer on a fresh WAL database at `path` with a table `t` (and
    /// one for its probes), that SQLite never checkpoints by itself.
    func committer(_ path: String, lockWait: Int32 = 5_000, probeInterval: Duration = .seconds(60)) throws -> (SQLiteConnection, GroupCommitter) {
        let conn = try SQLiteConnection(path: path)
        try conn.withLock { c throws(SQLiteError) in
            try c.execute("PRAGMA journal_mode=WAL")
            try c.execute("PRAGMA wal_autocheckpoint=0")
            try c.execute("CREATE TABLE t(x BLOB)")
            try c.execute("CREATE TABLE probes(x)")
        }
        conn.limitLockWaits(to: lockWait)
        return (conn, GroupCommitter(connection: conn, probe: { c throws(SQLiteError) in try c.execute("INSERT INTO probes VALUES (1)") },
                                     probeInterval: probeInterval))
    }

    func walBytes(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? -1
    }

    /// The kernel reports a page it could not write once, at the next
    /// fsync, which may be a later commit's: frames SQLite holds committed
    /// may be missing on disk, and a crash would then lose every commit
    /// after them, acknowledged ones too. So after a write fails at the
    /// disk the WAL is copied into the database file and emptied before
    /// anything more is committed. The failure here is SQLite's own
    /// `SQLITE_FULL` (a `max_page_count` reached), as on a full disk.
    @Test func afterAWriteFailsAtTheDiskTheWALIsRewrittenBeforeTheNextCommit() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/w.db"
        let (conn, writer) = try committer(path)
        defer { writer.close() }
        for _ in 0..<20 {
            try await writer.write { c throws(SQLiteError) in try c.execute("INSERT INTO t VALUES (zeroblob(4000))") }
        }
        let before = walBytes(path)
        #expect(before > 20 * 4000, "\(before)")
        let pages = try conn.withLock { c throws(SQLiteError) in try c.scalar("PRAGMA page_count") } ?? 0
        try await writer.write { c throws(SQLiteError) in try c.execute("PRAGMA max_page_count=\(pages)") }
        await #expect(throws: StoreError.self) {
            try await writer.write { c throws(SQLiteError) in try c.execute("INSERT INTO t VALUES (zeroblob(100000))") }
        }

        try await writer.write { c throws(SQLiteError) in try c.execute("PRAGMA max_page_count=1000000") }
        try await writer.write { c throws(SQLiteError) in try c.execute("INSERT INTO t VALUES (zeroblob(10))") }
        #expect(writer.lastWriteFailure == nil)
        let after = walBytes(path)
        #expect(after < before / 4, "the WAL went on from \(before) bytes to \(after)")
        let rows = try conn.withLock { c throws(SQLiteError) in try c.scalar("SELECT count(*) FROM t") }
        #expect(rows == 21)
    }

    /// A lock held by another program fails the whole batch once: each of
    /// its jobs again on its own would wait its own lock wait in turn.
    @Test func aLockHeldElsewhereFailsABatchAtOnce() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/l.db"
        let (_, writer) = try committer(path, lockWait: 300)
        defer { writer.close() }
        let other = try SQLiteConnection(path: path)
        try other.withLock { c throws(SQLiteError) in try c.execute("BEGIN IMMEDIATE") }
        defer { try? other.withLock { c throws(SQLiteError) in try c.execute("ROLLBACK") } }
        let start = ContinuousClock.now
        // The first waits in its own batch; the next five queue behind it for one batch.
        let tasks = (0..<6).map { i in
            Task {
                if i > 0 { try await Task.sleep(for: .milliseconds(100)) }
                try await writer.write { c throws(SQLiteError) in try c.execute("INSERT INTO t VALUES (\(i))") }
            }
        }
        for task in tasks {
            await #expect(throws: StoreError.self) { try await task.value }
        }
        let took = ContinuousClock.now - start
        // Two waits of 0.3 s; one more for each job of the second batch was 2.1 s.
        #expect(took < .milliseconds(1_500), "\(took)")
    }

    /// While another program holds the lock, only the probe waits for it:
    /// each write waiting its own lock wait in turn held requests 10–15 s
    /// for their 503. Once the lock goes, the probe finds it and writes work.
    @Test func whileALockIsHeldElsewhereOnlyTheProbeWaitsForIt() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/p.db"
        let (_, writer) = try committer(path, lockWait: 300, probeInterval: .seconds(1))
        defer { writer.close() }
        let other = try SQLiteConnection(path: path)
        try other.withLock { c throws(SQLiteError) in try c.execute("BEGIN IMMEDIATE") }
        func insert() async throws { try await writer.write { c throws(SQLiteError) in try c.execute("INSERT INTO t VALUES (1)") } }
        await #expect(throws: StoreError.self) { try await insert() }
        let start = ContinuousClock.now
        for _ in 0..<5 { await #expect(throws: StoreError.self) { try await insert() } }
        let took = ContinuousClock.now - start
        // At most the probe's one wait of 0.3 s; a wait each was 1.5 s at least.
        #expect(took < .milliseconds(900), "\(took)")
        try other.withLock { c throws(SQLiteError) in try c.execute("ROLLBACK") }
        let back = await eventually(.seconds(5)) { (try? await insert()) != nil }
        #expect(back)
    }
}

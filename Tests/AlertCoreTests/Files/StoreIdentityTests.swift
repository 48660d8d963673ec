import Foundation
import Testing
@testable import AlertdSQLite
@testable import AlertdSQLiteStore
@testable import AlertdStore

#if canImport(Glibc)
import Glibc
#endif

/// The database says it is alertd's (`PRAGMA application_id`): another
/// program's SQLite file is refused and left as it was, and alertd stores
/// from before the id are adopted.
@Suite(.serialized) struct StoreIdentityTests {
    func header(_ path: String) throws -> (applicationID: Int64, version: Int64) {
        let conn = try SQLiteConnection(path: path, readOnly: true)
        return try conn.withLock { c throws(SQLiteError) in
            (try c.scalar("PRAGMA application_id") ?? -1, try c.scalar("PRAGMA user_version") ?? -1)
        }
    }

    func execute(_ path: String, _ sql: String) throws {
        let conn = try SQLiteConnection(path: path)
        try conn.withLock { c throws(SQLiteError) in try c.execute(sql) }
    }

    @Test func aNewStoreIsMarkedAsAlertds() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/alertd.db"
        _ = try SQLiteAlertStore(path: path)
        #expect(try header(path) == (0x616C_7274, Int64(StoreSchema.migrations.count)))
    }

    @Test func anotherProgramsDatabaseIsRefusedAndLeftAsItWas() async throws {
        let d = try TestDaemon()
        try FileManager.default.createDirectory(atPath: d.stateDir, withIntermediateDirectories: true)
        let path = d.stateDir + "/alertd.db"
        // Someone's notes app, in rollback-journal mode, with a schema version of its own.
        try execute(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('keep me'); PRAGMA user_version = 3")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let check = try await d.checkConfig()
        #expect(check.exitCode == 65)
        #expect(check.stderr.contains("The file \(path) is not an alertd store: it holds another program's tables (notes)"), "\(check.stderr)")

        #expect(try await d.startExpectingExit() == 1)
        #expect(d.log.contains("The file \(path) is not an alertd store"), "\(d.log)")
        #expect(d.log.contains("code=store_incompatible"))
        // Not converted to WAL, not migrated, not stamped: byte for byte the same.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aDatabaseMarkedByAnotherApplicationIsRefused() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/other.db"
        // alertd's own tables, but another program's id: still not alertd's.
        _ = try SQLiteAlertStore(path: path)
        try execute(path, "PRAGMA application_id = 1234")
        #expect {
            _ = try SQLiteAlertStore(path: path)
        } throws: { error in
            guard let e = error as? StoreError else { return false }
            return e.code == .incompatible && e.message.contains("The file \(path) is not an alertd store: its application id is 0x4d2")
        }
    }

    @Test func anAlertdStoreFromBeforeTheIdIsAdoptedWithItsAlerts() async throws {
        let d = try TestDaemon()
        try await d.start()
        let id = try await d.send(["title": "kept across the upgrade"])
        d.signal(SIGTERM)
        #expect(await d.waitForExit() == 0)
        // As an alertd before migration 6 left it: no id, and none of the later migrations' objects.
        let path = d.stateDir + "/alertd.db"
        try execute(path, """
            DROP TABLE alert_groups; DROP TABLE group_members; DROP TABLE group_told; DROP TABLE group_snapshots;
            ALTER TABLE deliveries DROP COLUMN group_snapshot;
            ALTER TABLE alerts DROP COLUMN decided_recipient;
            ALTER TABLE alerts DROP COLUMN repeat_count; ALTER TABLE alerts DROP COLUMN last_seen_at;
            DROP INDEX alerts_lapse; ALTER TABLE alerts DROP COLUMN resolves_at; ALTER TABLE alerts DROP COLUMN escalate_follow_ups;
            ALTER TABLE deliveries DROP COLUMN follow_up_of; ALTER TABLE deliveries DROP COLUMN takes_follow_up;
            DROP TRIGGER deliveries_count_silenced; DROP INDEX deliveries_silenced; DROP INDEX silences_end; DROP TABLE silences;
            ALTER TABLE deliveries DROP COLUMN silenced_by; DELETE FROM counters WHERE name LIKE 'deliveries.silenced%';
            PRAGMA application_id = 0; PRAGMA user_version = 5;
            \(StoreSchema.droppedByLaterMigrations)
            """)
        #expect(try header(path) == (0, 5))

        try await d.start()
        #expect(try await d.show(id)["spec"] != nil)
        #expect(try header(path) == (0x616C_7274, Int64(StoreSchema.migrations.count)))
    }
}

@testable import AlertdSQLite
@testable import AlertdSQLiteStore

/// Stores as older alertd versions left them, for migration tests.
enum SchemaFixtures {
    /// Turns the SQLite store at `path`, made by this alertd and closed,
    /// into one as alertd left it before decisions had recipients
    /// (migrations 1 to 9), its rows kept.
    static func turnBackToSchema9(_ path: String) throws {
        let conn = try SQLiteConnection(path: path)
        try conn.withLock { c throws(SQLiteError) in
            try c.execute("""
                DROP TABLE alert_groups; DROP TABLE group_members; DROP TABLE group_told; DROP TABLE group_snapshots;
                ALTER TABLE deliveries DROP COLUMN group_snapshot;
                ALTER TABLE alerts DROP COLUMN decided_recipient; PRAGMA user_version = 9;
                \(StoreSchema.droppedByLaterMigrations)
                """)
        }
    }
}

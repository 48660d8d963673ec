import AlertdSQLite

/// Whose database a file is, judged before alertd changes anything in it.
package enum StoreIdentity: Equatable {
    /// No tables and no version: a file SQLite just created, or an empty one.
    case empty
    /// Marked with alertd's application id.
    case alertd
    /// alertd's tables and a schema version, but no application id: a store
    /// from before the id existed, which the next migration marks.
    case unmarkedAlertd
    /// Another program's database; why it is not alertd's.
    case foreign(String)

    /// Reads the header fields and table names; writes nothing.
    package static func read(_ conn: SQLiteConnection) throws(SQLiteError) -> StoreIdentity {
        let id = try conn.scalar("PRAGMA application_id") ?? 0
        let version = try conn.scalar("PRAGMA user_version") ?? 0
        let tables = Set(try conn.statement("SELECT name FROM sqlite_master WHERE type = 'table'").query { $0.text(0) })
        if id == Int64(StoreSchema.applicationID) { return .alertd }
        if id != 0 {
            return .foreign("its application id is 0x\(String(UInt32(truncatingIfNeeded: id), radix: 16)), not alertd's")
        }
        if tables.isEmpty && version == 0 { return .empty }
        if version > 0 && StoreSchema.coreTables.isSubset(of: tables) { return .unmarkedAlertd }
        let shown = tables.sorted().prefix(5).joined(separator: ", ")
        return .foreign("it holds another program's tables (\(shown)\(tables.count > 5 ? ", …" : ""))")
    }
}

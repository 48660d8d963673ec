import AlertdSQLite

extension SQLiteError {
    /// The disk or the file refused the write (read-only, full, I/O,
    /// permissions, locked by another process), rather than the work being
    /// wrong: what leaves the store unable to take any write until the
    /// machine changes.
    package var isStorageFailure: Bool {
        ["readonly", "ioerr", "full", "cantopen", "perm", "busy", "locked"].contains(name)
    }

    /// SQLite found the database file damaged: no write heals it, so the
    /// store stays failed until alertd is restarted on a repaired file.
    package var isDamage: Bool {
        (name == "corrupt" || name == "notadb") && !isUnreadableRow
    }
}

import AlertdSQLite
import AlertdStore

extension StoreError {
    /// As ``from(_:doing:)``, for a failure to open the store: a full disk
    /// or an I/O error is then the store that cannot be opened
    /// (`store_cannot_open`, and alertd exits 73 as for a read-only one),
    /// not a write that failed.
    package static func opening(_ error: SQLiteError, doing what: String) -> StoreError {
        let failure = from(error, doing: what)
        return error.name == "full" || error.name == "ioerr" ? StoreError(code: .cannotOpen, message: failure.message) : failure
    }

    package static func from(_ error: SQLiteError, doing what: String) -> StoreError {
        switch error.name {
        case "full": StoreError(code: .io, message: "\(what) failed: the disk is full (\(error.message)). Free space in the state directory.")
        case "ioerr":
            StoreError(code: .io, message: "\(what) failed: the disk failed a read or write (\(error.description)). Check that the state "
                + "directory's file system has room and reports no errors (dmesg).")
        case "notadb", "corrupt":
            StoreError(code: .corrupt, message: "\(what) failed: the database file is damaged (\(error.message)). Stop alertd, then "
                + "restore a backup through SQLite (sqlite3 alertd.db \".restore copy.db\"; a file copied over alertd.db is damaged by the "
                + "alertd.db-wal left of the old store), or recover what the file holds: sqlite3 alertd.db .recover | sqlite3 recovered.db")
        case "readonly", "perm", "cantopen":
            StoreError(code: .cannotOpen, message: "\(what) failed: \(error.message). Check that the state directory exists and alertd may write to it.")
        default: StoreError(code: .io, message: "\(what) failed: \(error.description)")
        }
    }
}

import AlertdSQLite
import AlertdStore

extension StoreError {
    package static func from(_ error: SQLiteError, doing what: String) -> StoreError {
        switch error.name {
        case "full": StoreError(code: .io, message: "\(what) failed: the disk is full (\(error.message)). Free space in the state directory.")
        case "notadb", "corrupt": StoreError(code: .corrupt, message: "\(what) failed: the database file is damaged (\(error.message)).")
        case "readonly", "perm", "cantopen":
            StoreError(code: .cannotOpen, message: "\(what) failed: \(error.message). Check that the state directory exists and alertd may write to it.")
        default: StoreError(code: .io, message: "\(what) failed: \(error.description)")
        }
    }
}

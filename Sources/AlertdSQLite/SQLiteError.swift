import CSQLite

/// A failed SQLite call: the primary result code with its readable name, the
/// extended code, and SQLite's own message.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_FULL`, ...).
    public let code: Int32
    /// The extended result code, which says more (`SQLITE_IOERR_FSYNC`).
    public let extendedCode: Int32
    public let message: String
    /// What we were doing, e.g. the statement or `open /var/lib/alertd/alertd.db`.
    public let context: String
    /// Raised by alertd of a row SQLite read fine (``corrupt(_:context:)``),
    /// not by SQLite of its file: one bad row, not a damaged database.
    package let isUnreadableRow: Bool

    package init(code: Int32, extendedCode: Int32? = nil, message: String, context: String) {
        self.init(code: code, extendedCode: extendedCode, message: message, context: context, isUnreadableRow: false)
    }

    private init(code: Int32, extendedCode: Int32?, message: String, context: String, isUnreadableRow: Bool) {
        self.code = code & 0xFF
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.context = context
        self.isUnreadableRow = isUnreadableRow
    }

    /// A database the store can no longer trust, found by alertd rather
    /// than SQLite (`SQLITE_CORRUPT`, as SQLite's own damage): its files
    /// removed or replaced under it.
    package static func damaged(_ message: String, context: String) -> SQLiteError {
        SQLiteError(code: SQLITE_CORRUPT, extendedCode: nil, message: message, context: context, isUnreadableRow: false)
    }

    /// Data that SQLite read fine but alertd cannot make sense of (`SQLITE_CORRUPT`).
    package static func corrupt(_ message: String, context: String) -> SQLiteError {
        SQLiteError(code: SQLITE_CORRUPT, extendedCode: nil, message: message, context: context, isUnreadableRow: true)
    }

    /// A stable name for the primary code, e.g. `busy`, `full`, `ioerr`.
    public var name: String {
        switch code {
        case SQLITE_BUSY: "busy"
        case SQLITE_LOCKED: "locked"
        case SQLITE_NOMEM: "nomem"
        case SQLITE_READONLY: "readonly"
        case SQLITE_IOERR: "ioerr"
        case SQLITE_CORRUPT: "corrupt"
        case SQLITE_FULL: "full"
        case SQLITE_CANTOPEN: "cantopen"
        case SQLITE_CONSTRAINT: "constraint"
        case SQLITE_MISUSE: "misuse"
        case SQLITE_NOTADB: "notadb"
        case SQLITE_PERM: "perm"
        default: "error_\(code)"
        }
    }

    /// The context is cut to its start: a statement built from a query
    /// can run to tens of kilobytes, all of it echoed to the client.
    public var description: String {
        let shown = context.count > 160 ? context.prefix(160) + "…" : context
        return "sqlite \(name): \(message) (\(shown))"
    }
}

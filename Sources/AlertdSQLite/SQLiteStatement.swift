import CSQLite
import FoundationEssentials

/// A prepared statement. Owned by one `SQLiteConnection` and used only while
/// that connection's lock is held, so it never crosses threads unguarded.
package final class SQLiteStatement {
    package let handle: OpaquePointer
    package let sql: String
    private unowned let connection: SQLiteConnection

    package init(connection: SQLiteConnection, sql: String) throws(SQLiteError) {
        var stmt: OpaquePointer?
        // sqlite3_prepare_v3 with PERSISTENT: these statements are cached for the connection's life.
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw connection.error(rc, context: sql)
        }
        self.handle = stmt
        self.sql = sql
        self.connection = connection
        parameterCount = Int(sqlite3_bind_parameter_count(stmt))
    }

    /// How many `?` the statement has: a run that binds them all need not
    /// clear the last run's values first.
    private let parameterCount: Int

    /// The bound texts' bytes, which SQLite reads in place (`SQLITE_STATIC`)
    /// until the next bind: bound as transient, each value was a malloc, a
    /// copy and a free inside SQLite (its allocations in figure (2)'s load
    /// fell from 40 to 21 an alert, bench/analysis.md). Kept between runs; a
    /// run whose texts pass ``arenaLimit`` binds them as transient instead,
    /// so one large alert does not leave a statement holding its size.
    private var arena: UnsafeMutableRawPointer?
    private var arenaCapacity = 0
    private static let arenaLimit = 32 * 1_024

    deinit {
        // Finalized first: SQLite may still point into the arena until then.
        sqlite3_finalize(handle)
        arena?.deallocate()
    }

    /// Binds values to `?` parameters in order, after resetting the statement.
    package func bind(_ values: ArraySlice<SQLiteValue>) throws(SQLiteError) {
        sqlite3_reset(handle)
        if values.count < parameterCount { sqlite3_clear_bindings(handle) }
        // Every parameter is bound again below (or cleared above) before the
        // next step, so the arena may be reused or replaced under the last
        // run's bindings.
        var textBytes = 0
        for case .text(let v) in values { textBytes += v.utf8.count }
        var place: UnsafeMutableRawPointer?
        if textBytes > 0, textBytes <= Self.arenaLimit {
            if textBytes > arenaCapacity {
                arena?.deallocate()
                arenaCapacity = max(textBytes, 2 * arenaCapacity, 1_024)
                arena = UnsafeMutableRawPointer.allocate(byteCount: arenaCapacity, alignment: 1)
            }
            place = arena
        }
        for (index, value) in zip(Int32(1)..., values) {
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
            case .real(let v): rc = sqlite3_bind_double(handle, index, v)
            case .text(let v):
                // By length from the string's own UTF-8, not a NUL-terminated copy made for the call.
                // An empty string may have no address, and a nil pointer would bind NULL.
                // `at` a constant, not the variable: a closure that wrote it had
                // every bind check exclusive access at run time.
                let at = place
                let bindUTF8 = { (utf8: UnsafeBufferPointer<UInt8>) -> Int32 in
                    guard let base = utf8.baseAddress, !utf8.isEmpty else { return sqlite3_bind_text(self.handle, index, "", 0, alertd_sqlite_transient()) }
                    if let at {
                        at.copyMemory(from: base, byteCount: utf8.count)
                        return sqlite3_bind_text(self.handle, index, at.assumingMemoryBound(to: CChar.self), Int32(clamping: utf8.count), nil)
                    }
                    return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                        sqlite3_bind_text(self.handle, index, $0, Int32(clamping: utf8.count), alertd_sqlite_transient())
                    }
                }
                // Read in place where the string's storage allows, with no copy of the string to make it contiguous.
                if let bound = v.utf8.withContiguousStorageIfAvailable(bindUTF8) {
                    rc = bound
                } else {
                    var copy = v
                    rc = copy.withUTF8(bindUTF8)
                }
                if let at { place = at + v.utf8.count }
            case .blob(let v):
                rc = v.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), alertd_sqlite_transient()) }
            }
            guard rc == SQLITE_OK else { throw connection.error(rc, context: sql) }
        }
    }

    /// Steps once: true while a row is available.
    package func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw connection.error(rc, context: sql)
        }
    }

    /// Runs to completion, discarding rows.
    package func run(_ values: [SQLiteValue] = []) throws(SQLiteError) {
        try run(values[...])
    }

    /// ``run(_:)`` with part of a larger list, bound where it lies.
    package func run(_ values: ArraySlice<SQLiteValue>) throws(SQLiteError) {
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Runs and maps each row.
    package func query<T>(_ values: [SQLiteValue] = [], _ row: (SQLiteRow) throws(SQLiteError) -> T) throws(SQLiteError) -> [T] {
        try bind(values[...])
        defer { sqlite3_reset(handle) }
        var out: [T] = []
        while try step() { out.append(try row(SQLiteRow(statement: self))) }
        return out
    }
}

/// A value to bind or read back.
package enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    package static func optional(_ s: String?) -> SQLiteValue { s.map(SQLiteValue.text) ?? .null }
    package static func optional(_ i: Int64?) -> SQLiteValue { i.map(SQLiteValue.integer) ?? .null }
}

/// The current row of a statement; valid only inside the `query` closure.
package struct SQLiteRow {
    package let statement: SQLiteStatement

    package func int(_ column: Int32) -> Int64 { sqlite3_column_int64(statement.handle, column) }

    package func optionalInt(_ column: Int32) -> Int64? {
        sqlite3_column_type(statement.handle, column) == SQLITE_NULL ? nil : int(column)
    }

    package func text(_ column: Int32) -> String {
        guard let p = sqlite3_column_text(statement.handle, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(statement.handle, column))), as: UTF8.self)
    }

    package func optionalText(_ column: Int32) -> String? {
        sqlite3_column_type(statement.handle, column) == SQLITE_NULL ? nil : text(column)
    }

    /// The column's bytes without a String round trip, for JSON blobs.
    package func data(_ column: Int32) -> Data {
        let n = Int(sqlite3_column_bytes(statement.handle, column))
        guard n > 0, let p = sqlite3_column_blob(statement.handle, column) else { return Data() }
        return Data(bytes: p, count: n)
    }
}

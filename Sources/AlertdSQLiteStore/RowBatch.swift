import AlertdSQLite

/// Rows for one table, held (``PendingRows``) until a statement must see
/// them or the transaction, or its group-commit batch, ends, and then
/// written with multi-row `INSERT`s. Each statement SQLite runs
/// costs it a fixed setup (a cursor on the table and on each index, the
/// program's start): for a delivery row that was as much as the row itself
/// (31.6 k instructions a row one at a time, 18.4 k a hundred at a time).
struct RowBatch {
    /// A table's insert, as statements for a few fixed row counts, so the
    /// connection's statement cache holds a handful, whatever the batch.
    struct Shape: Sendable {
        let width: Int
        fileprivate let statements: [(rows: Int, sql: String)]

        /// `row` is one row's `VALUES` tuple, with `width` placeholders.
        init(_ insert: String, row: String, width: Int) {
            self.width = width
            statements = [32, 8, 1].map { n in (n, insert + " VALUES " + Array(repeating: row, count: n).joined(separator: ", ")) }
        }
    }

    let shape: Shape
    private var values: [SQLiteValue] = []

    init(_ shape: Shape) {
        self.shape = shape
    }

    var isEmpty: Bool { values.isEmpty }

    mutating func append(_ row: [SQLiteValue]) {
        precondition(row.count == shape.width, "a row of \(row.count) values for \(shape.width) columns")
        values += row
    }

    /// Writes the rows held, in the order they came, and forgets them.
    mutating func write(in conn: SQLiteConnection) throws(SQLiteError) {
        var start = 0
        for (rows, sql) in shape.statements {
            let size = rows * shape.width
            while values.count - start >= size {
                try conn.statement(sql).run(values[start..<(start + size)])
                start += size
            }
        }
        values.removeAll(keepingCapacity: true)
    }
}

import AlertModel
import AlertdSQLite
import AlertdStore

extension StoreCoding.AlertRow {
    /// The columns of ``StoreCoding/alertColumns``, from `column` on.
    package init(_ row: SQLiteRow, from column: Int32 = 0) {
        self.init(id: row.text(column), spec: row.text(column + 1), state: row.text(column + 2), created: row.int(column + 3),
                  updated: row.int(column + 4), decidedBy: row.optionalText(column + 5), decidedAt: row.optionalInt(column + 6),
                  comment: row.optionalText(column + 7))
    }
}

extension StoreCoding.SilenceRow {
    /// The columns of ``StoreCoding/silenceColumns``.
    package init(_ row: SQLiteRow) {
        self.init(id: row.text(0), matchers: row.text(1), starts: row.int(2), ends: row.int(3), createdBy: row.text(4),
                  comment: row.text(5), updated: row.int(6))
    }
}

extension StoreCoding {
    /// An event kind from its `type` column.
    package static func eventKind(_ text: String) throws(SQLiteError) -> EventKind {
        guard let kind = EventKind(rawValue: text) else { throw .corrupt("unknown event type \(text)", context: "read events") }
        return kind
    }
}

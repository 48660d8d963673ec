import AlertModel
import AlertdSQLite
import AlertdStore

extension StoreCoding.AlertRow {
    /// The columns of ``StoreCoding/alertColumns``, from `column` on.
    package init(_ row: SQLiteRow, from column: Int32 = 0) {
        self.init(id: row.text(column), spec: row.text(column + 1), state: row.text(column + 2), created: row.int(column + 3),
                  updated: row.int(column + 4), decidedBy: row.optionalText(column + 5), decidedAt: row.optionalInt(column + 6),
                  comment: row.optionalText(column + 7), resolvesAt: row.optionalInt(column + 8),
                  repeatCount: row.int(column + 9), lastSeenAt: row.optionalInt(column + 10),
                  decidedRecipient: row.optionalText(column + 11))
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
    /// One delivery from a row of ``StoreCoding/deliveryColumns``.
    package static func delivery(_ row: SQLiteRow) -> DeliveryRecord {
        delivery(id: row.text(0), alertID: row.text(1), presenter: row.text(2), category: row.text(3), state: row.text(4),
                 attempts: row.int(5), nextAttemptAt: row.optionalInt(6), lastError: row.optionalText(7), createdAt: row.int(8),
                 updatedAt: row.int(9), deliveredAt: row.optionalInt(10), silencedBy: row.optionalText(11),
                 followUpOf: row.optionalText(12), takesFollowUp: row.int(13) != 0)
    }

    /// An event kind from its `type` column.
    package static func eventKind(_ text: String) throws(SQLiteError) -> EventKind {
        guard let kind = EventKind(rawValue: text) else { throw .corrupt("unknown event type \(text)", context: "read events") }
        return kind
    }
}

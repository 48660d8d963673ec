import FoundationEssentials
import AlertModel
import AlertdSQLite
import AlertdStore

/// How values are written to and read from the store's columns.
package enum StoreCoding {
    package static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    package static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    package static func date(_ millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }

    /// The columns `alert(from:)` reads, in order.
    package static let alertColumns = "id, spec, state, created_at, updated_at, decided_by, decided_at, comment, resolves_at, repeat_count, last_seen_at"

    /// The raw columns of one alert row, read while the connection is held
    /// and decoded after it is released.
    package struct AlertRow: Sendable {
        package var id: String, spec: String, state: String, created: Int64, updated: Int64
        package var decidedBy: String?, decidedAt: Int64?, comment: String?, resolvesAt: Int64?
        package var repeatCount: Int64, lastSeenAt: Int64?

        package init(_ row: SQLiteRow, from column: Int32 = 0) {
            id = row.text(column)
            spec = row.text(column + 1)
            state = row.text(column + 2)
            created = row.int(column + 3)
            updated = row.int(column + 4)
            decidedBy = row.optionalText(column + 5)
            decidedAt = row.optionalInt(column + 6)
            comment = row.optionalText(column + 7)
            resolvesAt = row.optionalInt(column + 8)
            repeatCount = row.int(column + 9)
            lastSeenAt = row.optionalInt(column + 10)
        }
    }

    package static func alert(_ row: AlertRow) throws(StoreError) -> Alert {
        let id = AlertID(trusted: row.id)
        guard let decoded = try? AlertSpec.fromStorage(Data(row.spec.utf8)),
              let state = AlertState(rawValue: row.state) else {
            throw StoreError(code: .corrupt, message: "Alert \(id) in the store cannot be read back; its stored spec is damaged.")
        }
        var decision: AlertDecision?
        if state != .open, let by = row.decidedBy, let at = row.decidedAt {
            decision = AlertDecision(outcome: state, actor: by, at: date(at), comment: row.comment)
        }
        return Alert(id: id, spec: decoded, state: state, createdAt: date(row.created), updatedAt: date(row.updated), decision: decision,
                     resolvesAt: row.resolvesAt.map(date),
                     repeats: row.lastSeenAt.map { AlertRepeats(count: Int(row.repeatCount), lastSeenAt: date($0)) })
    }

    /// The columns `delivery(_:)` reads, in order.
    package static let deliveryColumns = """
        id, alert_id, presenter, kind, state, attempts, next_attempt_at, last_error, created_at, updated_at, delivered_at,
        silenced_by, follow_up_of, takes_follow_up
        """

    /// One delivery from a row of ``deliveryColumns``.
    package static func delivery(_ row: SQLiteRow) -> DeliveryRecord {
        DeliveryRecord(
            id: DeliveryID(rawValue: row.text(0)), alertID: AlertID(trusted: row.text(1)),
            kind: deliveryKind(category: row.text(3), name: row.text(2)),
            state: DeliveryState(rawValue: row.text(4)) ?? .pending, attempts: Int(row.int(5)),
            nextAttemptAt: row.optionalInt(6).map(date), lastError: row.optionalText(7),
            createdAt: date(row.int(8)), updatedAt: date(row.int(9)), deliveredAt: row.optionalInt(10).map(date),
            silencedBy: row.optionalText(11).map(SilenceID.init), followUpOf: row.optionalText(12).map { DeliveryID(rawValue: $0) },
            takesFollowUp: row.int(13) != 0)
    }

    package static func encodeSpec(_ spec: AlertSpec) -> String { spec.canonicalJSON }

    /// The columns `silence(_:)` reads, in order.
    package static let silenceColumns = "id, matchers, starts_at, ends_at, created_by, comment, updated_at"

    /// The raw columns of one silence row.
    package struct SilenceRow: Sendable {
        package var id: String, matchers: String, starts: Int64, ends: Int64, createdBy: String, comment: String, updated: Int64

        package init(_ row: SQLiteRow) {
            id = row.text(0)
            matchers = row.text(1)
            starts = row.int(2)
            ends = row.int(3)
            createdBy = row.text(4)
            comment = row.text(5)
            updated = row.int(6)
        }
    }

    /// A silence from its row; nil when its matchers no longer read back,
    /// which only a hand-edited database could cause: such a silence is
    /// left out rather than failing every claim.
    package static func silence(_ row: SilenceRow) -> Silence? {
        guard let matchers = try? JSONDecoder().decode([LabelMatcher].self, from: Data(row.matchers.utf8)) else { return nil }
        return Silence(id: SilenceID(rawValue: row.id), matchers: matchers, startsAt: date(row.starts), endsAt: date(row.ends),
                       createdBy: row.createdBy, comment: row.comment, updatedAt: date(row.updated))
    }

    package static func encodeMatchers(_ matchers: [LabelMatcher]) -> String {
        String(decoding: (try? encoder.encode(matchers)) ?? Data("[]".utf8), as: UTF8.self)
    }

    /// A flat object of strings, keys sorted; for event data.
    package static func json(_ fields: [String: String]) -> String {
        var o = JSONObject()
        for (key, value) in fields { o.string(key, value) }
        return o.json
    }

    package static func decodeMap(_ text: String?) -> [String: String] {
        guard let text else { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }

    package static func jsonList(_ list: [String]) -> String {
        String(decoding: (try? encoder.encode(list)) ?? Data("[]".utf8), as: UTF8.self)
    }

    package static func decodeList(_ text: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }

    /// A delivery kind from its `kind` and `presenter` columns.
    package static func deliveryKind(category: String, name: String) -> DeliveryKind {
        category == "handler" ? DeliveryKind(name: name) : .presenter(name)
    }

    /// An event kind from its `type` column.
    package static func eventKind(_ text: String) throws(SQLiteError) -> EventKind {
        guard let kind = EventKind(rawValue: text) else { throw .corrupt("unknown event type \(text)", context: "read events") }
        return kind
    }
}

import FoundationEssentials
import AlertModel

/// How values are written to and read from the store's columns, the same
/// for every SQL backend: times as milliseconds, specs and lists as JSON.
package enum StoreCoding {
    package static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    package static func millis(_ date: Date) -> Int64 { UTCTimestamp.millis(date) }

    package static func date(_ millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }

    /// The `escalate_at`, `escalate_to` and `escalate_follow_ups` columns
    /// of an alert created at `created` (milliseconds), all null without one.
    package static func escalationColumns(_ escalation: Escalation?, created: Int64) -> (at: Int64?, to: String?, followUps: String?) {
        guard let escalation else { return (nil, nil, nil) }
        return (created + Int64(escalation.after.seconds * 1000), jsonList(escalation.presenters),
                escalation.followUps.isEmpty ? nil : jsonList(escalation.followUps.sorted()))
    }

    /// `escalate_at` of an escalation its route no longer has (a reload
    /// took it out): the end of year 9999, never due, so that it stays
    /// among those a later reload follows, and one that gives it back
    /// restores it. Dropped outright, a mistaken edit undone by the next
    /// reload had cancelled every escalation waiting.
    package static let heldEscalation: Int64 = 253_402_300_799_999

    /// ``escalationColumns(_:created:)`` for ``StoreTransaction/setEscalation(_:_:createdAt:)``:
    /// none is a held escalation, not nulls.
    package static func followedEscalationColumns(_ escalation: Escalation?, created: Int64) -> (at: Int64?, to: String?, followUps: String?) {
        escalation == nil ? (heldEscalation, jsonList([]), nil) : escalationColumns(escalation, created: created)
    }

    /// A row of those columns, with its alert's id, as ``ScheduledEscalation``.
    package static func scheduledEscalation(id: String, at: Int64, presenters: String, followUps: String?) -> ScheduledEscalation {
        ScheduledEscalation(alert: AlertID(trusted: id), at: date(at), presenters: decodeList(presenters),
                            followUps: Set(followUps.map(decodeList) ?? []))
    }

    /// The columns `alert(from:)` reads, in order.
    package static let alertColumns =
        "id, spec, state, created_at, updated_at, decided_by, decided_at, comment, resolves_at, repeat_count, last_seen_at, decided_recipient"

    /// The raw columns of one alert row, read while the connection is held
    /// and decoded after it is released.
    package struct AlertRow: Sendable {
        package var id: String, spec: String, state: String, created: Int64, updated: Int64
        package var decidedBy: String?, decidedAt: Int64?, comment: String?, resolvesAt: Int64?
        package var repeatCount: Int64, lastSeenAt: Int64?, decidedRecipient: String?

        package init(id: String, spec: String, state: String, created: Int64, updated: Int64,
                     decidedBy: String?, decidedAt: Int64?, comment: String?, resolvesAt: Int64?,
                     repeatCount: Int64, lastSeenAt: Int64?, decidedRecipient: String?) {
            self.id = id
            self.spec = spec
            self.state = state
            self.created = created
            self.updated = updated
            self.decidedBy = decidedBy
            self.decidedAt = decidedAt
            self.comment = comment
            self.resolvesAt = resolvesAt
            self.repeatCount = repeatCount
            self.lastSeenAt = lastSeenAt
            self.decidedRecipient = decidedRecipient
        }
    }

    package static func alert(_ row: AlertRow) throws(StoreError) -> Alert {
        try alert(row, spec: try? AlertSpec.fromStorage(row.spec))
    }

    /// As ``alert(_:)``, its spec decoded once per distinct stored text
    /// (``StoredSpecs``): for alerts read again and again, the open alerts
    /// a claim reads to find the inhibition sources among them and a big
    /// group's members at each of its flushes.
    package static func openAlert(_ row: AlertRow) throws(StoreError) -> Alert {
        try alert(row, spec: StoredSpecs.spec(row.spec))
    }

    private static func alert(_ row: AlertRow, spec decoded: AlertSpec?) throws(StoreError) -> Alert {
        let id = AlertID(trusted: row.id)
        guard let decoded, let state = AlertState(rawValue: row.state) else {
            throw StoreError(code: .corrupt, message: "Alert \(id) in the store cannot be read back; its stored spec is damaged.")
        }
        var decision: AlertDecision?
        if state != .open, let by = row.decidedBy, let at = row.decidedAt {
            decision = AlertDecision(outcome: state, actor: by, at: date(at), comment: row.comment, recipient: row.decidedRecipient)
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

    /// One delivery from the columns of ``deliveryColumns``, in order.
    package static func delivery(
        id: String, alertID: String, presenter: String, category: String, state: String, attempts: Int64, nextAttemptAt: Int64?,
        lastError: String?, createdAt: Int64, updatedAt: Int64, deliveredAt: Int64?, silencedBy: String?, followUpOf: String?,
        takesFollowUp: Bool
    ) -> DeliveryRecord {
        DeliveryRecord(
            id: DeliveryID(rawValue: id), alertID: AlertID(trusted: alertID), kind: deliveryKind(category: category, name: presenter),
            state: DeliveryState(rawValue: state) ?? .pending, attempts: Int(attempts), nextAttemptAt: nextAttemptAt.map(date),
            lastError: lastError, createdAt: date(createdAt), updatedAt: date(updatedAt), deliveredAt: deliveredAt.map(date),
            silencedBy: silencedBy.map(SilenceID.init), followUpOf: followUpOf.map { DeliveryID(rawValue: $0) }, takesFollowUp: takesFollowUp)
    }

    package static func encodeSpec(_ spec: AlertSpec) -> String { spec.canonicalJSON }

    /// The columns `silence(_:)` reads, in order.
    package static let silenceColumns = "id, matchers, starts_at, ends_at, created_by, comment, updated_at"

    /// The raw columns of one silence row.
    package struct SilenceRow: Sendable {
        package var id: String, matchers: String, starts: Int64, ends: Int64, createdBy: String, comment: String, updated: Int64

        package init(id: String, matchers: String, starts: Int64, ends: Int64, createdBy: String, comment: String, updated: Int64) {
            self.id = id
            self.matchers = matchers
            self.starts = starts
            self.ends = ends
            self.createdBy = createdBy
            self.comment = comment
            self.updated = updated
        }
    }

    /// A silence from its row; nil when its matchers no longer read back,
    /// which only a hand-edited database could cause: such a silence is
    /// left out rather than failing every claim.
    package static func silence(_ row: SilenceRow) -> Silence? {
        guard let matchers = StoredMatchers.matchers(row.matchers) else { return nil }
        return Silence(id: SilenceID(rawValue: row.id), matchers: matchers, startsAt: date(row.starts), endsAt: date(row.ends),
                       createdBy: row.createdBy, comment: row.comment, updatedAt: date(row.updated))
    }

    package static func encodeMatchers(_ matchers: [LabelMatcher]) -> String {
        String(decoding: (try? encoder.encode(matchers)) ?? Data("[]".utf8), as: UTF8.self)
    }

    /// A flat object of strings, keys sorted; for event data.
    package static func json(_ fields: [String: String]) -> String {
        var o = JSONObject()
        o.strings(fields)
        return o.json
    }

    package static func decodeMap(_ text: String?) -> [String: String] {
        guard let text else { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }

    /// A list of strings as a JSON array, through the one JSON writer: a
    /// group's list of the alerts each presenter was told of runs to
    /// thousands of ids, rewritten at every notification.
    package static func jsonList(_ list: [String]) -> String {
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(2 + list.reduce(0) { $0 + $1.utf8.count + 3 })
        for (i, item) in list.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONObject.appendQuoted(item, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    /// What ``jsonList(_:)`` (or `JSONEncoder`, before it) wrote; empty for
    /// a text that is not an array of strings.
    package static func decodeList(_ text: String) -> [String] {
        let list = try? StrictJSON.read(text) { r throws(StrictJSON.Failure) -> [String]? in
            var list: [String] = []
            var whole = true
            try r.elements { r throws(StrictJSON.Failure) in
                if let item = try r.stringValue() { list.append(item) } else { whole = false }
            }
            return whole ? list : nil
        }
        return (list ?? nil) ?? []
    }

    /// A delivery just claimed, from the columns a claim returns.
    package static func claimedDelivery(
        id: String, alertID: String, presenter: String, category: String, attempts: Int64, lastError: String?,
        createdAt: Int64, silencedBy: String?, followUpOf: String?, takesFollowUp: Bool, at now: Date
    ) -> DeliveryRecord {
        DeliveryRecord(
            id: DeliveryID(rawValue: id), alertID: AlertID(trusted: alertID), kind: deliveryKind(category: category, name: presenter),
            state: .inFlight, attempts: Int(attempts), nextAttemptAt: nil, lastError: lastError, createdAt: date(createdAt),
            updatedAt: now, deliveredAt: nil, silencedBy: silencedBy.map(SilenceID.init),
            followUpOf: followUpOf.map { DeliveryID(rawValue: $0) }, takesFollowUp: takesFollowUp)
    }

    /// A delivery kind from its `kind` and `presenter` columns.
    package static func deliveryKind(category: String, name: String) -> DeliveryKind {
        category == "handler" ? DeliveryKind(name: name) : .presenter(name)
    }

}

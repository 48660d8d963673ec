import FoundationEssentials
import AlertModel

extension Alert {
    /// Writes the alert into `o` as a group snapshot stores it: the fields
    /// and names of its `Codable` form, dates as milliseconds since 1970
    /// (as `JSONEncoder` wrote snapshots before, so either reads the other).
    /// By hand because a big group's every notification stores all its
    /// alerts: through `JSONEncoder` and `JSONDecoder` that was half the
    /// daemon's time in a trickle into big groups.
    package func writeSnapshot(to o: inout JSONObject) {
        // In key order, which spares the writer a sort.
        o.int("created_at", StoreCoding.millis(createdAt))
        if let decision {
            o.object("decision") { d in
                d.string("actor", decision.actor)
                d.int("at", StoreCoding.millis(decision.at))
                d.string("comment", decision.comment)
                d.string("outcome", decision.outcome.rawValue)
                d.string("recipient", decision.recipient)
            }
        }
        o.string("id", id.rawValue)
        if let repeats {
            o.object("repeats") { r in
                r.int("count", Int64(repeats.count))
                r.int("last_seen_at", StoreCoding.millis(repeats.lastSeenAt))
            }
        }
        if let resolvesAt { o.int("resolves_at", StoreCoding.millis(resolvesAt)) }
        o.object("spec") { spec.write(to: &$0) }
        o.string("state", state.rawValue)
        o.int("updated_at", StoreCoding.millis(updatedAt))
    }

    /// Reads back an alert ``writeSnapshot(to:)`` (or `JSONEncoder`) wrote,
    /// from the object `r` is at; nil when a field it needs is missing.
    package static func readSnapshot(_ r: inout StrictJSON.Reader) throws(StrictJSON.Failure) -> Alert? {
        var id: AlertID?
        var spec: AlertSpec?
        var state: AlertState?
        var createdAt: Date?
        var updatedAt: Date?
        var decision: AlertDecision?
        var resolvesAt: Date?
        var repeats: AlertRepeats?
        // A decision or repeats present but not readable: the alert is not whole.
        var broken = false
        try r.uniqueMembers { key, r throws(StrictJSON.Failure) in
            if try r.skipNull() { return }
            switch key {
            case "id": id = try r.stringValue().map(AlertID.init(trusted:))
            case "spec": spec = try AlertSpec.stored(&r)
            case "state": state = try r.stringValue().flatMap(AlertState.init(rawValue:))
            case "created_at": createdAt = try date(&r)
            case "updated_at": updatedAt = try date(&r)
            case "resolves_at": resolvesAt = try date(&r)
            case "decision":
                decision = try readDecision(&r)
                broken = broken || decision == nil
            case "repeats":
                repeats = try readRepeats(&r)
                broken = broken || repeats == nil
            default: _ = try r.value()
            }
        }
        guard let id, let spec, let state, let createdAt, let updatedAt, !broken else { return nil }
        return Alert(id: id, spec: spec, state: state, createdAt: createdAt, updatedAt: updatedAt, decision: decision,
                     resolvesAt: resolvesAt, repeats: repeats)
    }

    /// Milliseconds since 1970, whole or not (`JSONEncoder` wrote fractions).
    private static func date(_ r: inout StrictJSON.Reader) throws(StrictJSON.Failure) -> Date? {
        StrictJSON.number(try r.value()).map { Date(timeIntervalSince1970: $0 / 1000) }
    }

    /// The decision `r` is at; nil when it does not read.
    private static func readDecision(_ r: inout StrictJSON.Reader) throws(StrictJSON.Failure) -> AlertDecision? {
        var outcome: AlertState?
        var actor: String?
        var at: Date?
        var comment: String?
        var recipient: String?
        try r.uniqueMembers { key, r throws(StrictJSON.Failure) in
            if try r.skipNull() { return }
            switch key {
            case "outcome": outcome = try r.stringValue().flatMap(AlertState.init(rawValue:))
            case "actor": actor = try r.stringValue()
            case "at": at = try date(&r)
            case "comment": comment = try r.stringValue()
            case "recipient": recipient = try r.stringValue()
            default: _ = try r.value()
            }
        }
        guard let outcome, outcome != .open, let actor, let at else { return nil }
        return AlertDecision(outcome: outcome, actor: actor, at: at, comment: comment, recipient: recipient)
    }

    /// The repeats `r` is at; nil when they do not read.
    private static func readRepeats(_ r: inout StrictJSON.Reader) throws(StrictJSON.Failure) -> AlertRepeats? {
        var count: Int?
        var lastSeenAt: Date?
        try r.uniqueMembers { key, r throws(StrictJSON.Failure) in
            if try r.skipNull() { return }
            switch key {
            case "count": count = StrictJSON.wholeNumber(try r.value())
            case "last_seen_at": lastSeenAt = try date(&r)
            default: _ = try r.value()
            }
        }
        guard let count, let lastSeenAt else { return nil }
        return AlertRepeats(count: count, lastSeenAt: lastSeenAt)
    }
}

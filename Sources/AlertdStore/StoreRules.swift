import FoundationEssentials
import AlertModel

/// The store's business rules, stated once for every backend: dedup, the
/// first decision wins, a decision after expiry loses, the handler call is
/// queued with the decision, escalation fires once. Each runs inside one
/// transaction of the backend's.
package enum StoreRules {
    /// The actor recorded when the clock, not a person, closes an alert.
    package static let clockActor = "alertd"

    /// Stores a new alert with a delivery per presenter, or folds it into
    /// the open alert with the same dedup key: a repeat creates nothing.
    package static func submit<T: StoreTransaction>(_ submission: AlertSubmission, in tx: inout T) throws(T.Failure) -> SubmissionResult {
        let alert = submission.alert
        if let key = alert.spec.dedupKey, let open = try tx.openAlert(dedupKey: key) {
            return SubmissionResult(id: open, state: .open, deduplicated: true)
        }
        try tx.insert(alert, escalation: submission.escalation)
        for d in submission.deliveries {
            try tx.insert(.pending(d.id, alert: alert.id, kind: d.kind, at: alert.createdAt))
        }
        try tx.append(.alertCreated, alert: alert.id, at: alert.createdAt, data: [:])
        return SubmissionResult(id: alert.id, state: .open, deduplicated: false)
    }

    /// A compare-and-set from `open`: the first decision wins. Past its
    /// expiry an alert is expired, whether or not maintenance has got round
    /// to saying so, so a late decision loses to the clock (and the expiry
    /// is recorded now, at the time it fell due).
    package static func decide<T: StoreTransaction>(_ id: AlertID, _ decision: AlertDecision, in tx: inout T) throws(T.Failure) -> DecisionOutcome {
        guard let alert = try tx.alert(id) else { return .notFound }
        guard alert.state == .open else { return .alreadyDecided(alert) }
        if decision.outcome != .expired, let expiry = alert.expiresAt, expiry <= decision.at {
            let (expired, _) = try close(alert, AlertDecision(outcome: .expired, actor: clockActor, at: expiry), in: &tx)
            return .alreadyDecided(expired)
        }
        let (closed, handler) = try close(alert, decision, in: &tx)
        return .decided(closed, handlerDelivery: handler)
    }

    /// Closes an open alert whose expiry has come; false if it was no longer open.
    package static func expire<T: StoreTransaction>(_ id: AlertID, at now: Date, in tx: inout T) throws(T.Failure) -> Bool {
        if case .decided = try decide(id, AlertDecision(outcome: .expired, actor: clockActor, at: now), in: &tx) { return true }
        return false
    }

    /// Adds the escalation's presenters to a still-open alert, once.
    package static func escalate<T: StoreTransaction>(_ id: AlertID, to presenters: [String], at now: Date, in tx: inout T) throws(T.Failure) -> Bool {
        guard try tx.alert(id)?.state == .open else { return false }
        for (i, presenter) in presenters.enumerated() {
            try tx.insert(.pending(.escalated(id, i), alert: id, kind: .presenter(presenter), at: now))
        }
        try tx.markEscalated(id, at: now)
        try tx.append(.alertEscalated, alert: id, at: now, data: ["presenters": presenters.joined(separator: ",")])
        return true
    }

    /// The handler call a decision makes: the alert's action of that kind, if it has one.
    package static func handlerCall(for decision: AlertDecision, on alert: Alert) -> DeliveryKind? {
        guard let action = decision.action, alert.spec.action(action) != nil else { return nil }
        return .handler(action)
    }

    /// The event data of a settled attempt.
    package static func eventData(_ settlement: DeliverySettlement, kind: DeliveryKind) -> [String: String] {
        var data = ["delivery_id": settlement.deliveryID.rawValue, "presenter": kind.name]
        if let error = settlement.result.error { data["error"] = error }
        return data
    }

    private static func close<T: StoreTransaction>(_ alert: Alert, _ decision: AlertDecision, in tx: inout T) throws(T.Failure) -> (Alert, DeliveryID?) {
        var closed = alert
        closed.state = decision.outcome
        closed.decision = decision
        closed.updatedAt = decision.at
        try tx.close(closed)
        var handler: DeliveryID?
        if let kind = handlerCall(for: decision, on: alert), let action = kind.action {
            let id = DeliveryID.handler(alert.id, action)
            try tx.insert(.pending(id, alert: alert.id, kind: kind, at: decision.at))
            handler = id
        }
        var data = ["actor": decision.actor]
        if let comment = decision.comment { data["comment"] = comment }
        if let handler { data["handler_delivery_id"] = handler.rawValue }
        if let kind = EventKind.closed(decision.outcome) { try tx.append(kind, alert: alert.id, at: decision.at, data: data) }
        return (closed, handler)
    }
}

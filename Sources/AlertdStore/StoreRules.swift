import FoundationEssentials
import AlertModel

/// The store's business rules, stated once for every backend: dedup, the
/// first decision wins, a decision after expiry loses, the handler call is
/// queued with the decision, escalation fires once. Each runs inside one
/// transaction of the backend's.
package enum StoreRules {
    /// The actor recorded when the clock, not a person, closes an alert.
    package static let clockActor = "alertd"

    /// Stores each submission, in order, in one transaction: a new alert
    /// with a delivery per presenter, or one folded into the open alert with
    /// the same dedup key (also one earlier in the batch). A repeat creates
    /// nothing, but one that says when it resolves (a re-send from
    /// Prometheus) moves the open alert's time on to that.
    package static func submit<T: StoreTransaction>(_ submissions: [AlertSubmission], in tx: inout T) throws(T.Failure) -> [SubmissionResult] {
        try submit(submissions, claiming: [], epoch: 0, now: Date(), in: &tx).results
    }

    /// ``submit(_:in:)``, the new deliveries of `kinds` written claimed at
    /// the store's silence `epoch`, unless a silence is active or scheduled
    /// at `now`: the claim that screens must see those
    /// (``AlertIntakeStore/submit(_:claiming:)``).
    package static func submit<T: StoreTransaction>(_ submissions: [AlertSubmission], claiming kinds: Set<DeliveryKind>, epoch: UInt64,
                                                    now: Date, in tx: inout T) throws(T.Failure) -> SubmittedAlerts {
        var claimEpoch: UInt64?
        if !kinds.isEmpty, try !tx.hasSilence(endingAfter: now) { claimEpoch = epoch }
        var results: [SubmissionResult] = []
        results.reserveCapacity(submissions.count)
        var stored: [AcceptedDelivery] = []
        for submission in submissions {
            results.append(try submit(submission, claiming: kinds, epoch: claimEpoch, storing: &stored, in: &tx))
        }
        return SubmittedAlerts(results: results, deliveries: stored, claimEpoch: claimEpoch)
    }

    /// One submission of ``submit(_:claiming:epoch:now:in:)``: its new
    /// deliveries of `kinds` written claimed at the silence `epoch`
    /// (``AcceptedDelivery/claimEpoch``) when there is one, and added to `stored`.
    private static func submit<T: StoreTransaction>(_ submission: AlertSubmission, claiming kinds: Set<DeliveryKind>, epoch: UInt64?,
                                                    storing stored: inout [AcceptedDelivery], in tx: inout T) throws(T.Failure) -> SubmissionResult {
        let alert = submission.alert
        if let key = alert.spec.dedupKey, let open = try tx.openAlert(dedupKey: key) {
            try tx.recordRepeat(open, at: alert.createdAt, resolvesAt: alert.resolvesAt, spec: submission.refreshes ? alert.spec : nil)
            return SubmissionResult(id: open, state: .open, deduplicated: true)
        }
        try tx.insert(alert, escalation: submission.escalation)
        let deliveries = submission.deliveries(claiming: kinds, epoch: epoch)
        for d in deliveries { try tx.insert(d.record) }
        stored += deliveries
        for membership in submission.groups { try join(alert, membership, in: &tx) }
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

    /// ``decide(_:_:in:)`` for the open alert holding each key; nil for a
    /// key no open alert holds.
    package static func decideOpen<T: StoreTransaction>(dedupKeys: [String], _ decision: AlertDecision,
                                                        in tx: inout T) throws(T.Failure) -> [DecisionOutcome?] {
        var outcomes: [DecisionOutcome?] = []
        outcomes.reserveCapacity(dedupKeys.count)
        for key in dedupKeys {
            guard let id = try tx.openAlert(dedupKey: key) else {
                outcomes.append(nil)
                continue
            }
            outcomes.append(try decide(id, decision, in: &tx))
        }
        return outcomes
    }

    /// Closes an open alert whose expiry has come, as of its expiry (as a
    /// late decision records it), not of when maintenance got round to it,
    /// after a restart perhaps; false if it was no longer open.
    package static func expire<T: StoreTransaction>(_ id: AlertID, at now: Date, in tx: inout T) throws(T.Failure) -> Bool {
        guard let alert = try tx.alert(id), alert.state == .open, let due = alert.expiresAt, due <= now else { return false }
        _ = try close(alert, AlertDecision(outcome: .expired, actor: clockActor, at: due), in: &tx)
        return true
    }

    /// Resolves an open alert whose sender stopped re-sending it: its
    /// lapse (``lapse(of:resendGraceFrom:)``) has passed. False if it was
    /// no longer open, or is not due yet.
    package static func resolveLapsed<T: StoreTransaction>(_ id: AlertID, at now: Date, resendGraceFrom start: Date = .distantPast,
                                                           in tx: inout T) throws(T.Failure) -> Bool {
        guard let alert = try tx.alert(id), alert.state == .open, let due = lapse(of: alert, resendGraceFrom: start), due <= now else { return false }
        if case .decided = try decide(id, AlertDecision(outcome: .resolved, actor: clockActor, at: now), in: &tx) { return true }
        return false
    }

    /// When an open alert resolves by the clock: its ``Alert/resolvesAt``
    /// (its sender's last `endsAt`), but when it was last sent before
    /// `start` (this alertd's start), no sooner than its sender's window
    /// (`resolvesAt` less when it was last sent, at most ``maxResendGrace``)
    /// after `start`: the sender's re-sends failed while alertd was down,
    /// and a sender still sending comes back within its window. Without
    /// this, a start after a few minutes away resolved every Prometheus
    /// alert still firing, and the next re-send opened each again. The cap
    /// keeps an alert sent once with a far `endsAt` to it, unless alertd
    /// starts within the cap of it. Computed, not stored: a stored
    /// extension grew again at every restart. Nil when it has no `endsAt`.
    package static func lapse(of alert: Alert, resendGraceFrom start: Date) -> Date? {
        guard let due = alert.resolvesAt else { return nil }
        let lastSent = alert.repeats?.lastSeenAt ?? alert.createdAt
        guard lastSent < start else { return due }
        return max(due, start.addingTimeInterval(min(due.timeIntervalSince(lastSent), maxResendGrace.seconds)))
    }

    /// `alert` as the API shows it: an open alert's `resolvesAt` is when
    /// it resolves by the clock (``lapse(of:resendGraceFrom:)``), not its
    /// sender's last `endsAt`, which had passed while alertd was down and
    /// showed a time gone by for the whole window after a start.
    package static func shown(_ alert: Alert, resendGraceFrom start: Date) -> Alert {
        guard alert.state == .open, alert.resolvesAt != nil else { return alert }
        var shown = alert
        shown.resolvesAt = lapse(of: alert, resendGraceFrom: start)
        return shown
    }

    /// The longest grace ``lapse(of:resendGraceFrom:)`` gives after a
    /// start: Prometheus's window is four resend intervals (4 minutes by
    /// default).
    package static let maxResendGrace: Duration = .seconds(3_600)

    /// ``escalate(_:to:followingUp:at:in:)`` for each escalation due, as a
    /// backend reads them: the alert, its `escalate_to` and its
    /// `escalate_follow_ups` columns. Returns the alerts escalated.
    package static func escalateDue<T: StoreTransaction>(
        _ due: [(id: String, presenters: String, followUps: String?)], at now: Date, in tx: inout T
    ) throws(T.Failure) -> [AlertID] {
        var escalated: [AlertID] = []
        for row in due {
            let id = AlertID(trusted: row.id)
            let followUps = Set(row.followUps.map(StoreCoding.decodeList) ?? [])
            if try escalate(id, to: StoreCoding.decodeList(row.presenters), followingUp: followUps, at: now, in: &tx) { escalated.append(id) }
        }
        return escalated
    }

    /// At start and after a reload: each escalation not yet fired takes the
    /// one `plan` (the routes now in force) gives its open alert, due
    /// `after` from the alert's creation, or is held where it gives none.
    /// An escalation a route no longer has does not fire, one whose
    /// presenters changed goes to the new ones, and a held one given back
    /// fires as it would have. Returns how many changed.
    package static func follow<T: StoreTransaction>(
        _ scheduled: [ScheduledEscalation], plan: (Alert) -> Escalation?, in tx: inout T
    ) throws(T.Failure) -> Int {
        var changed = 0
        for old in scheduled {
            guard let alert = try tx.alert(old.alert), alert.state == .open else { continue }
            let new = plan(alert)
            let created = StoreCoding.millis(alert.createdAt)
            if let new, StoreCoding.escalationColumns(new, created: created).at == StoreCoding.millis(old.at),
               new.presenters == old.presenters, new.followUps == old.followUps { continue }
            if new == nil, old.isHeld { continue }
            try tx.setEscalation(alert.id, new, createdAt: alert.createdAt)
            changed += 1
        }
        return changed
    }

    /// Alerts a transaction of ``follow(_:plan:in:)`` takes, so that a
    /// reload with many escalations waiting holds no write up for long.
    package static let escalationPage = 500

    /// ``follow(_:plan:in:)`` page after page: `page` reads the escalations
    /// not yet fired that come after the one it is given (by time, then
    /// alert id; none at first), at most ``escalationPage`` in that order,
    /// and follows them in one transaction, returning the changes and the
    /// escalations read. The order is the index's: by id, every page sorted
    /// all that wait, and 100,000 took 3.4 s to follow at each start. One
    /// moved later by the reload may be read again, and is then unchanged.
    package static func followInPages(
        _ page: ((at: Int64, id: String)) async throws(StoreError) -> (changed: Int, read: [ScheduledEscalation])
    ) async throws(StoreError) -> Int {
        var changed = 0
        var after: (at: Int64, id: String) = (.min, "")
        while true {
            let (n, read) = try await page(after)
            changed += n
            guard read.count >= escalationPage, let last = read.last else { return changed }
            after = (StoreCoding.millis(last.at), last.alert.rawValue)
        }
    }

    /// Adds the escalation's presenters to a still-open alert, once.
    package static func escalate<T: StoreTransaction>(
        _ id: AlertID, to presenters: [String], followingUp followUps: Set<String> = [], at now: Date, in tx: inout T
    ) throws(T.Failure) -> Bool {
        guard try tx.alertState(id) == .open else { return false }
        for (i, presenter) in presenters.enumerated() {
            try tx.insert(.pending(.escalated(id, i), alert: id, kind: .presenter(presenter), at: now,
                                   takesFollowUp: followUps.contains(presenter)))
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

    /// What recording a delivered attempt adds: an alert delivery whose
    /// presenter takes follow-ups, made after its alert closed (it was
    /// pending or retrying then, or dead and replayed since), gets its
    /// follow-up now, in the same transaction, so the follow-up never
    /// overtakes what it follows up.
    /// A group notification's `thread` (what its destination answered)
    /// is kept for the group's later notifications to that presenter, and
    /// what it `listed` firing is what its destination takes for firing.
    /// Returns whether a follow-up was queued. `takesFollowUp` is false
    /// when the caller, with the outcome, read that no follow-up can be due
    /// (the delivery takes none, or its alert is still open): that spares
    /// reading the delivery and its alert again, which most outcomes would.
    @discardableResult
    package static func delivered<T: StoreTransaction>(
        _ id: DeliveryID, at now: Date, thread: String? = nil, listed: Set<AlertID>? = nil, takesFollowUp: Bool? = nil, in tx: inout T
    ) throws(T.Failure) -> Bool {
        if let parts = id.groupNotification { try confirmed(parts, listed: listed, thread: thread, in: &tx) }
        guard takesFollowUp != false,
              let original = try tx.delivery(id), original.takesFollowUp, original.state == .delivered,
              try tx.alertState(original.alertID)?.isFinal == true,
              try tx.delivery(.followUp(of: id)) == nil else { return false }
        try tx.insert(.followUp(of: original, at: now))
        return true
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
        // What this alert inhibited is screened again now.
        try tx.release(heldBy: .inhibition(by: alert.id), at: decision.at)
        try memberClosed(alert.id, at: decision.at, in: &tx)
        var handler: DeliveryID?
        if let kind = handlerCall(for: decision, on: alert), let action = kind.action {
            let id = DeliveryID.handler(alert.id, action)
            try tx.insert(.pending(id, alert: alert.id, kind: kind, at: decision.at))
            handler = id
        }
        var data = ["actor": decision.actor]
        if let comment = decision.comment { data["comment"] = comment }
        if let recipient = decision.recipient { data["recipient"] = recipient }
        if let handler { data["handler_delivery_id"] = handler.rawValue }
        // Presenters that showed the alert are told it closed. One still
        // pending or retrying is told once it has shown it (``delivered``);
        // one that never did (dead, or withheld by a silence) is not.
        var followUps: [DeliveryID] = []
        for original in try tx.deliveries(of: alert.id) {
            if original.takesFollowUp && original.state == .delivered {
                let followUp = DeliveryRecord.followUp(of: original, at: decision.at)
                try tx.insert(followUp)
                followUps.append(followUp.id)
            } else if original.state == .pending, let by = original.silencedBy {
                // Held by a silence or an inhibiting alert, it will never be
                // sent now: withheld at once. Left for its claim, it read as
                // pending, and counted in the backlog, until the silence ended.
                try tx.withhold(original.id, by: by, at: decision.at)
                try tx.append(.deliverySilenced, alert: alert.id, at: decision.at,
                              data: ["delivery_id": original.id.rawValue, "presenter": original.kind.name, "silence_id": by.rawValue])
            }
        }
        if !followUps.isEmpty { data["follow_up_delivery_ids"] = followUps.map(\.rawValue).joined(separator: ",") }
        if let kind = EventKind.closed(decision.outcome) { try tx.append(kind, alert: alert.id, at: decision.at, data: data) }
        return (closed, handler)
    }
}

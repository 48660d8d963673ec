import Foundation
import AlertModel

/// The store's in-memory twin, for unit tests of the parts above the store.
/// Same semantics as `SQLiteAlertStore`, no durability.
public actor InMemoryAlertStore: AlertStore {
    private var alertsByID: [AlertID: Alert] = [:]
    private var deliveries: [String: DeliveryRecord] = [:]
    private var escalations: [AlertID: (at: Date, presenters: [String])] = [:]
    private var log: [StoredEvent] = []

    public init() {}

    public func submit(_ submissions: [AlertSubmission]) -> [SubmissionResult] {
        submissions.map { s in
            if let key = s.alert.spec.dedupKey,
               let open = alertsByID.values.first(where: { $0.state == .open && $0.spec.dedupKey == key }) {
                return SubmissionResult(id: open.id, state: .open, deduplicated: true)
            }
            alertsByID[s.alert.id] = s.alert
            for (i, presenter) in s.presenters.enumerated() {
                addDelivery(DeliveryRecord.deliveryID(alert: s.alert.id, index: i), alert: s.alert.id, presenter: presenter, at: s.alert.createdAt)
            }
            if let e = s.escalation {
                escalations[s.alert.id] = (s.alert.createdAt.addingTimeInterval(e.after.seconds), e.presenters)
            }
            event("alert.created", s.alert.id, at: s.alert.createdAt)
            return SubmissionResult(id: s.alert.id, state: .open, deduplicated: false)
        }
    }

    public func record(id: AlertID) -> AlertRecord? {
        guard let alert = alertsByID[id] else { return nil }
        return AlertRecord(alert: alert, deliveries: deliveries.values.filter { $0.alertID == id }.sorted { $0.id < $1.id })
    }

    public func alerts(matching query: AlertQuery) -> AlertPage {
        let matching = alertsByID.values
            .filter { a in
                (query.state == nil || a.state == query.state)
                    && (query.before == nil || a.id < query.before!)
                    && query.labels.allSatisfy { a.spec.labels[$0.0] == $0.1 }
            }
            .sorted { $0.id > $1.id }
        let page = Array(matching.prefix(query.limit))
        return AlertPage(alerts: page, nextCursor: matching.count > query.limit ? page.last?.id : nil)
    }

    public func claimDueDeliveries(now: Date, capacity: [String: Int], orphanLimit: Int) -> [ClaimedDelivery] {
        let due = deliveries.values
            .filter { $0.state == .pending && ($0.nextAttemptAt ?? .distantFuture) <= now }
            .sorted { ($0.nextAttemptAt!, $0.id) < ($1.nextAttemptAt!, $1.id) }
        var used: [String: Int] = [:]
        var orphans = 0
        var out: [ClaimedDelivery] = []
        for d in due {
            if let slots = capacity[d.presenter] {
                guard used[d.presenter, default: 0] < slots else { continue }
                used[d.presenter, default: 0] += 1
            } else {
                guard orphans < orphanLimit else { continue }
                orphans += 1
            }
            var claimed = d
            claimed.state = .inFlight
            claimed.attempts += 1
            claimed.nextAttemptAt = nil
            claimed.updatedAt = now
            deliveries[d.id] = claimed
            out.append(ClaimedDelivery(delivery: claimed, alert: alertsByID[d.alertID]!))
        }
        return out
    }

    public func settle(_ settlements: [DeliverySettlement]) {
        for s in settlements {
            guard var d = deliveries[s.deliveryID] else { continue }
            d.updatedAt = s.at
            switch s.result {
            case .delivered:
                d.state = .delivered; d.deliveredAt = s.at; d.lastError = nil; d.nextAttemptAt = nil
            case .retry(let at, let error):
                d.state = .pending; d.nextAttemptAt = at; d.lastError = error
            case .dead(let error):
                d.state = .dead; d.lastError = error; d.nextAttemptAt = nil
            }
            deliveries[s.deliveryID] = d
        }
    }

    public func nextDueTime() -> Date? {
        deliveries.values.filter { $0.state == .pending }.compactMap(\.nextAttemptAt).min()
    }

    public func recoverInFlight(now: Date) -> Int {
        var n = 0
        for (id, var d) in deliveries where d.state == .inFlight {
            d.state = .pending; d.nextAttemptAt = now
            deliveries[id] = d
            n += 1
        }
        return n
    }

    public func replayDead(alert: AlertID?, now: Date) -> Int {
        var n = 0
        for (id, var d) in deliveries where d.state == .dead && (alert == nil || d.alertID == alert) {
            d.state = .pending; d.nextAttemptAt = now; d.attempts = 0
            deliveries[id] = d
            n += 1
        }
        return n
    }

    public func counts() -> StoreCounts {
        StoreCounts(
            openAlerts: alertsByID.values.filter { $0.state == .open }.count,
            pending: deliveries.values.filter { $0.state == .pending }.count,
            inFlight: deliveries.values.filter { $0.state == .inFlight }.count,
            dead: deliveries.values.filter { $0.state == .dead }.count)
    }

    public func decide(_ id: AlertID, _ decision: AlertDecision) -> DecisionResult {
        guard var alert = alertsByID[id] else { return .notFound }
        guard alert.state == .open else { return .alreadyDecided(alert) }
        alert.state = decision.outcome
        alert.decision = decision
        alert.updatedAt = decision.at
        alertsByID[id] = alert
        var handler: String?
        if let action = decision.action, alert.spec.action(action) != nil {
            handler = "\(id.rawValue).\(action.rawValue)"
            addDelivery(handler!, alert: id, presenter: HandlerDelivery.presenterName(for: action), at: decision.at)
        }
        event("alert.\(decision.outcome.rawValue)", id, at: decision.at, data: ["actor": decision.actor])
        return .decided(alert, handlerDelivery: handler)
    }

    public func openAlert(dedupKey: String) -> AlertID? {
        alertsByID.values.first { $0.state == .open && $0.spec.dedupKey == dedupKey }?.id
    }

    public func runMaintenance(now: Date) -> MaintenanceReport {
        var report = MaintenanceReport()
        for alert in alertsByID.values where alert.state == .open {
            if let expiry = alert.expiresAt, expiry <= now,
               case .decided = decide(alert.id, AlertDecision(outcome: .expired, actor: "alertd", at: now)) {
                report.expired.append(alert.id)
            }
        }
        for (id, e) in escalations where e.at <= now && alertsByID[id]?.state == .open {
            for (i, presenter) in e.presenters.enumerated() { addDelivery("\(id.rawValue).e\(i)", alert: id, presenter: presenter, at: now) }
            escalations[id] = nil
            event("alert.escalated", id, at: now)
            report.escalated.append(id)
        }
        return report
    }

    public func nextMaintenanceTime() -> Date? {
        let open = alertsByID.values.filter { $0.state == .open }
        let expiries = open.compactMap(\.expiresAt)
        let escalating = escalations.filter { alertsByID[$0.key]?.state == .open }.map(\.value.at)
        return (expiries + escalating).min()
    }

    public func events(after sequence: Int64, limit: Int) -> [StoredEvent] {
        Array(log.filter { $0.sequence > sequence }.prefix(limit))
    }

    public func lastEventSequence() -> Int64 {
        log.last?.sequence ?? 0
    }

    private func addDelivery(_ id: String, alert: AlertID, presenter: String, at: Date) {
        deliveries[id] = DeliveryRecord(
            id: id, alertID: alert, presenter: presenter, state: .pending, attempts: 0, nextAttemptAt: at,
            lastError: nil, createdAt: at, updatedAt: at, deliveredAt: nil)
    }

    private func event(_ type: String, _ alert: AlertID, at: Date, data: [String: String] = [:]) {
        log.append(StoredEvent(sequence: Int64(log.count + 1), type: type, alertID: alert, at: at, data: data))
    }

    public func prune(closedBefore cutoff: Date, limit: Int) -> Int {
        let gone = alertsByID.values
            .filter { a in
                a.state != .open && a.updatedAt < cutoff
                    && !deliveries.values.contains { $0.alertID == a.id && ($0.state == .pending || $0.state == .inFlight) }
            }
            .prefix(limit).map(\.id)
        for id in gone {
            alertsByID[id] = nil
            deliveries = deliveries.filter { $0.value.alertID != id }
        }
        log.removeAll { $0.at < cutoff && $0.sequence != log.last?.sequence }
        return gone.count
    }
}

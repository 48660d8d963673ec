import Foundation

/// The store's in-memory twin, for unit tests of the parts above the store.
/// Same semantics as `SQLiteAlertStore`, no durability.
public actor InMemoryAlertStore: AlertStore {
    private var alertsByID: [AlertID: Alert] = [:]
    private var deliveries: [String: DeliveryRecord] = [:]

    public init() {}

    public func submit(_ submissions: [AlertSubmission]) -> [SubmissionResult] {
        submissions.map { s in
            if let key = s.alert.spec.dedupKey,
               let open = alertsByID.values.first(where: { $0.state == .open && $0.spec.dedupKey == key }) {
                return SubmissionResult(id: open.id, state: .open, deduplicated: true)
            }
            alertsByID[s.alert.id] = s.alert
            for (i, presenter) in s.presenters.enumerated() {
                let id = StoreCoding.deliveryID(alert: s.alert.id, index: i)
                deliveries[id] = DeliveryRecord(
                    id: id, alertID: s.alert.id, presenter: presenter, state: .pending, attempts: 0,
                    nextAttemptAt: s.alert.createdAt, lastError: nil, createdAt: s.alert.createdAt,
                    updatedAt: s.alert.createdAt, deliveredAt: nil)
            }
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
}

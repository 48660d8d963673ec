import FoundationEssentials
import Synchronization
import AlertModel

/// The store's in-memory twin, for tests of the parts above the store. It
/// runs the same ``StoreRules`` as every backend and passes the same
/// conformance suite; it keeps nothing across restarts.
public actor InMemoryAlertStore: AlertStore {
    private var state = InMemoryStoreState()
    private nonisolated let silenceSaves = Atomic<UInt64>(0)

    public init() {}

    public func submit(_ submissions: [AlertSubmission]) -> [SubmissionResult] {
        StoreRules.submit(submissions, in: &state)
    }

    public func submit(_ submissions: [AlertSubmission], claiming kinds: Set<DeliveryKind>) -> SubmittedAlerts {
        StoreRules.submit(submissions, claiming: kinds, epoch: silenceEpoch, now: Date(), in: &state)
    }

    public nonisolated var silenceEpoch: UInt64 { silenceSaves.load(ordering: .acquiring) }

    public func openAlert(dedupKey: String) -> AlertID? {
        state.openAlert(dedupKey: dedupKey)
    }

    public func decide(_ id: AlertID, _ decision: AlertDecision) -> DecisionOutcome {
        StoreRules.decide(id, decision, in: &state)
    }

    public func decideOpen(dedupKeys: [String], _ decision: AlertDecision) -> [DecisionOutcome?] {
        StoreRules.decideOpen(dedupKeys: dedupKeys, decision, in: &state)
    }

    public func record(id: AlertID) -> AlertRecord? {
        guard let alert = state.alerts[id] else { return nil }
        return AlertRecord(alert: alert, deliveries: state.deliveries.values.filter { $0.alertID == id }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) },
                           groups: state.groups(containing: id))
    }

    public func alerts(matching query: AlertQuery) -> AlertPage {
        let matching = state.alerts.values
            .filter { a in
                (query.state == nil || a.state == query.state)
                    && (query.before.map { a.id < $0 } ?? true)
                    && query.labels.allSatisfy { label in a.spec.labels[label.0].map { LabelMatcher.same($0, label.1) } ?? false }
                    && (query.deliveryState.map { wanted in state.deliveries.values.contains { $0.alertID == a.id && $0.state == wanted } } ?? true)
            }
            .sorted { $0.id > $1.id }
        let limit = max(1, min(query.limit, 1_000))
        let page = Array(matching.prefix(limit))
        return AlertPage(alerts: page, nextCursor: matching.count > limit ? page.last?.id : nil)
    }

    public func claimDueDeliveries(now: Date, capacity: [DeliveryKind: Int], orphanLimit: Int,
                                   inhibitRules: [InhibitRule]) -> [ClaimedDelivery] {
        // Orphans (kinds not in `capacity`) due or not.
        let due = state.deliveries.values
            .filter { $0.state == .pending && (($0.nextAttemptAt ?? .distantFuture) <= now || capacity[$0.kind] == nil) }
            .sorted { ($0.nextAttemptAt ?? .distantPast, $0.id) < ($1.nextAttemptAt ?? .distantPast, $1.id) }
        var used: [DeliveryKind: Int] = [:]
        var orphans = 0
        var out: [ClaimedDelivery] = []
        let active = SilenceIndex(Array(state.silences.values), at: now)
        let inhibitions = Inhibitions(rules: inhibitRules, openAlerts: inhibitRules.isEmpty ? [] : Array(state.alerts.values))
        for d in due {
            if capacity[d.kind].map({ used[d.kind, default: 0] < $0 }) ?? false,
               !StoreRules.screen(d.id, kind: d.kind, heldBy: d.silencedBy, of: state.alerts[d.alertID]!, silences: active,
                                   inhibitions: inhibitions, now: now, in: &state) {
                continue
            }
            if let slots = capacity[d.kind] {
                guard used[d.kind, default: 0] < slots else { continue }
                used[d.kind, default: 0] += 1
            } else {
                guard orphans < orphanLimit else { continue }
                orphans += 1
            }
            let later = d.id.superseding(nextQueued: d.id.nextGroupNotification.map { state.deliveries[$0] != nil } ?? false,
                                         groupFormedAt: d.id.groupNotification.flatMap { state.groups[$0.group]?.generation })
            out.append(ClaimedDelivery(delivery: markClaimed(d, now: now), alert: state.alerts[d.alertID]!, group: state.snapshots[d.id],
                                       supersededBy: later))
        }
        return out
    }

    public func claimAccepted(_ accepted: [AcceptedDelivery], now: Date) -> [DeliveryRecord] {
        guard !state.silences.values.contains(where: { $0.isActive(at: now) }) else { return [] }
        var out: [DeliveryRecord] = []
        for a in accepted {
            guard let d = state.deliveries[a.id], d.state == .pending, (d.nextAttemptAt ?? .distantFuture) <= now else { continue }
            out.append(markClaimed(d, now: now))
        }
        return out
    }

    private func markClaimed(_ d: DeliveryRecord, now: Date) -> DeliveryRecord {
        let claimed = d.claimed(at: now)
        state.deliveries[d.id] = claimed
        return claimed
    }

    @discardableResult
    public func settle(_ settlements: [DeliverySettlement]) -> Int {
        var queued = 0
        for s in settlements {
            guard var d = state.deliveries[s.deliveryID] else { continue }
            d.updatedAt = s.at
            switch s.result {
            case .delivered:
                d.state = .delivered; d.deliveredAt = s.at; d.lastError = nil; d.nextAttemptAt = nil
            case .retry(let at, let error):
                d.state = .pending; d.nextAttemptAt = at; d.lastError = error
            case .dead(let error):
                d.state = .dead; d.lastError = error; d.nextAttemptAt = nil
            }
            if !s.sent { d.attempts = max(0, d.attempts - 1) }
            state.deliveries[s.deliveryID] = d
            state.append(s.result.eventKind, alert: d.alertID, at: s.at, data: StoreRules.eventData(s, kind: d.kind))
            if s.result == .delivered, StoreRules.delivered(s.deliveryID, at: s.at, thread: s.thread, listed: s.listed, in: &state) { queued += 1 }
        }
        return queued
    }

    public func nextDueTime(after: Date?) -> Date? {
        state.deliveries.values.filter { $0.state == .pending }.compactMap(\.nextAttemptAt)
            .filter { due in after.map { due > $0 } ?? true }.min()
    }

    public func recoverInFlight(now: Date) -> Int {
        var n = 0
        for (id, var d) in state.deliveries where d.state == .inFlight {
            d.state = .pending; d.nextAttemptAt = now; d.updatedAt = now
            state.deliveries[id] = d
            n += 1
        }
        return n
    }

    public func releaseStaleClaims(claimedBefore: Date, keeping: Set<DeliveryID>, lease: Duration, now: Date) -> Int {
        var n = 0
        for (id, var d) in state.deliveries where d.state == .inFlight && d.updatedAt < claimedBefore && !keeping.contains(id) {
            d.state = .pending; d.nextAttemptAt = now; d.updatedAt = now
            state.deliveries[id] = d
            n += 1
        }
        return n
    }

    public func releaseClaims(_ ids: [DeliveryID], now: Date) -> Int {
        var n = 0
        for id in ids {
            guard var d = state.deliveries[id], d.state == .inFlight else { continue }
            d.state = .pending; d.nextAttemptAt = now; d.updatedAt = now; d.attempts = max(d.attempts - 1, 0)
            state.deliveries[id] = d
            n += 1
        }
        return n
    }

    public func hastenRetries(of presenter: DeliveryKind, now: Date) -> Int {
        var n = 0
        for (id, var d) in state.deliveries
        where d.kind == presenter && d.state == .pending && d.attempts > 0 && d.silencedBy == nil && (d.nextAttemptAt ?? now) > now {
            d.nextAttemptAt = now
            d.updatedAt = now
            state.deliveries[id] = d
            n += 1
        }
        return n
    }

    public func replayDead(alert: AlertID?, now: Date) -> Int {
        var n = 0
        for (id, var d) in state.deliveries where d.state == .dead && (alert == nil || d.alertID == alert) {
            d.state = .pending; d.nextAttemptAt = now; d.updatedAt = now; d.attempts = 0
            state.deliveries[id] = d
            n += 1
        }
        return n
    }

    public func counts() -> StoreCounts {
        let deliveries = state.deliveries.values
        return StoreCounts(
            openAlerts: state.alerts.values.filter { $0.state == .open }.count,
            pending: deliveries.filter { $0.state == .pending }.count,
            inFlight: deliveries.filter { $0.state == .inFlight }.count,
            dead: deliveries.filter { $0.state == .dead }.count,
            silencedDeliveries: state.silencedDeliveries,
            pendingByPresenter: deliveries.filter { $0.state == .pending }.reduce(into: [:]) { $0[$1.kind.name, default: 0] += 1 },
            openGroups: state.groups.count)
    }

    public func followEscalations(_ plan: @escaping @Sendable (Alert) -> Escalation?) -> Int {
        let scheduled = state.escalations.filter { $0.value.firedAt == nil }.sorted { $0.key.rawValue < $1.key.rawValue }.map {
            ScheduledEscalation(alert: $0.key, at: $0.value.at, presenters: $0.value.presenters, followUps: $0.value.followUps)
        }
        return StoreRules.follow(scheduled, plan: plan, in: &state)
    }

    public func runMaintenance(now: Date, resendGraceFrom start: Date) -> MaintenanceReport {
        var report = MaintenanceReport()
        // Escalations first, as the clock had them: one due before the
        // alert's expiry or resolve (both overdue after a restart) fires.
        for (id, e) in state.escalations.sorted(by: { $0.value.at < $1.value.at }) where e.at <= now && e.firedAt == nil {
            guard let alert = state.alerts[id], alert.expiresAt.map({ e.at < $0 }) ?? true, alert.resolvesAt.map({ e.at < $0 }) ?? true else { continue }
            if StoreRules.escalate(id, to: e.presenters, followingUp: e.followUps, at: now, in: &state) { report.escalated.append(id) }
        }
        let expiring = state.alerts.values.filter { $0.state == .open && ($0.expiresAt.map { $0 <= now } ?? false) }
        for alert in expiring.sorted(by: { $0.expiresAt! < $1.expiresAt! })
        where StoreRules.expire(alert.id, at: now, in: &state) {
            report.expired.append(alert.id)
        }
        let lapsed = state.alerts.values.filter { $0.state == .open && (StoreRules.lapse(of: $0, resendGraceFrom: start).map { $0 <= now } ?? false) }
        for alert in lapsed.sorted(by: { $0.resolvesAt! < $1.resolvesAt! })
        where StoreRules.resolveLapsed(alert.id, at: now, resendGraceFrom: start, in: &state) {
            report.resolved.append(alert.id)
        }
        return report
    }

    public func nextMaintenanceTime() -> Date? {
        let open = state.alerts.values.filter { $0.state == .open }
        let expiries = open.compactMap(\.expiresAt) + open.compactMap(\.resolvesAt)
        let escalating = state.escalations
            .filter { $0.value.firedAt == nil && state.alerts[$0.key]?.state == .open && StoreCoding.millis($0.value.at) < StoreCoding.heldEscalation }
            .map(\.value.at)
        return (expiries + escalating).min()
    }

    public func events(after sequence: Int64, limit: Int) -> [StoredEvent] {
        Array(state.log.filter { $0.sequence > sequence }.prefix(max(1, limit)))
    }

    public func lastEventSequence() -> Int64 {
        state.log.last?.sequence ?? 0
    }

    public func prune(closedBefore cutoff: Date, limit: Int) -> Int {
        var unsettled = Set(state.deliveries.values.filter { $0.state == .pending || $0.state == .inFlight }.map(\.alertID))
        for members in state.members.values { unsettled.formUnion(members) }
        let gone = state.alerts.values
            .filter { $0.state != .open && $0.updatedAt < cutoff && !unsettled.contains($0.id) }
            .prefix(limit).map(\.id)
        for id in gone {
            state.alerts[id] = nil
            state.escalations[id] = nil
            state.deliveries = state.deliveries.filter { $0.value.alertID != id }
            state.snapshots = state.snapshots.filter { state.deliveries[$0.key] != nil }
        }
        let newest = state.log.last?.sequence
        state.log.removeAll { $0.at < cutoff && $0.sequence != newest }
        state.silences = state.silences.filter { $0.value.endsAt >= cutoff }
        return gone.count
    }

    public func saveSilence(_ silence: Silence, replacing id: SilenceID?, now: Date) -> SilenceSaveOutcome {
        silenceSaves.add(1, ordering: .releasing)
        return StoreRules.saveSilence(silence, replacing: id, now: now, in: &state)
    }

    public func silence(id: SilenceID) -> Silence? { state.silences[id] }

    public func silences() -> [Silence] {
        state.silences.values.sorted { ($0.updatedAt, $0.id) > ($1.updatedAt, $1.id) }
    }

    public func expireSilence(id: SilenceID, now: Date) -> Silence? {
        StoreRules.expireSilence(id, now: now, in: &state)
    }

    public func flushDueGroups(now: Date, inhibitRules: [InhibitRule], limit: Int) -> [GroupNotice] {
        let due = state.groups.values.filter { $0.nextDueAt <= now }.sorted { ($0.nextDueAt, $0.id) < ($1.nextDueAt, $1.id) }
        return StoreRules.flush(due.prefix(limit).map(\.id), now: now, inhibitRules: inhibitRules, in: &state)
    }

    public func nextGroupDueTime() -> Date? { state.groups.values.map(\.nextDueAt).min() }

    public func followRoutes(_ routes: [String: AlertGroupSettings], rerouting: GroupRerouting?, now: Date) -> Int {
        StoreRules.follow(state.groups.keys.sorted(), routes: routes, rerouting: rerouting, now: now, in: &state)
    }

    public func groups() -> [AlertGroup] { state.groups.values.sorted { ($0.nextDueAt, $0.id) < ($1.nextDueAt, $1.id) } }

    public func group(id: AlertGroupID) -> AlertGroupRecord? { StoreRules.groupRecord(id, in: &state) }

    public func releaseInhibited(now: Date) {
        state.releaseInhibited(at: now)
    }
}

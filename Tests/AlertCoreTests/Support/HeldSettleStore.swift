import Foundation
import Synchronization
@testable import AlertModel
@testable import AlertdStore

/// An in-memory store whose writes of delivery outcomes wait while `held`:
/// what the dispatcher does while the store is slow to record outcomes.
/// A poll's claim comes back `claimDelay` after the store made it.
final class HeldSettleStore: AlertStore {
    let inner = InMemoryAlertStore()
    let held: Mutex<Bool>
    let claimDelay = Mutex<Duration>(.zero)
    /// Outcome writes begun, held or not.
    let settleCalls = Atomic<Int>(0)
    /// Lease checks fail while set, as with the database out of reach.
    let leaseChecksFail = Mutex(false)
    /// Outcome writes fail while set, as on a full disk.
    let settlesFail = Mutex(false)
    /// Each lease check's `claimedBefore`, whether it failed, and when it came.
    let leaseChecks = Mutex<[(claimedBefore: Date, failed: Bool, at: ContinuousClock.Instant)]>([])

    /// Stands for a store other nodes claim from too.
    let isShared: Bool

    init(held: Bool = true, shared: Bool = false) {
        self.held = Mutex(held)
        isShared = shared
    }

    func release() { held.withLock { $0 = false } }

    func settle(_ settlements: [DeliverySettlement]) async throws(StoreError) -> Int {
        settleCalls.add(1, ordering: .relaxed)
        while held.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
        if settlesFail.withLock({ $0 }) { throw StoreError(code: .io, message: "database or disk is full") }
        return await inner.settle(settlements)
    }

    func submit(_ submissions: [AlertSubmission]) async throws(StoreError) -> [SubmissionResult] { await inner.submit(submissions) }
    func submit(_ submissions: [AlertSubmission], claiming kinds: Set<DeliveryKind>) async throws(StoreError) -> SubmittedAlerts {
        try await inner.submit(submissions, claiming: kinds)
    }
    var silenceEpoch: UInt64 { inner.silenceEpoch }
    func claimAccepted(_ accepted: [AcceptedDelivery], now: Date) async throws(StoreError) -> [DeliveryRecord] {
        try await inner.claimAccepted(accepted, now: now)
    }
    func record(id: AlertID) async throws(StoreError) -> AlertRecord? { await inner.record(id: id) }
    func alerts(matching query: AlertQuery) async throws(StoreError) -> AlertPage { await inner.alerts(matching: query) }
    func claimDueDeliveries(now: Date, capacity: [DeliveryKind: Int], orphanLimit: Int, inhibitRules: [InhibitRule]) async throws(StoreError) -> [ClaimedDelivery] {
        let claimed = try await inner.claimDueDeliveries(now: now, capacity: capacity, orphanLimit: orphanLimit, inhibitRules: inhibitRules)
        let delay = claimDelay.withLock { $0 }
        if delay > .zero { try? await Task.sleep(for: delay) }
        return claimed
    }
    func nextDueTime(after: Date?) async throws(StoreError) -> Date? { try await inner.nextDueTime(after: after) }
    func recoverInFlight(now: Date) async throws(StoreError) -> Int { try await inner.recoverInFlight(now: now) }
    func releaseStaleClaims(claimedBefore: Date, keeping: Set<DeliveryID>, lease: Duration, now: Date) async throws(StoreError) -> Int {
        let failing = leaseChecksFail.withLock { $0 }
        leaseChecks.withLock { $0.append((claimedBefore, failing, .now)) }
        if failing { throw StoreError(code: .io, message: "the database cannot be reached") }
        return try await inner.releaseStaleClaims(claimedBefore: claimedBefore, keeping: keeping, lease: lease, now: now)
    }
    /// Deliveries given back with ``releaseClaims(_:now:)``.
    let released = Mutex<[DeliveryID]>([])
    func releaseClaims(_ ids: [DeliveryID], now: Date) async throws(StoreError) -> Int {
        released.withLock { $0 += ids }
        return try await inner.releaseClaims(ids, now: now)
    }
    func hastenRetries(of presenter: DeliveryKind, now: Date) async throws(StoreError) -> Int {
        try await inner.hastenRetries(of: presenter, now: now)
    }
    func replayDead(alert: AlertID?, now: Date) async throws(StoreError) -> Int { try await inner.replayDead(alert: alert, now: now) }
    func counts() async throws(StoreError) -> StoreCounts { try await inner.counts() }
    func decide(_ id: AlertID, _ decision: AlertDecision) async throws(StoreError) -> DecisionOutcome { await inner.decide(id, decision) }
    func decideOpen(dedupKeys: [String], _ decision: AlertDecision) async throws(StoreError) -> [DecisionOutcome?] {
        await inner.decideOpen(dedupKeys: dedupKeys, decision)
    }
    func openAlert(dedupKey: String) async throws(StoreError) -> AlertID? { await inner.openAlert(dedupKey: dedupKey) }
    func nextMaintenanceTime() async throws(StoreError) -> Date? { try await inner.nextMaintenanceTime() }
    func followEscalations(_ plan: @escaping @Sendable (Alert) -> Escalation?) async throws(StoreError) -> Int {
        await inner.followEscalations(plan)
    }

    func runMaintenance(now: Date, resendGraceFrom start: Date) async throws(StoreError) -> MaintenanceReport {
        try await inner.runMaintenance(now: now, resendGraceFrom: start)
    }
    func events(after sequence: Int64, limit: Int) async throws(StoreError) -> [StoredEvent] { try await inner.events(after: sequence, limit: limit) }
    func lastEventSequence() async throws(StoreError) -> Int64 { try await inner.lastEventSequence() }
    func prune(closedBefore cutoff: Date, limit: Int) async throws(StoreError) -> Int { try await inner.prune(closedBefore: cutoff, limit: limit) }
    func saveSilence(_ silence: Silence, replacing id: SilenceID?, now: Date) async throws(StoreError) -> SilenceSaveOutcome {
        try await inner.saveSilence(silence, replacing: id, now: now)
    }
    func silence(id: SilenceID) async throws(StoreError) -> Silence? { try await inner.silence(id: id) }
    func silences() async throws(StoreError) -> [Silence] { try await inner.silences() }
    func expireSilence(id: SilenceID, now: Date) async throws(StoreError) -> Silence? { try await inner.expireSilence(id: id, now: now) }
    func flushDueGroups(now: Date, inhibitRules: [InhibitRule], limit: Int) async throws(StoreError) -> [GroupNotice] {
        try await inner.flushDueGroups(now: now, inhibitRules: inhibitRules, limit: limit)
    }
    func nextGroupDueTime() async throws(StoreError) -> Date? { try await inner.nextGroupDueTime() }
    func followRoutes(_ routes: [String: AlertGroupSettings], rerouting: GroupRerouting?, now: Date) async throws(StoreError) -> Int {
        try await inner.followRoutes(routes, rerouting: rerouting, now: now)
    }
    func groups() async throws(StoreError) -> [AlertGroup] { try await inner.groups() }
    func group(id: AlertGroupID) async throws(StoreError) -> AlertGroupRecord? { try await inner.group(id: id) }
    func releaseInhibited(now: Date) async throws(StoreError) { try await inner.releaseInhibited(now: now) }
}

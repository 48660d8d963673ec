import Foundation
@testable import AlertModel
@testable import AlertdStore

/// A store whose every call fails with one `StoreError`, as a store on a
/// full or vanished disk would: what the layers above do with a failure.
struct FailingAlertStore: AlertStore {
    var error = StoreError(code: .io, message: "disk I/O error; check the disk holding the state directory.")
    /// `counts()` does not return for a minute, as on a frozen disk.
    var countsHang = false

    func submit(_ submissions: [AlertSubmission]) async throws(StoreError) -> [SubmissionResult] { throw error }
    func record(id: AlertID) async throws(StoreError) -> AlertRecord? { throw error }
    func alerts(matching query: AlertQuery) async throws(StoreError) -> AlertPage { throw error }
    func claimDueDeliveries(now: Date, capacity: [DeliveryKind: Int], orphanLimit: Int, inhibitRules: [InhibitRule]) async throws(StoreError) -> [ClaimedDelivery] { throw error }
    func settle(_ settlements: [DeliverySettlement]) async throws(StoreError) -> Int { throw error }
    func nextDueTime(after: Date?) async throws(StoreError) -> Date? { throw error }
    func recoverInFlight(now: Date) async throws(StoreError) -> Int { throw error }
    func releaseStaleClaims(claimedBefore: Date, keeping: Set<DeliveryID>, lease: Duration, now: Date) async throws(StoreError) -> Int { throw error }
    func releaseClaims(_ ids: [DeliveryID], now: Date) async throws(StoreError) -> Int { throw error }
    func hastenRetries(of presenter: DeliveryKind, now: Date) async throws(StoreError) -> Int { throw error }
    func replayDead(alert: AlertID?, now: Date) async throws(StoreError) -> Int { throw error }
    func counts() async throws(StoreError) -> StoreCounts {
        if countsHang { try? await Task.sleep(for: .seconds(60)) }
        throw error
    }
    func decide(_ id: AlertID, _ decision: AlertDecision) async throws(StoreError) -> DecisionOutcome { throw error }
    func decideOpen(dedupKeys: [String], _ decision: AlertDecision) async throws(StoreError) -> [DecisionOutcome?] { throw error }
    func openAlert(dedupKey: String) async throws(StoreError) -> AlertID? { throw error }
    func nextMaintenanceTime() async throws(StoreError) -> Date? { throw error }
    func runMaintenance(now: Date, resendGraceFrom start: Date) async throws(StoreError) -> MaintenanceReport { throw error }
    func followEscalations(_ plan: @escaping @Sendable (Alert) -> Escalation?) async throws(StoreError) -> Int { throw error }
    func events(after sequence: Int64, limit: Int) async throws(StoreError) -> [StoredEvent] { throw error }
    func lastEventSequence() async throws(StoreError) -> Int64 { throw error }
    func prune(closedBefore cutoff: Date, limit: Int) async throws(StoreError) -> Int { throw error }
    func saveSilence(_ silence: Silence, replacing id: SilenceID?, now: Date) async throws(StoreError) -> SilenceSaveOutcome { throw error }
    func silence(id: SilenceID) async throws(StoreError) -> Silence? { throw error }
    func silences() async throws(StoreError) -> [Silence] { throw error }
    func expireSilence(id: SilenceID, now: Date) async throws(StoreError) -> Silence? { throw error }
    func flushDueGroups(now: Date, inhibitRules: [InhibitRule], limit: Int) async throws(StoreError) -> [GroupNotice] { throw error }
    func nextGroupDueTime() async throws(StoreError) -> Date? { throw error }
    func followRoutes(_ routes: [String: AlertGroupSettings], rerouting: GroupRerouting?, now: Date) async throws(StoreError) -> Int {
        throw error
    }
    func groups() async throws(StoreError) -> [AlertGroup] { throw error }
    func group(id: AlertGroupID) async throws(StoreError) -> AlertGroupRecord? { throw error }
    func releaseInhibited(now: Date) async throws(StoreError) { throw error }
}

import FoundationEssentials
import AlertModel

// The store, as the parts above it see it: one narrow protocol per use, so
// each part asks for only what it needs, and `AlertStore` for a backend that
// offers all of them. Every backend runs the shared rules in ``StoreRules``
// and passes the conformance suite (Tests/AlertCoreTests/Store).

/// Taking alerts in. The daemon answers a submitter only after `submit`
/// returns, so an implementation must not return before the alerts are as
/// durable as it promises.
public protocol AlertIntakeStore: Sendable {
    /// Stores new alerts with one pending delivery per presenter, or folds an
    /// alert into the open one with the same dedup key (``StoreRules``).
    /// Results are in the order of `submissions`.
    func submit(_ submissions: [AlertSubmission]) async throws(StoreError) -> [SubmissionResult]

    /// ``submit(_:)``, writing the new deliveries of `kinds` already claimed
    /// (in flight, their first attempt counted) for the dispatcher they are
    /// handed to, so it starts them without a claim of its own. Only while
    /// no silence is active or scheduled: one would have to screen them as
    /// they are claimed. The result holds the new alerts' deliveries as
    /// stored, for the hand-off, and says whether it claimed them and at
    /// which ``DeliveryQueue/silenceEpoch``.
    func submit(_ submissions: [AlertSubmission], claiming kinds: Set<DeliveryKind>) async throws(StoreError) -> SubmittedAlerts

    /// The open alert holding `dedupKey`, if any.
    func openAlert(dedupKey: String) async throws(StoreError) -> AlertID?
}

extension AlertIntakeStore {
    /// A backend that does not claim at intake writes every delivery pending.
    public func submit(_ submissions: [AlertSubmission], claiming kinds: Set<DeliveryKind>) async throws(StoreError) -> SubmittedAlerts {
        let results = try await submit(submissions)
        var deliveries: [AcceptedDelivery] = []
        for (submission, result) in zip(submissions, results) where !result.deduplicated { deliveries += submission.deliveries }
        return SubmittedAlerts(results: results, deliveries: deliveries)
    }
}

/// Closing alerts by a person's (or the clock's) decision.
public protocol DecisionStore: Sendable {
    /// Closes an open alert by ``StoreRules/decide(_:_:in:)``: the first
    /// decision wins, one after the alert's expiry loses to it, and the
    /// decision's handler call is queued in the same transaction.
    func decide(_ id: AlertID, _ decision: AlertDecision) async throws(StoreError) -> DecisionOutcome

    /// ``decide(_:_:)`` for the open alert holding each dedup key, all in
    /// one transaction: for each key, in order, the outcome, or nil when no
    /// open alert holds it. Alertmanager's senders resolve by key, up to
    /// thousands in a request.
    func decideOpen(dedupKeys: [String], _ decision: AlertDecision) async throws(StoreError) -> [DecisionOutcome?]
}

/// The delivery queue the dispatcher works from.
public protocol DeliveryQueue: Sendable {
    /// Marks up to `capacity[kind]` due deliveries per kind as in flight,
    /// counts the attempt, and returns them with their alerts. A delivery an
    /// active silence matches is held back instead, by
    /// ``StoreRules/screen(_:kind:heldBy:of:silences:inhibitions:now:in:)``,
    /// and so is one an open alert inhibits by one of `inhibitRules`.
    /// Pending deliveries of kinds missing from `capacity` (orphans: their
    /// presenter is gone) are returned too, up to `orphanLimit`, due or not
    /// and unscreened, so the caller can settle them: none can be sent, and
    /// one left for a retry or a silence to end would wait for a sweep that
    /// comes only after a reload. A store nodes share returns only those
    /// whose presenter no live node has (each says its own with `capacity`
    /// when it looks for orphans).
    func claimDueDeliveries(now: Date, capacity: [DeliveryKind: Int], orphanLimit: Int,
                            inhibitRules: [InhibitRule]) async throws(StoreError) -> [ClaimedDelivery]

    /// Claims deliveries handed over in memory right after they were stored
    /// (``AcceptedDelivery``) as `claimDueDeliveries` would, without reading
    /// their alerts back: each one still pending and due becomes in flight
    /// with its attempt counted; the others (claimed meanwhile, settled) are
    /// skipped. While any silence is active none is claimed, so every one
    /// goes through the claim that screens (as does every one while
    /// inhibition rules apply: the dispatcher then hands none over). A
    /// backend may also leave to that claim any that has changed since it
    /// was stored (an attempt made, a silence met). Returns the claimed
    /// deliveries, in the order given.
    func claimAccepted(_ accepted: [AcceptedDelivery], now: Date) async throws(StoreError) -> [DeliveryRecord]

    /// Records how attempts went, each with its event. Returns how many
    /// deliveries that queued, due now (follow-ups of alerts that closed
    /// while they were being shown), so the dispatcher knows to look.
    @discardableResult
    func settle(_ settlements: [DeliverySettlement]) async throws(StoreError) -> Int

    /// ``settle(_:)`` and then ``claimAccepted(_:now:)`` in one write, so
    /// the slots the outcomes free change hands in the commit that records
    /// them: never more claimed and unsettled than before, one trip to the
    /// store instead of two. Returns what `settle` and `claimAccepted` would.
    func settle(_ settlements: [DeliverySettlement], thenClaim accepted: [AcceptedDelivery],
                now: Date) async throws(StoreError) -> (queued: Int, claimed: [DeliveryRecord])

    /// When the next pending delivery is due, if any is pending; with
    /// `after`, the soonest due strictly later than it (what a poll at
    /// `after` could not have claimed yet).
    func nextDueTime(after: Date?) async throws(StoreError) -> Date?

    /// Makes deliveries a crash left in flight due again. Called once at
    /// start, before the dispatcher runs; returns how many.
    func recoverInFlight(now: Date) async throws(StoreError) -> Int

    /// Makes claims nobody is working on due again: deliveries in flight
    /// since before `claimedBefore` whose ids are not in `keeping` (the
    /// claimant's own running deliveries), which it renews. A claim whose
    /// outcome could not be recorded (a full disk) would otherwise stay in
    /// flight for ever. A store shared by nodes may judge by its own clock,
    /// taking only the window, `now` less `claimedBefore`. `lease` is the
    /// caller's own claim lease, which it renews its claims within: a store
    /// shared by nodes keeps it, and judges each node's claims by the longer
    /// of its lease and the window, so nodes with different leases never
    /// take each other's running deliveries. Returns how many.
    func releaseStaleClaims(claimedBefore: Date, keeping: Set<DeliveryID>, lease: Duration, now: Date) async throws(StoreError) -> Int

    /// Whether other nodes claim from this store too. After it could not be
    /// reached, their claims are left a lease to be renewed before any is
    /// released (``releaseStaleClaims(claimedBefore:keeping:lease:now:)``).
    var isShared: Bool { get }

    /// Gives back claims made at intake (``AlertIntakeStore/submit(_:claiming:)``)
    /// that were never started: each of `ids` still in flight becomes pending
    /// and due at `now`, its uncounted attempt taken back, for the claim that
    /// screens. Returns how many.
    func releaseClaims(_ ids: [DeliveryID], now: Date) async throws(StoreError) -> Int

    /// Makes due at `now` every retry of `presenter` waiting for a later
    /// time: pending deliveries with an attempt made, no silence or
    /// inhibition holding them. Called once the presenter delivers again
    /// after failing, so a receiver back from an outage gets its backlog at
    /// once rather than as each delivery's backoff runs out. Returns how many.
    func hastenRetries(of presenter: DeliveryKind, now: Date) async throws(StoreError) -> Int

    /// Moves on each time a silence is saved. A delivery claimed at intake
    /// at an earlier epoch may be one the new silence holds, so it is given
    /// back (``releaseClaims(_:now:)``) rather than started. Read without
    /// waiting: the dispatcher asks before each start.
    var silenceEpoch: UInt64 { get }

    /// Makes dead deliveries pending again: those of one alert, or all of them
    /// when `alert` is nil. Returns how many.
    func replayDead(alert: AlertID?, now: Date) async throws(StoreError) -> Int
}

extension DeliveryQueue {
    /// A backend that never claims at intake has no epoch to move.
    public var silenceEpoch: UInt64 { 0 }

    /// One node's own, as SQLite's and the in-memory store are.
    public var isShared: Bool { false }

    /// A backend without the shortcut leaves every hand-off to `claimDueDeliveries`.
    public func claimAccepted(_ accepted: [AcceptedDelivery], now: Date) async throws(StoreError) -> [DeliveryRecord] { [] }

    /// Two writes, in order: the claims never run ahead of the outcomes.
    public func settle(_ settlements: [DeliverySettlement], thenClaim accepted: [AcceptedDelivery],
                       now: Date) async throws(StoreError) -> (queued: Int, claimed: [DeliveryRecord]) {
        let queued = try await settle(settlements)
        return (queued, try await claimAccepted(accepted, now: now))
    }

    /// Claims without inhibition rules.
    public func claimDueDeliveries(now: Date, capacity: [DeliveryKind: Int], orphanLimit: Int) async throws(StoreError) -> [ClaimedDelivery] {
        try await claimDueDeliveries(now: now, capacity: capacity, orphanLimit: orphanLimit, inhibitRules: [])
    }
}

/// Reading what the store holds.
public protocol AlertQueries: Sendable {
    /// One alert with its deliveries, or nil when there is no such alert.
    func record(id: AlertID) async throws(StoreError) -> AlertRecord?

    /// Alerts newest first, filtered and paged.
    func alerts(matching query: AlertQuery) async throws(StoreError) -> AlertPage

    /// Live totals for status lines and metrics.
    func counts() async throws(StoreError) -> StoreCounts

    /// Events with a sequence number above `sequence`, oldest first.
    func events(after sequence: Int64, limit: Int) async throws(StoreError) -> [StoredEvent]

    /// The newest event's sequence number, or 0 while the log is empty:
    /// where a reader that wants only what happens from now on starts.
    func lastEventSequence() async throws(StoreError) -> Int64
}

/// Work done on the clock: expiry, escalation, retention.
public protocol MaintenanceStore: Sendable {
    /// Expires open alerts whose time is up and escalates those open past
    /// their route's escalation delay, by ``StoreRules``. An alert that
    /// resolves by the clock (a sender's `endsAt`) and was last sent before
    /// `start` resolves no sooner than its sender's window after `start`
    /// (``StoreRules/lapse(of:resendGraceFrom:)``).
    func runMaintenance(now: Date, resendGraceFrom start: Date) async throws(StoreError) -> MaintenanceReport

    /// When the next expiry or escalation is due, if any is pending.
    func nextMaintenanceTime() async throws(StoreError) -> Date?

    /// At start and after a reload: the escalations not yet fired follow
    /// the routes as configured, `plan` giving an open alert's escalation
    /// by them (``StoreRules/follow(_:plan:in:)``), a few hundred alerts a
    /// transaction. Returns how many changed.
    func followEscalations(_ plan: @escaping @Sendable (Alert) -> Escalation?) async throws(StoreError) -> Int

    /// Deletes up to `limit` alerts closed before `cutoff` whose deliveries
    /// are all settled and that no group still has to tell of (a member
    /// leaves its group once told it closed; pruned before, the group would
    /// end without its `resolved`), with their deliveries, events older than `cutoff`
    /// (but never the newest), and silences that ended before `cutoff`.
    /// Returns how many alerts went.
    func prune(closedBefore cutoff: Date, limit: Int) async throws(StoreError) -> Int

    /// Gives part of the space that pruning freed back to the file system,
    /// a slice at a time so writes are not held up; true while more is left
    /// to give. A store whose space is not its own to give (PostgreSQL's,
    /// which its autovacuum tends) or that has none keeps the default: false.
    func shrink() async throws(StoreError) -> Bool
}

extension MaintenanceStore {
    public func shrink() async throws(StoreError) -> Bool { false }

    /// ``runMaintenance(now:resendGraceFrom:)`` with no grace: every lapse at its time.
    public func runMaintenance(now: Date) async throws(StoreError) -> MaintenanceReport {
        try await runMaintenance(now: now, resendGraceFrom: .distantPast)
    }
}

/// Silences, which hold back the deliveries of the alerts they match. The
/// holding itself happens where deliveries are claimed
/// (``DeliveryQueue/claimDueDeliveries(now:capacity:orphanLimit:)``), by
/// ``StoreRules/screen(_:kind:heldBy:of:silences:now:in:)``.
public protocol SilenceStore: Sendable {
    /// Stores a new silence under its own id, or, with `replacing`, changes
    /// the silence with that id by ``StoreRules/saveSilence(_:replacing:now:in:)``:
    /// in place while it has not expired and its matchers stay the same,
    /// else by expiring it and storing `silence` as a new one. Whatever
    /// the silence held back is screened again.
    func saveSilence(_ silence: Silence, replacing id: SilenceID?, now: Date) async throws(StoreError) -> SilenceSaveOutcome

    /// One silence, or nil when there is no such silence.
    func silence(id: SilenceID) async throws(StoreError) -> Silence?

    /// Every silence, expired ones included until they are pruned, newest first.
    func silences() async throws(StoreError) -> [Silence]

    /// Ends a silence now (a pending one never starts) and releases what it
    /// held back; nil when there is no such silence. An expired silence
    /// stays as it was.
    func expireSilence(id: SilenceID, now: Date) async throws(StoreError) -> Silence?

    /// Screens every delivery an inhibition holds again at its next claim:
    /// what a reload that changes the `inhibit` rules calls, so a removed
    /// rule lets go of its targets at once rather than at the recheck.
    func releaseInhibited(now: Date) async throws(StoreError)
}

/// A backend that offers every part: what the daemon opens.
public typealias AlertStore = AlertIntakeStore & DecisionStore & DeliveryQueue & AlertQueries & MaintenanceStore & SilenceStore & GroupStore

/// Grouping: the timer's work on the groups, and what they show.
public protocol GroupStore: Sendable {
    /// Flushes up to `limit` groups whose time has come, oldest due first,
    /// by ``StoreRules/flush(_:now:silences:inhibitions:in:)``: members an
    /// active silence or one of `inhibitRules` holds are not listed. Returns
    /// the notifications queued. On a shared database one node at a time
    /// does this; the others find nothing due afterwards.
    func flushDueGroups(now: Date, inhibitRules: [InhibitRule], limit: Int) async throws(StoreError) -> [GroupNotice]

    /// When the next group is due, if any group is open.
    func nextGroupDueTime() async throws(StoreError) -> Date?

    /// At start and after a reload: the open groups take the settings
    /// (presenters and timers) of their route in `routes`, the grouped
    /// routes by name, now rather than when a member next joins; those of
    /// a route no longer there only tell their presenters that they
    /// resolved (``StoreRules/follow(_:routes:rerouting:now:in:)``); those
    /// of the routes `rerouting` names send the members they told nobody of
    /// where it says.
    /// Returns how many groups changed.
    func followRoutes(
        _ routes: [String: AlertGroupSettings], rerouting: GroupRerouting?, now: Date
    ) async throws(StoreError) -> Int

    /// Every open group, soonest due first.
    func groups() async throws(StoreError) -> [AlertGroup]

    /// One group with its members and what each presenter was told; nil
    /// when no such group is open.
    func group(id: AlertGroupID) async throws(StoreError) -> AlertGroupRecord?
}

extension DeliveryQueue {
    /// When the next pending delivery is due, if any is pending.
    public func nextDueTime() async throws(StoreError) -> Date? {
        try await nextDueTime(after: nil)
    }
}

extension GroupStore {
    /// ``followRoutes(_:rerouting:now:)`` leaving every group's members in it.
    public func followRoutes(_ routes: [String: AlertGroupSettings], now: Date) async throws(StoreError) -> Int {
        try await followRoutes(routes, rerouting: nil, now: now)
    }
}

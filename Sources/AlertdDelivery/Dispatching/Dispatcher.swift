import FoundationEssentials
import Synchronization
import AlertModel
import AlertdLogging
import AlertdServices
import AlertdStore

/// Delivers stored alerts: claims due deliveries from the store, hands each
/// to its presenter, and records the outcome, retrying by the policy.
///
/// The store is the queue. New alerts' deliveries are also handed over in
/// memory right after their commit (``accept(_:)``), so the dispatcher claims
/// them without polling for them or reading their alerts back. Those of the
/// kinds it names (``handOffClaimKinds()``) the store wrote already claimed
/// for it, so it starts them with no claim at all: in flight in the store
/// means being sent or waiting here for a slot. Nothing is held only in
/// memory, so a crash loses at most the knowledge that an attempt was made,
/// and the delivery is claimed again after restart (at-least-once, with the
/// same delivery id).
///
/// As a ``Service``: `start()` recovers what a crash left in flight, `run()`
/// loops, a graceful shutdown stops claiming and lets deliveries in flight
/// finish, and cancellation cuts them off, leaving them in flight in the
/// store to be delivered again after restart.
public actor Dispatcher: Service {
    /// What the dispatcher reports about each finished attempt (for metrics and logs).
    public struct AttemptReport: Sendable {
        public let kind: DeliveryKind
        public let alertID: AlertID
        public let deliveryID: DeliveryID
        public let attempt: Int
        public let outcome: PresentationOutcome
        public let settlement: DeliverySettlement.Result
        /// From the alert's acceptance to the end of this attempt.
        public let sinceAccepted: Duration
        /// True for a follow-up (telling the presenter the alert closed).
        public let isFollowUp: Bool
    }

    public nonisolated let name = "dispatcher"
    private let store: any AlertStore
    private var links: ActionLinkSigner?
    private var presenters: PresenterSet
    private var retry: RetryPolicy
    private let log: Logger
    private let onAttempt: @Sendable (AttemptReport) -> Void
    private let signal = ChangeSignal()
    /// The signal's generation when the loop last looked: a wake-up since
    /// then ends the next wait at once.
    private var seen: UInt64 = 0
    /// What holds each presenter kind's slots (``Slots``): one look-up a
    /// move, where a dictionary per count cost three.
    private var slots: [DeliveryKind: Slots] = [:]
    /// One per rate-limited presenter. Tokens bound how many deliveries are
    /// claimed, so those over the limit simply stay pending in the store.
    private var buckets: [DeliveryKind: TokenBucket] = [:]
    /// The `inhibit` rules, held against each delivery as it is claimed.
    private var inhibitRules: [InhibitRule]
    private var tasks: [DeliveryID: RunningAttempt] = [:]
    /// Attempts shutdown cut off, to be given back as it ends (``releaseCutOff()``).
    private var cutOffIDs: [DeliveryID] = []
    /// Deliveries claimed while their presenter was not paused and about to
    /// start once it was: a claim under way when another attempt's 429 came.
    /// Given back to the store as pending by ``giveBack()``; the poll takes
    /// them again once the pause is over.
    private var claimedDuringPause: [DeliveryID] = []
    /// Set once shutdown cuts attempts off: from then on nothing starts. A
    /// store write under way can still hand over claims (a settle that
    /// claims hand-offs, a notification waiting in line); started, they
    /// were neither cut off nor waited for, and ran on past the stop.
    private var cuttingOff = false
    private var claimFailures = RepeatedFailureLog()
    /// The lease check runs several times a second: a store down for long is a line a minute.
    private var leaseCheckFailures = RepeatedFailureLog()
    /// The group notification being sent to each presenter, by group. One
    /// claimed meanwhile for the same presenter waits in `waitingInLine`
    /// for that attempt to end, as Alertmanager's group sends one
    /// notification at a time: sent at once, a `resolved` could reach a
    /// receiver still reading a slow `firing`, or overtake one still
    /// connecting, and a PagerDuty incident closed first would be opened
    /// again for good. It waits holding no slot, so a receiver slow on one
    /// group holds back none of the others, and a later one claimed while
    /// it waits takes its place (it ends superseded, unsent).
    private var groupLines: [GroupLine: DeliveryID] = [:]
    private var waitingInLine: [GroupLine: ClaimedDelivery] = [:]
    private struct GroupLine: Hashable {
        let group: AlertGroupID
        let kind: DeliveryKind
    }
    private var started = false
    private var stopping = false
    /// Deliveries mostly lose their presenter at start (a config changed
    /// while alertd was down) or on reload, so then the scan that finds
    /// them runs at once; the flag stays up until a sweep finds none. Some
    /// are made for a presenter already gone (a replay of a dead one, a
    /// follow-up queued by a decision), so it runs every ten idle ticks
    /// too (10 s by default).
    private var sweepOrphans = true
    private var lastOrphanSweep = ContinuousClock.now
    /// Outcomes waiting for the store, and whether a write of them is under way.
    private var unsettled: [Unsettled] = []
    private var settling = false
    /// Outcomes whose write failed (a full disk, the database out of
    /// reach): their deliveries are over, and their claims kept while the
    /// write is tried again at each lease check. Released after a lease,
    /// as before, each was sent again: a full disk made 3,129 repeats of
    /// 5,000 deliveries. A restart still sends them again.
    private var unrecorded: [DeliverySettlement] = []
    /// An attempt over, its outcome not yet written. A struct, not a tuple:
    /// the runtime copied a tuple of these field by field through its
    /// generic witnesses.
    private struct Unsettled {
        let settlement: DeliverySettlement
        let report: AttemptReport?

        /// The delivery as its claim gave it: every settlement the
        /// dispatcher makes carries it, so it is not held twice (each copy of
        /// an outcome copied it twice, a retain for each of its strings).
        var delivery: DeliveryRecord { settlement.delivery! }
    }
    /// Hand-offs taken for a freed slot that the store must claim: claimed
    /// in the next write of outcomes.
    private var claimNext: [AcceptedDelivery] = []
    /// Outcomes of attempts run on an HTTP client's thread
    /// (``HTTPRequestPresenter``), for the actor to take in one turn.
    private nonisolated let reported = Mutex<[Unsettled]>([])
    /// Hand-offs from intake, until `loop` moves them to `handedOff`.
    private nonisolated let inbox = Mutex<[AcceptedDelivery]>([])
    /// Hand-offs on their way, by kind: intake has them in a store write that
    /// has not reported back. Their rows may be committed already, and a poll
    /// would claim them the long way (re-reading and decoding each alert)
    /// just before their hand-off arrived; so a poll leaves them their slots.
    private nonisolated let inTransit = Mutex<[DeliveryKind: Int]>([:])
    private var handedOff = HandOffQueue(limit: 8_192)
    /// Hand-offs the store wrote claimed that will not be started here
    /// (dropped, or a silence saved since): given back to the store by
    /// ``giveBack()`` before the loop goes on.
    private var givingBack: [AcceptedDelivery] = []
    /// Hand-offs the store wrote claimed, taken for a slot and about to
    /// start once a store write under way is done: held as running ones are.
    private var starting = Set<DeliveryID>()
    /// What ``handOffClaimKinds()`` answers.
    private nonisolated let claimKinds = Mutex<Set<DeliveryKind>>([])
    private var lastPoll = ContinuousClock.now - .seconds(60)
    /// True while the store holds nothing due that the dispatcher does not
    /// already have in hand: the last look found nothing due, and nothing
    /// since put work there past the hand-offs (a wake-up, a hand-off left
    /// to the poll, a follow-up queued by a settle). Then a round that only
    /// claims hand-offs skips the poll and the next-due read, two store
    /// calls per round that found nothing. Retries it settled itself move
    /// `knownNextDue`; a poll every `idleTick` remains the backstop.
    private var storeQuiet = false
    /// The soonest due time the store is known to hold, while `storeQuiet`.
    private var knownNextDue: Date?
    /// Presenters with a retry waiting or being attempted, that have not
    /// delivered since: when one delivers again, its waiting retries are
    /// made due at once (``hasten(_:)``), as often as ``hastened`` lets it.
    /// Not handler calls: theirs is one kind for every alert's own handler
    /// URL, and one handler's answer says nothing of another's.
    private var failing: Set<DeliveryKind> = []
    /// When each presenter's waiting retries were last made due, and how
    /// long before they may be again: `initial_delay`, doubled at each
    /// (at most `max_delay`), afresh after `max_delay` without one. A
    /// receiver that refuses some requests and takes others (payloads it
    /// cannot take, a flaky one) delivers again at every other request:
    /// made due each time, a refused alert was tried 41 times in 10 s with a
    /// backoff of 5 s, and 20 of them used up `max_attempts` in 4 s. A
    /// receiver back from an outage still gets its backlog at once.
    private var hastened: [DeliveryKind: (at: ContinuousClock.Instant, wait: Duration)] = [:]
    /// Presenters whose service asked to wait (`Retry-After`, a 429 body's
    /// `retry_after`): none of their deliveries starts before then. The
    /// wait is the service's, not one delivery's: Telegram's flood wait and
    /// Discord's limits hold for the whole bot or webhook, and each request
    /// made inside them lengthens the penalty. At most `retry.maxDelay`,
    /// after which one attempt asks again. Not handler calls: one handler's
    /// wait says nothing of another's.
    private var pausedUntil: [DeliveryKind: ContinuousClock.Instant] = [:]
    /// Presenters whose every attempt failed lately (``FailureStreak``):
    /// past ``failuresToTrip`` in a row, their retries are tried one at a
    /// time, paced by the backoff, until one delivery is delivered. An
    /// outage of 30 s with 10,000 alerts waiting had made 64,000 attempts,
    /// each written twice to the store (1.5 GB) and logged. New alerts (the
    /// hand-offs) are not held: each is tried once as it comes, so one sent
    /// as the receiver comes back goes at once (a receiver up and down every
    /// 3 s had made them wait up to 16 s), and alerts the receiver always
    /// refuses do not hold back the ones it takes.
    private var streaks: [DeliveryKind: FailureStreak] = [:]
    private static let failuresToTrip = 16
    /// The longest wait between single attempts of a failing presenter:
    /// the most what waited (retries, group notifications) is held once the
    /// receiver is back. At 5 s, 200 alerts held by an outage were all
    /// delivered 2.4-2.6 s after it ended (Alertmanager told every group in
    /// 1.1 s), at 2 s 1.4-1.6 s; one attempt every 2 s is little to a
    /// receiver that is down.
    private static let longestProbeWait: Duration = .seconds(2)
    /// How often a failing presenter's failed attempts, logged at debug
    /// level, are counted in a `presenter still failing` line.
    private static let failingReminder: Duration = .seconds(60)
    /// Counts what made the store not quiet, so a look that began before
    /// one of them (the loop awaits the store while settles complete) does
    /// not call the store quiet after it.
    private var storeChanges: UInt64 = 0
    /// Set by ``wake()``: something outside put work in the store.
    private nonisolated let pollRequested = Mutex(true)
    /// Set by ``wake(queuedFor:)``: deliveries were queued for a presenter
    /// this dispatcher does not have, to be swept as orphans.
    private nonisolated let orphansQueued = Mutex(false)
    /// The presenters configured, for ``wake(queuedFor:)`` to check without the actor.
    private nonisolated let configuredNames: Mutex<Set<String>>
    /// While hand-offs wait for slots, the store is still polled this often,
    /// so retries and handler calls are not starved by a stream of new alerts.
    private static let pollInterval: Duration = .milliseconds(200)
    #if ALERTD_TEST_HOOKS
    /// Set by a test-only fault hook: the loop stops going round.
    private var stalled = false
    #endif
    /// True from `start()` until `run()` returns; the health endpoint reports it.
    public private(set) var isRunning = false
    /// The last time the loop went round; the watchdog reads it to tell a
    /// live dispatcher from a stuck one.
    public private(set) var lastLoopAt = ContinuousClock.now
    /// The longest the loop sleeps with nothing due, so it proves it is alive.
    private let idleTick: Duration

    public init(
        store: any AlertStore, presenters: PresenterSet, retry: RetryPolicy, links: ActionLinkSigner? = nil,
        logger: Logger = Logger(label: "dispatcher"), idleTick: Duration = .seconds(1), claimLease: Duration = .seconds(60),
        inhibitRules: [InhibitRule] = [], onAttempt: @escaping @Sendable (AttemptReport) -> Void = { _ in }
    ) {
        self.claimLease = claimLease
        self.inhibitRules = inhibitRules
        self.store = store
        self.links = links
        self.presenters = presenters
        configuredNames = Mutex(Set(presenters.entries.keys.map(\.name)))
        self.retry = retry
        self.log = logger
        self.idleTick = idleTick
        self.onAttempt = onAttempt
        self.buckets = Self.buckets(for: presenters, keeping: [:])
    }

    /// A bucket per rate-limited presenter; one whose limit is unchanged
    /// keeps its tokens across a reload, so a reload is no way round it.
    private static func buckets(for presenters: PresenterSet, keeping old: [DeliveryKind: TokenBucket]) -> [DeliveryKind: TokenBucket] {
        var out: [DeliveryKind: TokenBucket] = [:]
        for (kind, entry) in presenters.entries {
            guard let limit = entry.rateLimit else { continue }
            out[kind] = old[kind].flatMap { $0.limit == limit ? $0 : nil } ?? TokenBucket(limit)
        }
        return out
    }

    /// Tells the dispatcher that new deliveries may be due now.
    public nonisolated func wake() {
        pollRequested.withLock { $0 = true }
        signal.notify()
    }

    /// ``wake()``, for deliveries queued for these presenters: a group
    /// notification for a presenter a reload took out of the configuration
    /// (its group still names it until an alert joins) is swept as an
    /// orphan, settled dead with why, not left pending for good.
    public nonisolated func wake(queuedFor names: some Sequence<String>) {
        let configured = configuredNames.withLock { $0 }
        if names.contains(where: { !configured.contains($0) }) { orphansQueued.withLock { $0 = true } }
        wake()
    }

    /// Intake is about to store alerts that may bring deliveries of these
    /// kinds, to be handed over with ``accept(_:)``.
    public nonisolated func expectHandOffs(_ kinds: [DeliveryKind: Int]) {
        guard !kinds.isEmpty else { return }
        inTransit.withLock { t in for (kind, n) in kinds { t[kind, default: 0] += n } }
    }

    /// The store write ``expectHandOffs(_:)`` announced is over, and what it
    /// hands over (if anything) has been given to ``accept(_:)``.
    public nonisolated func expectedHandOffsArrived(_ kinds: [DeliveryKind: Int]) {
        guard !kinds.isEmpty else { return }
        inTransit.withLock { t in
            for (kind, n) in kinds {
                let left = t[kind, default: 0] - n
                t[kind] = left > 0 ? left : nil
            }
        }
    }

    /// The kinds whose new deliveries the store may write already claimed
    /// for this dispatcher (``AlertIntakeStore/submit(_:claiming:)``):
    /// every presenter without a rate limit (whose hand-offs could wait
    /// long for tokens), while no `inhibit` rule applies (the claim that
    /// screens must see each delivery), from the time it has recovered what
    /// a crash left in flight until it stops.
    public nonisolated func handOffClaimKinds() -> Set<DeliveryKind> {
        claimKinds.withLock { $0 }
    }

    private func updateClaimKinds() {
        let kinds = started && isRunning && !stopping && inhibitRules.isEmpty
            ? Set(presenters.entries.compactMap { $0.value.rateLimit == nil ? $0.key : nil }) : []
        claimKinds.withLock { $0 = kinds }
    }

    /// Hands over deliveries the store has just committed, with their alerts.
    public nonisolated func accept(_ deliveries: [AcceptedDelivery]) {
        guard !deliveries.isEmpty else { return }
        inbox.withLock { $0 += deliveries }
        signal.notify()
    }

    /// Swaps presenters and retry policy; deliveries already in flight finish
    /// with the presenter they started with. Changed `inhibit` rules screen
    /// every delivery an inhibition holds again: a removed rule lets go of
    /// its targets now, not at the hourly recheck. Links signed from now on
    /// are valid for `linkLifetime`. A failing presenter in `unchanged` (its
    /// definition the same) stays paced, and is tried once at once.
    public func reconfigure(presenters: PresenterSet, retry: RetryPolicy, claimLease: Duration? = nil, inhibitRules: [InhibitRule]? = nil,
                            linkLifetime: Duration? = nil, unchanged: Set<DeliveryKind> = []) async {
        sweepOrphans = true
        if let linkLifetime { links?.lifetime = linkLifetime }
        storeChanged()
        if let inhibitRules, inhibitRules != self.inhibitRules {
            self.inhibitRules = inhibitRules
            do throws(StoreError) {
                try await store.releaseInhibited(now: Date())
            } catch {
                log.error("could not release deliveries held by inhibitions", ["error": "\(error)"])
            }
            // Released deliveries are due now; a look the loop began meanwhile may have missed them.
            storeChanged()
        }
        if let claimLease, claimLease != self.claimLease {
            self.claimLease = claimLease
            // Other nodes judge this one's claims by the lease it last gave
            // the store: a longer one must be there before claims are renewed
            // at its slower pace, so the next turn of the loop gives it.
            lastLeaseCheck = .now - .seconds(86_400)
        }
        // A presenter reconfigured (a fixed URL, say) starts afresh at full
        // concurrency. One defined as before keeps its pacing: a reload that
        // changed nothing (logrotate's SIGHUP) let a thousand held retries
        // go at a receiver still down, 514 attempts in 5 s against 2. Its
        // one try now finds a fix its definition does not show (a secret
        // file's new token) and, delivered, ends the pacing.
        streaks = streaks.reduce(into: [:]) { kept, entry in
            guard unchanged.contains(entry.key) else { return }
            kept[entry.key] = FailureStreak(failures: entry.value.failures, trips: entry.value.trips, nextTry: .now)
        }
        configuredNames.withLock { $0 = Set(presenters.entries.keys.map(\.name)) }
        self.presenters = presenters
        self.buckets = Self.buckets(for: presenters, keeping: buckets)
        self.retry = retry
        updateClaimKinds()
        signal.notify()
    }

    #if ALERTD_TEST_HOOKS
    /// Test-only: wedges the loop (or frees it), as a hung store call would.
    public func setStalledForTesting(_ on: Bool) {
        stalled = on
        signal.notify()
    }
    #endif

    /// How long a claim may stand with no running delivery behind it before
    /// it is released; checked a few times per lease.
    private var claimLease: Duration
    /// Long ago, so the loop's first turn checks before anything is
    /// claimed: a shared store learns this node's lease before another
    /// node judges a claim of its (by its own shorter lease until then, it
    /// sent a just-started node's running deliveries again).
    private var lastLeaseCheck = ContinuousClock.now - .seconds(86_400)
    /// When the last lease check on a shared store failed: for a lease
    /// after it, claims are renewed but none released (``releaseStaleClaims()``).
    private var leaseCheckFailedAt: ContinuousClock.Instant?

    /// Deliveries of the presenter `name` claimed and waiting here (for a
    /// slot, or in a group's line), in flight in the store, not pending: a
    /// reconfiguration without it leaves them dead.
    public func waitingForSlots(of name: String) -> Int {
        handedOff.claimedCount(of: .presenter(name)) + waitingInLine.keys.count { $0.kind == .presenter(name) }
    }

    /// Number of deliveries in flight right now: being sent, or sent with
    /// the outcome not yet written.
    public var inFlightCount: Int { slots.values.reduce(0) { $0 + $1.running + $1.awaitingWrite } }

    /// Puts back what a crash left in flight, so it is claimed again.
    public func start() async {
        guard !started else { return }
        started = true
        isRunning = true
        do {
            let recovered = try await store.recoverInFlight(now: Date())
            if recovered > 0 { log.notice("recovered deliveries left in flight", ["count": "\(recovered)"]) }
        } catch {
            log.error("could not recover in-flight deliveries", ["error": "\(error)"])
        }
        // Only now: the recovery must not take back a claim made for this run.
        updateClaimKinds()
    }

    /// Claims and delivers until asked to stop, then waits for the
    /// deliveries in flight; cancelled, it cuts them off instead. Starts the
    /// dispatcher first if ``start()`` has not.
    public func run() async {
        await start()
        defer {
            isRunning = false
            updateClaimKinds()
        }
        await withTaskCancellationHandler {
            await loop()
            // What waits for a slot goes back to the store as pending; one
            // still on its way stays in flight there, recovered at the next start.
            if !Task.isCancelled {
                givingBack += handedOff.removeAll() + inbox.withLock { inbox in
                    defer { inbox.removeAll() }
                    return inbox
                }
                await giveBack()
            }
            await finishInFlight()
            // Tried once more; still refused, they are said, for the next start sends them again.
            do throws(StoreError) { try await writeUnrecorded() } catch {
                log.warning("delivery outcomes could not be written before the stop; the next start sends those deliveries again",
                            ["count": "\(unrecorded.count)", "error": "\(error)"])
            }
        } onCancel: {
            signal.notify()
        }
    }

    /// Stops claiming; ``run()`` returns once the deliveries in flight are done.
    public func shutdownGracefully() {
        stopping = true
        updateClaimKinds()
        signal.notify()
    }

    private func loop() async {
        while !stopping && !Task.isCancelled {
            #if ALERTD_TEST_HOOKS
            while stalled && !stopping && !Task.isCancelled { try? await Task.sleep(for: .milliseconds(20)) }
            #endif
            lastLoopAt = .now
            await releaseStaleClaims()
            startWaitingInLine()
            var claimedAny = false
            do {
                let tick = ContinuousClock.now
                claimedAny = try await claimHandedOff(at: tick)
                if pollNeeded() {
                    lastPoll = .now
                    storeQuiet = false
                    let changesBefore = storeChanges
                    let pollAt = Date()
                    var capacity = freeSlots(at: tick, paced: true)
                    if handOffsInTransit { capacity.merge(inTransit.withLock { $0 }) { free, coming in max(0, free - coming) } }
                    if orphansQueued.withLock({ queued in defer { queued = false }; return queued }) { sweepOrphans = true }
                    if ContinuousClock.now - lastOrphanSweep >= idleTick * 10 { sweepOrphans = true }
                    if sweepOrphans { lastOrphanSweep = .now }
                    let orphanLimit = sweepOrphans ? 32 : 0
                    let claimed = try await store.claimDueDeliveries(now: pollAt, capacity: capacity, orphanLimit: orphanLimit,
                                                                     inhibitRules: inhibitRules)
                    if orphanLimit > 0 && !claimed.contains(where: { presenters[$0.delivery.kind] == nil }) { sweepOrphans = false }
                    claimedAny = claimedAny || !claimed.isEmpty
                    for c in claimed {
                        // One ending unsent spends no token: else a group that changes
                        // faster than its presenter's rate never gets what stands now out.
                        if !c.isStale { buckets[c.delivery.kind]?.take(1, at: tick) }
                        start(c)
                    }
                    // A poll with room for all that was due took it all; anything due by
                    // `pollAt` the store holds now came since, as a hand-off. So the
                    // store is quiet until the soonest due after the poll.
                    if hadRoom(capacity, orphanLimit: orphanLimit, for: claimed) {
                        let next = try await store.nextDueTime(after: pollAt)
                        if storeChanges == changesBefore {
                            storeQuiet = true
                            knownNextDue = next
                        }
                    }
                }
                claimFailures.succeeded(log, "deliveries are claimed again")
            } catch {
                claimFailures.failed(log, "could not claim deliveries", ["error": "\(error)"])
            }
            if stopping || Task.isCancelled { break }
            if claimedAny { continue }
            let wait: Duration
            if !handedOff.isEmpty {
                // Hand-offs wait for a slot (a finished delivery wakes the loop) or a token.
                seen = await signal.wait(changedFrom: seen, timeout: min(Self.pollInterval, nextToken()))
                continue
            }
            if storeQuiet {
                // Nothing in the store to look for before the next due time known, or a wake-up.
                let untilDue = knownNextDue.map { Duration.milliseconds(Int64(max(0, $0.timeIntervalSinceNow) * 1000) + 1) } ?? idleTick
                seen = await signal.wait(changedFrom: seen, timeout: min(nextToken(), untilDue))
                continue
            }
            do {
                let changesBefore = storeChanges
                let next = try await store.nextDueTime()
                if next.map({ $0 > Date() }) ?? true, storeChanges == changesBefore {
                    storeQuiet = true
                    knownNextDue = next
                }
                if let next {
                    let delta = next.timeIntervalSinceNow
                    // Due now but not claimed means every slot is busy or a rate limit is spent:
                    // wait for a slot to free up (a wake-up) or the next token.
                    wait = delta <= 0 ? min(idleTick, nextToken()) : .milliseconds(Int64(min(delta, idleTick.seconds) * 1000) + 1)
                } else {
                    wait = idleTick
                }
            } catch {
                wait = idleTick
            }
            seen = await signal.wait(changedFrom: seen, timeout: min(wait, nextToken()))
        }
    }

    private func storeChanged() {
        storeQuiet = false
        storeChanges &+= 1
    }

    /// Whether intake has hand-offs on their way. While inhibition rules
    /// apply nothing is handed off (the poll screens every delivery), so
    /// nothing is on its way either.
    private var handOffsInTransit: Bool { inhibitRules.isEmpty && inTransit.withLock { !$0.isEmpty } }

    /// Whether this round must look in the store beyond the hand-offs.
    private func pollNeeded() -> Bool {
        let sinceLast = ContinuousClock.now - lastPoll
        if pollRequested.withLock({ requested in
            defer { requested = false }
            return requested
        }) {
            return true
        }
        // Hand-offs waiting for slots, or on their way: retries and handler calls get a look this often.
        if !handedOff.isEmpty || handOffsInTransit { return sinceLast >= Self.pollInterval }
        guard storeQuiet else { return true }
        if let due = knownNextDue, due <= Date() { return true }
        return sinceLast >= idleTick
    }

    /// Whether a poll claimed fewer than it had room for, of every kind
    /// (and of orphans): then nothing due was left behind.
    private func hadRoom(_ capacity: [DeliveryKind: Int], orphanLimit: Int, for claimed: [ClaimedDelivery]) -> Bool {
        var taken: [DeliveryKind: Int] = [:]
        for c in claimed { taken[c.delivery.kind, default: 0] += 1 }
        let orphans = claimed.filter { capacity[$0.delivery.kind] == nil }.count
        return capacity.allSatisfy { kind, slots in taken[kind, default: 0] < slots } && (orphanLimit == 0 || orphans < orphanLimit)
    }

    /// Free slots per presenter kind, within its rate limit. A slot is free
    /// once its attempt is over, unless more outcomes than the presenter has
    /// slots still wait to be written.
    /// `paced`: for what a poll claims (retries, and what was left to the
    /// store), which a failing presenter takes one at a time; not for hand-offs.
    private func freeSlots(at tick: ContinuousClock.Instant, paced: Bool) -> [DeliveryKind: Int] {
        var capacity: [DeliveryKind: Int] = [:]
        for (kind, entry) in presenters.entries { capacity[kind] = freeSlots(of: kind, entry, at: tick, paced: paced) }
        return capacity
    }

    private func freeSlots(of kind: DeliveryKind, _ entry: PresenterSet.Entry, at tick: ContinuousClock.Instant, paced: Bool = false) -> Int {
        if let until = pausedUntil[kind] {
            if tick < until { return 0 }
            pausedUntil[kind] = nil
        }
        let max = entry.maxConcurrency
        let held = slots[kind] ?? Slots()
        var free = max - held.taken(of: max)
        // A failing presenter's retries: one at a time, once its wait is over.
        if paced, let streak = streaks[kind], streak.tripped {
            if let next = streak.nextTry, tick < next { return 0 }
            free = Swift.max(0, 1 - held.taken(of: max))
        }
        guard !buckets.isEmpty, let tokens = buckets[kind]?.available(at: tick) else { return free }
        return Swift.min(free, tokens - held.reserved)
    }

    /// Claims what fits of the hand-offs, without reading their alerts back.
    /// One the store does not give (claimed by a poll meanwhile, or a silence
    /// is active and the poll must screen it) is left to the poll.
    /// While inhibition rules apply, every delivery goes through the
    /// poll's claim, which screens it.
    private func claimHandedOff(at tick: ContinuousClock.Instant) async throws(StoreError) -> Bool {
        let arrived = inbox.withLock { inbox in
            defer { inbox.removeAll() }
            return inbox
        }
        guard inhibitRules.isEmpty else {
            // Every delivery goes through the poll's claim, which screens it.
            let waiting = handedOff.removeAll()
            if !arrived.isEmpty || !waiting.isEmpty { storeChanged() }
            givingBack += arrived + waiting
            await giveBack()
            return false
        }
        let dropped = handedOff.append(arrived)
        if !dropped.isEmpty {
            storeChanged()
            givingBack += dropped
            log.debug("hand-offs left to the store's queue", ["count": "\(dropped.count)"])
        }
        let taken = handedOff.isEmpty ? [] : takeHandOffs(freeSlots(at: tick, paced: false))
        let (ready, toClaim) = sorted(taken)
        await giveBack()
        guard !taken.isEmpty else { return false }
        var claimed: [DeliveryRecord] = []
        if !toClaim.isEmpty {
            do {
                claimed = try await store.claimAccepted(toClaim, now: Date())
            } catch {
                storeChanged()
                startHandOffs(ready: ready, toClaim: toClaim, claimed: [], at: tick)
                throw error
            }
        }
        startHandOffs(ready: ready, toClaim: toClaim, claimed: claimed, at: tick)
        if claimed.isEmpty && !toClaim.isEmpty && !handedOff.isEmpty {
            // The store gave none: a silence is active, so each delivery must
            // be screened by the poll's claim. The rest waiting go to it too:
            // while they wait here they hold the poll's room, and taking them
            // a slot's worth a round drained 5,000 in 15 s.
            storeChanged()
            givingBack += handedOff.removeAll()
            await giveBack()
        }
        return !claimed.isEmpty || !ready.isEmpty
    }

    /// Parts hand-offs into those the store wrote claimed at the silence
    /// epoch it is at now, started as they are, and those the store must
    /// claim. One claimed at an earlier epoch may be held by the silence
    /// saved since: it goes back to the store (``giveBack()``) to be screened.
    /// The ready ones are `starting` until ``startHandOffs(ready:toClaim:claimed:at:)``.
    private func sorted(_ taken: some Sequence<AcceptedDelivery>) -> (ready: [AcceptedDelivery], toClaim: [AcceptedDelivery]) {
        var ready: [AcceptedDelivery] = []
        var toClaim: [AcceptedDelivery] = []
        let epoch = store.silenceEpoch
        for d in taken {
            switch d.claimEpoch {
            case nil:
                toClaim.append(d)
            case epoch:
                ready.append(d)
                starting.insert(d.id)
            default:
                givingBack.append(d)
                continue
            }
            slots[d.kind, default: Slots()].reserved += 1
        }
        return (ready, toClaim)
    }

    /// Gives the store back the hand-offs it wrote claimed that will not be
    /// started here, as pending, for the claim that screens.
    private func giveBack() async {
        let ids = givingBack.compactMap { $0.claimEpoch == nil ? nil : $0.id } + claimedDuringPause
        givingBack = []
        claimedDuringPause = []
        guard !ids.isEmpty else { return }
        storeChanged()
        do {
            _ = try await store.releaseClaims(ids, now: Date())
        } catch {
            log.error("could not give back hand-offs claimed at intake; they are retried once the claim lease runs out",
                      ["count": "\(ids.count)", "error": "\(error)", "claim_lease": claimLease.alertdDescription])
        }
    }

    /// Takes hand-offs for `slots`; those of a presenter no longer
    /// configured are dropped, for the poll to settle.
    private func takeHandOffs(_ slots: [DeliveryKind: Int]) -> [AcceptedDelivery] {
        let (taken, dropped) = handedOff.take(slots)
        if !dropped.isEmpty {
            storeChanged()
            givingBack += dropped
        }
        return taken
    }

    /// Starts the hand-offs the store wrote claimed (`ready`) and those of
    /// `toClaim` it gave as claimed. One a poll claimed first is running
    /// already; any other is left in the store. Each gives up the slot
    /// ``sorted(_:)`` reserved for it; a started one holds it as running.
    private func startHandOffs(ready: [AcceptedDelivery], toClaim: [AcceptedDelivery], claimed: [DeliveryRecord],
                               at tick: ContinuousClock.Instant) {
        for d in ready {
            starting.remove(d.id)
            slots[d.kind, default: Slots()].release(\.reserved)
            if !buckets.isEmpty { buckets[d.kind]?.take(1, at: tick) }
            start(ClaimedDelivery(delivery: d.record, alert: d.alert))
        }
        guard !toClaim.isEmpty else { return }
        for d in toClaim { slots[d.kind, default: Slots()].release(\.reserved) }
        if claimed.count != toClaim.count {
            let given = Set(claimed.map(\.id))
            if toClaim.contains(where: { !given.contains($0.id) && tasks[$0.id] == nil }) { storeChanged() }
        }
        var alerts: [DeliveryID: Alert] = [:]
        for d in toClaim { alerts[d.id] = d.alert }
        for record in claimed {
            guard let alert = alerts[record.id] else { continue }
            buckets[record.kind]?.take(1, at: tick)
            start(ClaimedDelivery(delivery: record, alert: alert))
        }
    }

    /// The soonest a spent rate limit frees a token or a pause ends
    /// (idleTick when none is spent or paused).
    private func nextToken() -> Duration {
        let now = ContinuousClock.now
        var soonest = idleTick
        for until in pausedUntil.values where until > now { soonest = min(soonest, until - now) }
        for streak in streaks.values { if let next = streak.nextTry, next > now { soonest = min(soonest, next - now) } }
        for kind in buckets.keys {
            let wait = buckets[kind]!.untilNextToken(at: now)
            if wait > .zero { soonest = min(soonest, wait) }
        }
        return soonest
    }

    /// Puts back claims that no running delivery holds: one whose outcome
    /// could not be recorded, or that startup recovery could not reset.
    private func releaseStaleClaims() async {
        guard ContinuousClock.now - lastLeaseCheck >= max(claimLease / 4, .milliseconds(100)) else { return }
        lastLeaseCheck = .now
        // While the store could not be reached, no node could renew its
        // claims either; released the moment it is back, other nodes'
        // running deliveries were sent again. Each gets a lease to renew first.
        if let failed = leaseCheckFailedAt, ContinuousClock.now - failed >= claimLease { leaseCheckFailedAt = nil }
        let cutoff = leaseCheckFailedAt == nil ? Date().addingTimeInterval(-claimLease.seconds) : .distantPast
        // A failure was said when they failed; the store's own log says while writes fail.
        try? await writeUnrecorded()
        do {
            // Hand-offs the store wrote claimed are this dispatcher's too while they wait.
            var keeping = Set(tasks.keys).union(handedOff.ids).union(starting).union(claimedDuringPause)
            for outcome in unrecorded { keeping.insert(outcome.deliveryID) }
            for waiting in waitingInLine.values { keeping.insert(waiting.delivery.id) }
            for d in inbox.withLock({ $0 }) + givingBack { keeping.insert(d.id) }
            let released = try await store.releaseStaleClaims(claimedBefore: cutoff, keeping: keeping, lease: claimLease, now: Date())
            leaseCheckFailures.succeeded(log, "stale claims are checked again")
            if released > 0 { storeChanged() }
            if released > 0 { log.warning("released claims left in flight without a running delivery", ["count": "\(released)"]) }
        } catch {
            // One node's own store has no other claims to wait for: a claim
            // its full disk left goes back after one lease, not two.
            if store.isShared { leaseCheckFailedAt = .now }
            leaseCheckFailures.failed(log, "could not release stale claims", ["error": "\(error)"])
        }
    }

    /// Writes the outcomes a failed write left (``unrecorded``); while the
    /// store still refuses, they stay kept, with their claims.
    private func writeUnrecorded() async throws(StoreError) {
        guard !unrecorded.isEmpty else { return }
        let outcomes = unrecorded
        if try await store.settle(outcomes) > 0 { storeChanged() }
        unrecorded.removeFirst(outcomes.count)
        log.notice("recorded delivery outcomes that could not be written before", ["count": "\(outcomes.count)"])
    }

    /// How long a stop waits for aborted requests to report back: well
    /// within the second the service group gives a cancelled service.
    private static let cutOffReportLimit: Duration = .milliseconds(250)

    /// Lets the deliveries in flight finish; once the task is cancelled (the
    /// grace is over), cancels them and waits only for them to wind down.
    private func finishInFlight() async {
        while !tasks.isEmpty {
            if Task.isCancelled {
                // Outcomes already back are settled, not cut off.
                takeReported()
                cuttingOff = true
                log.warning("deliveries cut off by shutdown; they are given back, to be retried by another node or after restart",
                            ["count": "\(tasks.count)"])
                let cut = Array(tasks.values)
                for attempt in cut { attempt.cancel() }
                for case .task(let task) in cut { await task.value }
                // Requests abort on their client's thread and report back,
                // cut off (``takeReported()``), each within moments; those
                // reported already are waited for within the same time, their
                // outcome still on its way to the store.
                let deadline = ContinuousClock.now + Self.cutOffReportLimit
                while tasks.values.contains(where: \.ranOnClient), ContinuousClock.now < deadline {
                    // In a task of its own: this one is cancelled, and its sleep would end at once.
                    await Task.detached { try? await Task.sleep(for: .milliseconds(5)) }.value
                }
                // Not reported back: given back as cut off. Those reported
                // have their outcome on its way to the store, and keep it.
                for (id, attempt) in tasks where attempt.isRequest {
                    cutOffIDs.append(id)
                    tasks[id] = nil
                }
                break
            }
            seen = await signal.wait(changedFrom: seen, timeout: idleTick)
        }
        // Group notifications still waiting in line were claimed and never started.
        cutOffIDs += waitingInLine.values.map(\.delivery.id) + claimedDuringPause
        waitingInLine = [:]
        claimedDuringPause = []
        await releaseCutOff()
    }

    private func start(_ claimed: ClaimedDelivery) {
        let d = claimed.delivery
        guard !cuttingOff else {
            // Given back with the cut-off ones; after the stop, recovered at the next start.
            cutOffIDs.append(d.id)
            return
        }
        // A retry: its presenter failed before, perhaps before a restart.
        if d.attempts > 1, d.kind.action == nil { failing.insert(d.kind) }
        let followUp = d.followUpOf.flatMap { AlertFollowUp(closing: claimed.alert, original: $0) }
        let configured = presenters[d.kind]
        let unusable: String? = if configured == nil {
            // Its presenter was removed from the config: nothing can deliver it.
            d.presenterNotConfiguredError
        } else if let later = claimed.supersededBy {
            // Sent after the group's next notification (a retry once the destination is back), it would undo it.
            later.groupNotification?.generation == d.id.groupNotification?.generation
                ? "superseded: the group's next notification to this presenter (\(later)) is queued and says what stands now"
                : "superseded: the group ended and formed again since; its notifications to this presenter (from \(later)) say what stands now"
        } else if claimed.isStale {
            // Its snapshot went when the next was queued, and that one is gone
            // since (pruned with its alert): sent now, it would say only its anchor alert.
            "superseded: a later notification of the group to this presenter was sent; this one's content is no longer kept"
        } else if d.followUpOf != nil && (followUp == nil || configured?.followUps != true) {
            // Its presenter was reconfigured since: a type without follow-ups would send the alert again.
            d.presenterSendsNoFollowUpsError
        } else if d.attempts > 1, streaks[d.kind]?.tripped == true, Date().timeIntervalSince(d.createdAt) > retry.maxAge.seconds {
            // A retry held while its presenter fails (``streaks``; the claim
            // counted this attempt), not tried at its time: the rule its attempt
            // would have applied, applied now. Not a first attempt, nor a
            // replay's (its count starts again), nor one after the presenter
            // delivered again.
            // Its last attempt's error stays first: that is what went wrong.
            (d.lastError.map { $0 + " " } ?? "")
                + "(gave up: retry.max_age of \(retry.maxAgeText) passed while its presenter failed; first tried \(AlertDuration(seconds: Int64(Date().timeIntervalSince(d.createdAt)))) ago)"
        } else {
            nil
        }
        guard let entry = configured, unusable == nil else {
            endUnsent(d, reason: unusable ?? "")
            return
        }
        // Its slot was counted before a store call; the service may have
        // asked to wait meanwhile, and each request inside its wait
        // lengthens it (Telegram's flood wait, Discord's limits).
        if !pausedUntil.isEmpty, d.kind.action == nil, isPaused(d.kind, at: .now) {
            claimedDuringPause.append(d.id)
            signal.notify()
            return
        }
        let line = claimed.group.map { GroupLine(group: $0.notification.groupID, kind: d.kind) }
        if let line {
            guard groupLines[line] == nil else {
                if let overtaken = waitingInLine.updateValue(claimed, forKey: line) {
                    endUnsent(overtaken.delivery,
                              reason: "superseded: the group's next notification to this presenter (\(d.id)) is queued and says what stands now")
                }
                return
            }
            groupLines[line] = d.id
        }
        slots[d.kind, default: Slots()].running += 1
        let retry = entry.presenter.minimumRetryDelay.map { floor in
            var retry = self.retry
            retry.minimumDelay = floor
            return retry
        } ?? self.retry
        let log = self.log
        // Alert deliveries offer signed links; a handler call reports a decision already taken.
        let actionLinks = d.kind.action == nil && claimed.alert.state == .open ? links?.delivering(claimed.alert) : nil
        let notification = claimed.group.map { snapshot in
            var n = snapshot.notification
            if let links {
                for alert in n.firing where alert.spec.confirm != nil || alert.spec.cancel != nil {
                    n.actionLinks[alert.id] = links.links(for: alert)
                }
                n.consoleURL = links.groupURL(n.groupID)
            }
            return n
        }
        // A group notification's links are per listed alert, in the notification.
        var context = DeliveryContext(deliveryID: d.id, attempt: d.attempts, links: notification == nil ? actionLinks : nil,
                                      followUp: followUp, thread: claimed.group?.thread)
        context.followedUp = d.takesFollowUp
        let alert = claimed.alert
        let isFollowUp = followUp != nil
        if notification == nil, let requester = entry.requester {
            // On the client's thread, reported back with others in one turn (``takeReported()``).
            let transfer = requester.attempt(alert, delivery: context).start { [self] outcome in
                let (settlement, report) = Self.judged(d, outcome, thread: nil, retry: retry, acceptedAt: alert.createdAt, isFollowUp: isFollowUp)
                self.report(Unsettled(settlement: settlement, report: report))
            }
            tasks[d.id] = .request(transfer)
            return
        }
        // Detached: the attempt starts on the global executor and comes to the
        // actor only with its outcome. Inheriting the actor made every start
        // wait its turn behind hand-offs and outcomes, then hop off again at
        // once to the presenter: one more job on the busiest executor.
        tasks[d.id] = .task(Task.detached { [self] in
            let outcome: PresentationOutcome
            var thread: String?
            if let notification {
                let group = await entry.presenter.presentGroup(notification, delivery: context)
                (outcome, thread) = (group.outcome, group.thread)
            } else {
                outcome = await entry.presenter.present(alert, delivery: context)
            }
            if Task.isCancelled {
                // Cut off by shutdown: whatever the presenter made of it, the
                // delivery stays in flight and is delivered again after restart.
                log.debug("delivery cut off", ["delivery.id": d.id.rawValue, "presenter": d.kind.name])
                await self.cutOff(d)
                return
            }
            // A group notification's latency runs from when it was queued: from its
            // anchor alert, every reminder counted the group's whole life.
            var (settlement, report) = Self.judged(d, outcome, thread: thread, retry: retry,
                                                   acceptedAt: notification == nil ? alert.createdAt : d.createdAt,
                                                   isFollowUp: isFollowUp)
            if let notification, settlement.result == .delivered { settlement.listed = Set(notification.firing.map(\.id)) }
            await self.settled(d, settlement, report: report)
        })
    }

    /// Queues the outcome of an attempt run on an HTTP client's thread; the
    /// first of a batch sends the actor to take them all.
    private nonisolated func report(_ outcome: Unsettled) {
        let first = reported.withLock { reported in
            reported.append(outcome)
            return reported.count == 1
        }
        if first { Task { await self.takeReported() } }
    }

    /// Settles the outcomes ``report(_:)`` queued; once shutdown cuts
    /// attempts off, they are cut off, as a task's would be.
    private func takeReported() {
        // Emptied keeping its size, as is `unsettled`: grown from nothing
        // each time, the outcomes were copied at every doubling.
        let batch = reported.withLock { reported in
            defer { reported.removeAll(keepingCapacity: true) }
            return reported
        }
        for u in batch {
            if cuttingOff {
                log.debug("delivery cut off", ["delivery.id": u.delivery.id.rawValue, "presenter": u.delivery.kind.name])
                cutOff(u.delivery)
            } else {
                tasks[u.delivery.id] = .reported
                settled(u.delivery, u.settlement, report: u.report)
            }
        }
    }

    /// Settles `d` dead with `reason`, unsent.
    /// Ends a claimed delivery dead without an attempt. Its claim counted
    /// one, which the store takes back; and it is counted dead like any
    /// other (`alertd_deliveries_total{outcome="dead"}`): deliveries that
    /// ran out of time while their presenter failed, the ones an alert on
    /// that counter is for, were missing from it.
    private func endUnsent(_ d: DeliveryRecord, reason: String) {
        var settlement = DeliverySettlement(d, result: .dead(error: reason))
        settlement.sent = false
        let report = AttemptReport(kind: d.kind, alertID: d.alertID, deliveryID: d.id, attempt: max(0, d.attempts - 1),
                                   outcome: .permanentFailure(reason: reason), settlement: settlement.result,
                                   sinceAccepted: .milliseconds(Int64(Date().timeIntervalSince(d.createdAt) * 1000)),
                                   isFollowUp: d.followUpOf != nil)
        tasks[d.id] = .task(Task {
            self.settled(d, settlement, report: report)
        })
        slots[d.kind, default: Slots()].running += 1
    }

    /// What an attempt's outcome makes of its delivery, and the report of it.
    /// Outside the attempt's task, as is its context: what the task holds
    /// across its wait is allocated for every attempt, and with these in it
    /// that was two allocations of 4.4 kB and 1.1 kB, past the allocator's
    /// per-thread cache, where it is now one of 1.5 kB.
    private nonisolated static func judged(_ d: DeliveryRecord, _ outcome: PresentationOutcome, thread: String?, retry: RetryPolicy,
                                           acceptedAt: Date, isFollowUp: Bool) -> (DeliverySettlement, AttemptReport) {
        let now = Date()
        let result: DeliverySettlement.Result
        var outcome = outcome
        switch outcome {
        case .delivered, .partlyDelivered:
            result = .delivered
        case .retryableFailure(let reason, let after):
            result = retry.settle(reason: reason, retryable: true, retryAfter: after, attempt: d.attempts,
                                  createdAt: d.createdAt, now: now)
        case .reachedSome(let reason):
            let settled = retry.settle(reason: reason, retryable: true, retryAfter: nil, attempt: d.attempts, createdAt: d.createdAt, now: now)
            // Out of retries: those it reached have it, and hear when it closes.
            if case .dead(let why) = settled {
                result = .delivered
                outcome = .partlyDelivered(reason: why)
            } else {
                result = settled
            }
        case .permanentFailure(let reason):
            result = .dead(error: reason)
        case .notSent(let reason, let after):
            // Its claim counted the attempt: `max_attempts` is held to those made.
            result = retry.settle(reason: reason, retryable: true, retryAfter: after, attempt: max(0, d.attempts - 1),
                                  createdAt: d.createdAt, now: now)
        }
        var settlement = DeliverySettlement(d, result: result, at: now, thread: result == .delivered ? thread : nil)
        settlement.sent = outcome.wasAttempted
        return (settlement,
                AttemptReport(kind: d.kind, alertID: d.alertID, deliveryID: d.id, attempt: d.attempts, outcome: outcome,
                              settlement: result, sinceAccepted: .milliseconds(Int64(now.timeIntervalSince(acceptedAt) * 1000)),
                              isFollowUp: isFollowUp))
    }

    /// Queues an attempt's outcome for the store. Outcomes are written in
    /// batches, one write at a time, and what finishes during a write goes in
    /// the next: one store write for many deliveries, not one each. The
    /// attempt's slot is free at once (``refill(_:at:)``): waiting for the
    /// write held every slot idle while the store wrote, or committed a
    /// batch of new alerts. A crash between the attempt and the write means
    /// the delivery is made again, so a crash leaves at most twice a
    /// presenter's slots to be delivered twice (``freeSlots(at:)``).
    private func settled(_ d: DeliveryRecord, _ settlement: DeliverySettlement, report: AttemptReport?) {
        unsettled.append(Unsettled(settlement: settlement, report: report))
        slots[d.kind, default: Slots()].settled()
        if case .retryableFailure(_, let wait?)? = report?.outcome, wait > .zero, d.kind.action == nil { pause(d.kind, for: wait) }
        if let outcome = report?.outcome, d.kind.action == nil { count(outcome, settlement.result, of: d.kind) }
        refill(d.kind, at: .now)
        guard !settling else { return }
        settling = true
        Task { await writeSettlements() }
    }

    /// Keeps a presenter's run of failed attempts (``streaks``). Past
    /// ``failuresToTrip``, a failure once its wait is over (the single
    /// retry after it, or a new alert's attempt) sets the next wait, a step
    /// further along the backoff, at most ``longestProbeWait``; failures of
    /// attempts begun before do not lengthen it. Handler calls are not
    /// counted: one handler's trouble says nothing of another's.
    /// Only a failure that reached nobody counts: an e-mail that reached some
    /// of its recipients (retried for the others) says the presenter works.
    private func count(_ outcome: PresentationOutcome, _ result: DeliverySettlement.Result, of kind: DeliveryKind) {
        switch (outcome, result) {
        case (_, .delivered):
            if let streak = streaks.removeValue(forKey: kind), streak.tripped {
                log.notice("presenter delivers again; it is tried at full concurrency", ["presenter": kind.name])
            }
        case (.retryableFailure, .retry):
            var streak = streaks[kind] ?? FailureStreak()
            streak.failures += 1
            let now = ContinuousClock.now
            if streak.failures >= Self.failuresToTrip, streak.nextTry.map({ now >= $0 }) ?? true {
                streak.trips += 1
                let wait = min(retry.backoff(afterAttempt: streak.trips), retry.maxDelay, Self.longestProbeWait)
                if streak.trips == 1 {
                    log.warning("presenter failing: its last attempts all failed; its retries are tried one at a time until one is delivered, "
                                + "and each failed attempt is logged at debug level, with a line a minute saying how many",
                                ["presenter": kind.name, "failures": "\(streak.failures)", "next_try_in": wait.alertdDescription])
                    streak.nextReminder = now + Self.failingReminder
                }
                streak.nextTry = now + wait
            }
            streaks[kind] = streak
        default:
            break
        }
    }

    /// Starts nothing more for `kind` until its service's wait is over
    /// (``pausedUntil``).
    private func pause(_ kind: DeliveryKind, for asked: Duration) {
        let wait = min(asked, retry.maxDelay)
        let now = ContinuousClock.now, until = now + wait
        if let paused = pausedUntil[kind], paused >= until { return }
        if (pausedUntil[kind] ?? now) <= now {
            log.notice("presenter paused: its service asked to wait", ["presenter": kind.name, "wait": wait.alertdDescription])
        }
        pausedUntil[kind] = until
    }

    /// Fills the slots of `kind` free now from its hand-offs, within rate
    /// limits: those the store wrote claimed start now, the others are
    /// claimed in the next write of outcomes (one is pending when this runs).
    /// A free slot of any other kind is the loop's to fill.
    private func refill(_ kind: DeliveryKind, at tick: ContinuousClock.Instant) {
        guard !handedOff.isEmpty, inhibitRules.isEmpty, !stopping, !Task.isCancelled, let entry = presenters[kind] else { return }
        let free = freeSlots(of: kind, entry, at: tick)
        guard free > 0 else { return }
        let (ready, toClaim) = sorted(handedOff.take(free, of: kind))
        claimNext += toClaim
        startHandOffs(ready: ready, toClaim: [], claimed: [], at: tick)
    }

    private func writeSettlements() async {
        while !unsettled.isEmpty {
            let batch = unsettled
            unsettled.removeAll(keepingCapacity: true)
            let next = claimNext
            claimNext = []
            let tick = ContinuousClock.now
            await giveBack()
            var claimed: [DeliveryRecord] = []
            do {
                let queued: Int
                (queued, claimed) = try await store.settle(batch.map { $0.settlement }, thenClaim: next, now: Date())
                if queued > 0 { storeChanged() }
                var recovered: [DeliveryKind] = []
                for u in batch {
                    switch u.settlement.result {
                    case .retry(let at, _):
                        knownNextDue = min(knownNextDue ?? at, at)
                        if u.delivery.kind.action == nil { failing.insert(u.delivery.kind) }
                    case .delivered:
                        if !failing.isEmpty, failing.remove(u.delivery.kind) != nil { recovered.append(u.delivery.kind) }
                    case .dead:
                        break
                    }
                }
                for kind in recovered where mayHasten(kind, at: tick) { await hasten(kind) }
            } catch {
                storeChanged()
                unrecorded += batch.map(\.settlement)
                log.error("could not record delivery outcomes; they are written once the store takes writes again (a restart meanwhile sends them again)",
                          ["count": "\(batch.count)", "delivery.id": batch[0].delivery.id.rawValue, "error": "\(error)"])
            }
            // Ended because a reload took their presenter out: one line for
            // each such presenter, not one a delivery (a backlog of 300 was 300 lines).
            var unconfigured: [DeliveryKind: [DeliveryRecord]] = [:]
            for u in batch {
                if !u.settlement.sent, presenters[u.delivery.kind] == nil, case .dead = u.settlement.result {
                    unconfigured[u.delivery.kind, default: []].append(u.delivery)
                } else {
                    let configured = presenters[u.delivery.kind] != nil
                    let quiet = configured && streaks[u.delivery.kind]?.tripped == true
                    Self.logOutcome(log, u.delivery, u.settlement, configured: configured, quiet: quiet)
                    if quiet, case .retry(_, let error) = u.settlement.result { remindFailing(u.delivery.kind, error: error) }
                }
                if case .partlyDelivered(let reason)? = u.report?.outcome {
                    log.warning("delivered, but not to every recipient",
                                ["alert.id": u.delivery.alertID.rawValue, "delivery.id": u.delivery.id.rawValue,
                                 "presenter": u.delivery.kind.name, "error": reason])
                }
                if let report = u.report { onAttempt(report) }
                finished(u.delivery)
            }
            for (kind, ended) in unconfigured {
                // One delivery is named; of several, the first, as `first_delivery.id`:
                // an `alert.id` beside a count read as that alert's deliveries.
                var fields = ["presenter": kind.name, "count": "\(ended.count)"]
                if ended.count == 1 {
                    fields["delivery.id"] = ended[0].id.rawValue
                    fields["alert.id"] = ended[0].alertID.rawValue
                } else {
                    fields["first_delivery.id"] = ended[0].id.rawValue
                }
                log.error("deliveries dead: their presenter is not configured; "
                          + "configure it again and run `alertctl replay --dead` to send them", fields)
            }
            startHandOffs(ready: [], toClaim: next, claimed: claimed, at: tick)
        }
        settling = false
    }

    /// Whether `kind`'s waiting retries may be made due at `now`
    /// (``hastened``); if so, the next time is set.
    private func mayHasten(_ kind: DeliveryKind, at now: ContinuousClock.Instant) -> Bool {
        let wait: Duration
        if let last = hastened[kind], now - last.at < retry.maxDelay {
            guard now - last.at >= last.wait else { return false }
            wait = min(last.wait * 2, retry.maxDelay)
        } else {
            wait = retry.initialDelay
        }
        hastened[kind] = (now, wait)
        return true
    }

    /// A presenter delivered again after failing: its waiting retries are
    /// made due now. Each delivery backs off on its own, so after a
    /// receiver's outage of 30 s the last of 1,000 waited a minute more,
    /// where Alertmanager, retrying each group at its interval, sent them
    /// all within a second of its return.
    private func hasten(_ kind: DeliveryKind) async {
        do {
            let hastened = try await store.hastenRetries(of: kind, now: Date())
            guard hastened > 0 else { return }
            storeChanged()
            log.notice("presenter delivers again; its waiting retries are due now", ["presenter": kind.name, "retries": "\(hastened)"])
        } catch {
            log.warning("could not make a recovered presenter's retries due; they wait out their backoff",
                        ["presenter": kind.name, "error": "\(error)"])
        }
    }

    /// `configured`: whether its presenter is still configured; one a reload
    /// took out while the attempt ran is not retried, unless a reload
    /// brings it back first (the poll ends it dead).
    /// `quiet`: its presenter is failing (``streaks``), and a retry is
    /// said at debug level, counted by ``remindFailing(_:error:)``.
    private static func logOutcome(_ log: Logger, _ d: DeliveryRecord, _ settlement: DeliverySettlement, configured: Bool, quiet: Bool) {
        var meta: Logger.Metadata {
            // One ended unsent made no attempt of its own: its number is the last one made.
            ["alert.id": d.alertID.rawValue, "delivery.id": d.id.rawValue, "presenter": d.kind.name,
             "attempt": "\(settlement.sent ? d.attempts : max(0, d.attempts - 1))"]
        }
        switch settlement.result {
        case .delivered:
            log.debug("delivered", meta)
        case .retry(let at, let error) where !configured:
            log.warning("delivery failed; its presenter is no longer configured, so it ends dead at its retry (within 10 s of it) unless a reload brings it back",
                        meta.merging(["error": error, "retry_at": Logger.timestamp(at)]) { a, _ in a })
        case .retry(let at, let error):
            log.log(level: quiet ? .debug : .warning, "delivery failed, will retry",
                    meta.merging(["error": error, "retry_at": Logger.timestamp(at)]) { a, _ in a })
        case .dead(let error):
            log.error("delivery dead", meta.merging(["error": error]) { a, _ in a })
        }
    }

    /// Counts a failing presenter's failed attempt, logged at debug level,
    /// and says how many there were once a minute.
    private func remindFailing(_ kind: DeliveryKind, error: String) {
        guard var streak = streaks[kind] else { return }
        streak.unlogged += 1
        let now = ContinuousClock.now
        if now >= streak.nextReminder ?? now {
            log.warning("presenter still failing; its failed attempts are logged at debug level until one is delivered",
                        ["presenter": kind.name, "failed_attempts": "\(streak.unlogged)", "last_error": error])
            streak.unlogged = 0
            streak.nextReminder = now + Self.failingReminder
        }
        streaks[kind] = streak
    }

    /// The attempt's outcome is written (or could not be): the delivery is done here.
    private func finished(_ d: DeliveryRecord) {
        tasks[d.id] = nil
        endLine(d)
        slots[d.kind, default: Slots()].release(\.awaitingWrite)
        signal.notify()
    }

    /// The attempts shutdown cut off go back to pending now: another node
    /// sharing the store takes them at once, where before each waited out
    /// its claim's lease (a minute by default, at every rolling restart);
    /// alone, this node takes them at its next start, as it would have.
    private func releaseCutOff() async {
        guard !cutOffIDs.isEmpty else { return }
        let ids = cutOffIDs
        cutOffIDs = []
        do {
            _ = try await store.releaseClaims(ids, now: Date())
        } catch {
            log.error("could not give back deliveries cut off by shutdown; they are retried once the claim lease runs out",
                      ["count": "\(ids.count)", "error": "\(error)", "claim_lease": claimLease.alertdDescription])
        }
    }

    /// An attempt cut off by shutdown, with no outcome to write.
    private func cutOff(_ d: DeliveryRecord) {
        cutOffIDs.append(d.id)
        tasks[d.id] = nil
        endLine(d)
        slots[d.kind, default: Slots()].release(\.running)
        signal.notify()
    }

    /// `d`'s attempt is over: the group notification waiting for it, if
    /// any, starts. Once stopping, it is given back as the stop ends
    /// (``releaseCutOff()``), for another node now or this one after restart.
    private func endLine(_ d: DeliveryRecord) {
        guard !groupLines.isEmpty, let n = d.id.groupNotification else { return }
        let line = GroupLine(group: n.group, kind: d.kind)
        guard groupLines[line] == d.id else { return }
        groupLines[line] = nil
        guard !stopping, !Task.isCancelled else {
            // Claimed and never to start here: given back with the cut-off ones.
            if let waiting = waitingInLine.removeValue(forKey: line) { cutOffIDs.append(waiting.delivery.id) }
            return
        }
        // While its presenter is paused it waits on (``startWaitingInLine()``).
        guard let next = waitingInLine[line], !isPaused(d.kind, at: .now) else { return }
        waitingInLine[line] = nil
        start(next)
    }

    /// Starts the group notifications waiting in a free line whose
    /// presenter's pause is over.
    private func startWaitingInLine() {
        guard !waitingInLine.isEmpty else { return }
        let now = ContinuousClock.now
        for (line, next) in waitingInLine where groupLines[line] == nil && !isPaused(line.kind, at: now) {
            waitingInLine[line] = nil
            start(next)
        }
    }

    private func isPaused(_ kind: DeliveryKind, at tick: ContinuousClock.Instant) -> Bool {
        pausedUntil[kind].map { tick < $0 } ?? false
    }
}

import FoundationEssentials
import Synchronization
import AlertModel
import AlertdLogging
import AlertdServices
import AlertdStore

/// Keeps the store's clock-driven rules: expires alerts whose time is up,
/// resolves those their sender stopped re-sending (Alertmanager's
/// `endsAt`), escalates those nobody decided on in time, and prunes closed alerts past
/// their retention. Expiry and escalation only queue deliveries; `onReport`
/// hears of each round that did something, so the dispatcher can be woken.
///
/// Apart from the dispatcher, so a slow prune never holds up a delivery and
/// a busy dispatcher never makes an alert expire late.
public actor MaintenanceService: Service {
    public nonisolated let name = "maintenance"
    private let store: any AlertStore
    /// How long closed alerts are kept; nil keeps them.
    private var retention: Duration?
    private var lastPrune = ContinuousClock.now - .seconds(3600)
    private let log: Logger
    private let onReport: @Sendable (MaintenanceReport) -> Void
    private let rounds = RoundLoop()
    private var pruneFailures = RepeatedFailureLog()
    private var maintenanceFailures = RepeatedFailureLog()
    /// The longest the loop sleeps, so new alerts' deadlines are seen soon
    /// even without a ``wake()``.
    private let tick: Duration
    /// When this alertd started: senders whose re-sends failed while it was
    /// down get their window again from here
    /// (``MaintenanceStore/runMaintenance(now:resendGraceFrom:)``).
    /// Alertmanager, which keeps no alerts across a restart, never resolves
    /// one for its own absence either.
    private let startedAt: Date

    /// Pruning is housekeeping: at most once a minute, a bounded batch at a
    /// time (some 20 ms of the writer's); while batches come back full,
    /// every `catchUpPeriod`, some 10,000 alerts a second. Once a minute
    /// alone, more than a thousand closings a minute, sustained, outgrew
    /// it, and the store grew whatever the retention; once a second, more
    /// than a thousand a second did (100,000 closed at once were still
    /// half there 90 s past their retention).
    private static let prunePeriod: Duration = .seconds(60)
    private static let catchUpPeriod: Duration = .milliseconds(100)
    private static let pruneBatch = 1_000
    /// The last prune filled its batch: there is more to prune.
    private var pruneBehind = false
    /// Pruned since the last line said so: one line a catch-up, not one a batch.
    private var prunedUntold = 0
    /// The store has more freed space to give back (``MaintenanceStore/shrink()``).
    private var shrinking = false
    /// Expired and lapsed alerts no line has named yet. Rounds follow each
    /// deadline to the millisecond, so alerts lapsing a few milliseconds
    /// apart each had a round, and a line, of their own: a line a second
    /// (``tellPeriod``) at most names them together.
    private var untoldExpired = UntoldAlerts()
    private var untoldResolved = UntoldAlerts()
    private var lastTold = ContinuousClock.now - .seconds(3600)
    private static let tellPeriod: Duration = .seconds(1)

    public init(
        store: any AlertStore, retention: Duration?, logger: Logger = Logger(label: "maintenance"),
        tick: Duration = .seconds(1), startedAt: Date = Date(), onReport: @escaping @Sendable (MaintenanceReport) -> Void = { _ in }
    ) {
        self.store = store
        self.startedAt = startedAt
        self.retention = retention
        self.log = logger
        self.tick = tick
        self.onReport = onReport
    }

    /// When the loop looks next, unless woken; `distantFuture` while a
    /// round runs, so a deadline arriving then is never missed.
    private nonisolated let nextLook = Mutex(Date.distantFuture)

    /// Tells the service that a deadline may have moved closer (another node's commit).
    public nonisolated func wake() { rounds.wake() }

    /// Tells the service of a new deadline; it wakes only if that comes
    /// before its next look, so a stream of alerts without (or with far)
    /// deadlines costs it nothing.
    public nonisolated func wake(before deadline: Date) {
        if nextLook.withLock({ deadline < $0 }) { rounds.wake() }
    }

    /// Takes effect from the next round.
    public func reconfigure(retention: Duration?) {
        self.retention = retention
        rounds.wake()
    }

    /// Runs rounds until asked to stop or cancelled: nothing it does needs
    /// finishing, since an interrupted round is simply done again.
    public func run() async {
        await rounds.run {
            nextLook.withLock { $0 = .distantFuture }
            let worked = await round()
            tellUntold(before: .now)
            let wait = await nextWait(afterWork: worked)
            nextLook.withLock { $0 = Date().addingTimeInterval(wait.seconds) }
            return wait
        }
        tellUntold(before: .now + Self.tellPeriod)
    }

    public func shutdownGracefully() { rounds.stop() }

    /// One round: prune if it is time, then expire, resolve and escalate what is due.
    /// True when it changed anything.
    private func round() async -> Bool {
        var didWork = false
        if let retention, ContinuousClock.now - lastPrune > (pruneBehind || shrinking ? Self.catchUpPeriod : Self.prunePeriod) {
            lastPrune = .now
            do {
                let pruned = try await store.prune(closedBefore: Date().addingTimeInterval(-retention.seconds), limit: Self.pruneBatch)
                pruneBehind = pruned >= Self.pruneBatch
                prunedUntold += pruned
                if !pruneBehind, prunedUntold > 0 {
                    log.info("pruned closed alerts past their retention", ["count": "\(prunedUntold)"])
                    prunedUntold = 0
                }
                // Once pruning has caught up, so that a round holds up
                // the store's writes once.
                shrinking = pruneBehind ? false : try await store.shrink()
                pruneFailures.succeeded(log, "old alerts are pruned again")
            } catch {
                pruneFailures.failed(log, "could not prune old alerts", ["error": "\(error)"])
            }
        }
        do {
            guard let next = try await store.nextMaintenanceTime(), next <= Date() else {
                maintenanceFailures.succeeded(log, "alerts are expired and escalated again")
                return false
            }
            let report = try await store.runMaintenance(now: Date(), resendGraceFrom: startedAt)
            maintenanceFailures.succeeded(log, "alerts are expired and escalated again")
            didWork = !report.isEmpty
            if didWork { onReport(report) }
            // Named together at most once a second (``tellUntold``), each at
            // debug: ten thousand alerts lapsing together (a Prometheus gone
            // quiet) made ten thousand lines.
            untoldExpired.add(report.expired)
            untoldResolved.add(report.resolved)
            for id in report.expired { log.debug("alert expired", ["alert.id": id.rawValue]) }
            for id in report.resolved { log.debug("alert resolved: its sender stopped re-sending it", ["alert.id": id.rawValue]) }
            for id in report.escalated { log.notice("alert escalated", ["alert.id": id.rawValue]) }
        } catch {
            maintenanceFailures.failed(log, "could not expire or escalate alerts", ["error": "\(error)"])
        }
        return didWork
    }

    /// Says which alerts expired or lapsed since the last line, if that
    /// line was a ``tellPeriod`` before `now` (the stop passes a later
    /// `now`, to say what is left): an info line each, with their count
    /// and the first few ids.
    private func tellUntold(before now: ContinuousClock.Instant) {
        guard untoldExpired.count + untoldResolved.count > 0, now - lastTold >= Self.tellPeriod else { return }
        for (untold, summary) in [(untoldExpired, "alerts expired"), (untoldResolved, "alerts resolved: their senders stopped re-sending them")]
        where untold.count > 0 {
            let shown = untold.first.map(\.rawValue).joined(separator: ",")
            log.info(summary, ["count": "\(untold.count)", "alert.ids": untold.count > untold.first.count ? shown + ",…" : shown])
        }
        untoldExpired = UntoldAlerts()
        untoldResolved = UntoldAlerts()
        lastTold = .now
    }

    /// Alerts a line is still to name: how many, and the first few ids.
    private struct UntoldAlerts {
        /// How many ids a line names.
        static let named = 10
        var count = 0
        var first: [AlertID] = []

        mutating func add(_ ids: [AlertID]) {
            count += ids.count
            first += ids.prefix(max(0, Self.named - first.count))
        }
    }

    /// Until the next deadline, at most a tick. A round that did work may
    /// have stopped at its batch limit, so more that is due goes at once;
    /// due but untouched (or unreadable) waits a tick rather than spin.
    private func nextWait(afterWork didWork: Bool) async -> Duration {
        var most = pruneBehind || shrinking ? min(tick, Self.catchUpPeriod) : tick
        // Back in time to name what is untold.
        if untoldExpired.count + untoldResolved.count > 0 { most = min(most, max(.zero, lastTold + Self.tellPeriod - .now)) }
        guard let next = try? await store.nextMaintenanceTime() else { return most }
        let wait = Duration.until(next, atMost: most)
        return wait == .zero && !didWork ? tick : wait
    }
}

import FoundationEssentials
import Synchronization
import AlertModel
import AlertdStore

/// The way in for new alerts, whoever sends them: picks each alert's
/// presenters by route, stores it durably, and hands the new deliveries to
/// the dispatcher.
public final class AlertIntake: Sendable {
    public struct Settings: Sendable, Equatable {
        public var router: AlertRouter
        public var limits: AlertSpecLimits
        /// Most alerts in one submission.
        public var maxBatch: Int
        /// Recipes submitters may name instead of spelling out an alert.
        public var templates: AlertTemplateLibrary
        /// Handler URLs it will certainly refuse are refused at submission.
        public var handlerPolicy: HandlerURLPolicy
        /// The presenters that are told when an alert they showed closes.
        public var followUps: Set<String>
        /// The presenters whose group notifications tell them nothing of closings.
        public var closingsUntold: Set<String>
        /// The `inhibit` rules, for those who show which alerts they hold
        /// back (the dispatcher holds deliveries by its own copy).
        public var inhibitRules: [InhibitRule]

        public init(router: AlertRouter, limits: AlertSpecLimits, maxBatch: Int = 1_000,
                    templates: AlertTemplateLibrary = AlertTemplateLibrary(),
                    handlerPolicy: HandlerURLPolicy = .publicOnly, followUps: Set<String> = [], closingsUntold: Set<String> = [],
                    inhibitRules: [InhibitRule] = []) {
            self.closingsUntold = closingsUntold
            self.inhibitRules = inhibitRules
            self.router = router
            self.limits = limits
            self.maxBatch = maxBatch
            self.templates = templates
            self.handlerPolicy = handlerPolicy
            self.followUps = followUps
        }
    }

    private let store: any AlertStore
    private let settings: Mutex<Settings>
    private let onAccepted: @Sendable ([AcceptedDelivery]) -> Void
    private let claimKinds: @Sendable () -> Set<DeliveryKind>
    private let onSubmitting: @Sendable ([DeliveryKind: Int]) -> Void
    private let onSubmitted: @Sendable ([DeliveryKind: Int]) -> Void
    private let onGrouped: @Sendable () -> Void
    private let onDeadline: @Sendable (Date) -> Void

    /// `onAccepted` hears of the deliveries of every committed batch that
    /// stored a new alert (not one folded into an open alert), right after
    /// the commit; `onGrouped`, of every one in which an alert joined a
    /// group (the group timer may have a new group to wait for);
    /// `onDeadline`, of the soonest deadline (expiry, `endsAt`, escalation)
    /// a committed batch carried, so maintenance wakes only when one may
    /// come before its next look. `onSubmitting` hears, before each store
    /// write, how many deliveries of each kind it may hand over, and
    /// `onSubmitted` the same counts once the write is over and its
    /// hand-offs (if any) are with `onAccepted`: in between, the rows may be
    /// committed while their hand-off is still on its way. `claimKinds` says,
    /// before each store write, the kinds whose deliveries the receiver of
    /// `onAccepted` takes as claimed: the store writes those in flight
    /// (``AlertIntakeStore/submit(_:claiming:)``), sparing a claim each.
    public init(store: any AlertStore, settings: Settings, onAccepted: @escaping @Sendable ([AcceptedDelivery]) -> Void,
                claimKinds: @escaping @Sendable () -> Set<DeliveryKind> = { [] },
                onSubmitting: @escaping @Sendable ([DeliveryKind: Int]) -> Void = { _ in },
                onSubmitted: @escaping @Sendable ([DeliveryKind: Int]) -> Void = { _ in },
                onGrouped: @escaping @Sendable () -> Void = {}, onDeadline: @escaping @Sendable (Date) -> Void = { _ in }) {
        self.onSubmitting = onSubmitting
        self.onSubmitted = onSubmitted
        self.onGrouped = onGrouped
        self.onDeadline = onDeadline
        self.store = store
        self.settings = Mutex(settings)
        self.onAccepted = onAccepted
        self.claimKinds = claimKinds
    }

    /// Routes and limits in effect now.
    public var current: Settings { settings.withLock { $0 } }

    /// Takes effect for alerts submitted from now on.
    public func update(_ new: Settings) { settings.withLock { $0 = new } }

    /// Stores the alerts; returns once they are committed. `resolvesAt`,
    /// by position, says when an alert resolves unless re-sent first
    /// (Alertmanager's `endsAt`); a re-send moves its open alert's time on.
    /// With `refreshing` (Alertmanager's API, whose senders re-send their
    /// current state) a re-send's spec replaces its open alert's.
    public func submit(
        _ specs: [AlertSpec], at date: Date = Date(), resolvesAt: [Date?] = [], refreshing: Bool = false
    ) async throws(StoreError) -> [SubmissionResult] {
        guard !specs.isEmpty else { return [] }
        let settings = current
        let submissions = specs.enumerated().map { i, spec in
            settings.submission(of: Alert(spec: spec, at: date, resolvesAt: i < resolvesAt.count ? resolvesAt[i] : nil), refreshing: refreshing)
        }
        var expected: [DeliveryKind: Int] = [:]
        for submission in submissions {
            for presenter in submission.presenters { expected[.presenter(presenter), default: 0] += 1 }
        }
        onSubmitting(expected)
        defer { onSubmitted(expected) }
        let stored = try await store.submit(submissions, claiming: claimKinds())
        let results = stored.results
        if submissions.contains(where: { !$0.groups.isEmpty }) { onGrouped() }
        // A re-send moves its open alert's `endsAt` too, so folded ones count.
        if let soonest = submissions.compactMap(\.deadline).min() { onDeadline(soonest) }
        if results.contains(where: { !$0.deduplicated }) { onAccepted(stored.deliveries) }
        return results
    }
}

extension AlertIntake.Settings {
    /// `alert` as its routes take it: the presenters it goes to, the groups
    /// it joins, when it escalates, and who hears when it closes.
    public func submission(of alert: Alert, refreshing: Bool = false) -> AlertSubmission {
        var plan = router.route(alert.spec)
        plan.escalation = told(plan.escalation)
        for i in plan.groups.indices { plan.groups[i].settings = told(plan.groups[i].settings) }
        return AlertSubmission(alert: alert, presenters: plan.presenters, escalation: plan.escalation,
                               followUps: followUps.intersection(plan.presenters), groups: plan.groups, refreshes: refreshing)
    }

    /// When `alert` escalates by its routes, and who hears when it closes then.
    public func escalation(of alert: Alert) -> Escalation? { told(router.route(alert.spec).escalation) }

    /// `escalation` with those of its presenters that are told of closings.
    private func told(_ escalation: Escalation?) -> Escalation? {
        guard var escalation else { return nil }
        escalation.followUps = followUps.intersection(escalation.presenters)
        return escalation
    }

    /// Each grouped route's group settings, by route name, as its members join with them.
    public var groupSettings: [String: AlertGroupSettings] { router.groupSettings.mapValues(told) }

    /// `settings` with the presenters that are told nothing of closings.
    private func told(_ settings: AlertGroupSettings) -> AlertGroupSettings {
        var settings = settings
        settings.closingsUntold = closingsUntold.intersection(settings.presenters)
        return settings
    }
}

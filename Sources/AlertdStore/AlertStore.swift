import Foundation
import AlertModel

/// Where accepted alerts and their deliveries live. The daemon answers a
/// submitter only after `submit` returns, so an implementation must not
/// return before the alert is as durable as it promises to be.
public protocol AlertStore: Sendable {
    /// Stores new alerts with one pending delivery per presenter, or folds an
    /// alert into an open one with the same dedup key. Results are in the
    /// order of `submissions`.
    func submit(_ submissions: [AlertSubmission]) async throws(StoreError) -> [SubmissionResult]

    /// One alert with its deliveries, or nil when there is no such alert.
    func record(id: AlertID) async throws(StoreError) -> AlertRecord?

    /// Alerts newest first, filtered and paged.
    func alerts(matching query: AlertQuery) async throws(StoreError) -> AlertPage

    /// Marks up to `capacity[presenter]` due deliveries per presenter as in
    /// flight, counts the attempt, and returns them with their alerts.
    /// Deliveries for presenters missing from `capacity` are returned too
    /// (up to `orphanLimit`) so the caller can settle them.
    func claimDueDeliveries(now: Date, capacity: [String: Int], orphanLimit: Int) async throws(StoreError) -> [ClaimedDelivery]

    /// Records how an attempt went.
    func settle(_ settlements: [DeliverySettlement]) async throws(StoreError)

    /// When the next pending delivery is due, if any is pending.
    func nextDueTime() async throws(StoreError) -> Date?

    /// Makes deliveries a crash left in flight due again. Called once at
    /// start, before the dispatcher runs; returns how many.
    func recoverInFlight(now: Date) async throws(StoreError) -> Int

    /// Makes dead deliveries pending again: those of one alert, or all of them
    /// when `alert` is nil. Returns how many.
    func replayDead(alert: AlertID?, now: Date) async throws(StoreError) -> Int

    /// Live totals for status lines and metrics.
    func counts() async throws(StoreError) -> StoreCounts

    /// Closes an open alert: a compare-and-set from `open`, so the first
    /// decision wins. In the same transaction it queues the call of the
    /// decision's handler, if the alert has one, and records the event.
    func decide(_ id: AlertID, _ decision: AlertDecision) async throws(StoreError) -> DecisionResult

    /// The open alert holding `dedupKey`, if any.
    func openAlert(dedupKey: String) async throws(StoreError) -> AlertID?

    /// Expires open alerts whose time is up and escalates those open past
    /// their route's escalation delay.
    func runMaintenance(now: Date) async throws(StoreError) -> MaintenanceReport

    /// When the next expiry or escalation is due, if any is pending.
    func nextMaintenanceTime() async throws(StoreError) -> Date?

    /// Events with a sequence number above `sequence`, oldest first.
    func events(after sequence: Int64, limit: Int) async throws(StoreError) -> [StoredEvent]

    /// The newest event's sequence number, or 0 while the log is empty:
    /// where a reader that wants only what happens from now on starts.
    func lastEventSequence() async throws(StoreError) -> Int64

    /// Deletes up to `limit` alerts closed before `cutoff` whose deliveries
    /// are all settled, with their deliveries, and events older than
    /// `cutoff` (but never the newest). Returns how many alerts went.
    func prune(closedBefore cutoff: Date, limit: Int) async throws(StoreError) -> Int
}

/// What `decide` did.
public enum DecisionResult: Sendable, Equatable {
    /// The alert is now closed; `handlerDelivery` is the queued handler call, if any.
    case decided(Alert, handlerDelivery: String?)
    /// Someone decided first; the alert as it stands.
    case alreadyDecided(Alert)
    case notFound
}

/// What one maintenance pass changed.
public struct MaintenanceReport: Sendable, Equatable {
    public var expired: [AlertID] = []
    public var escalated: [AlertID] = []

    public init(expired: [AlertID] = [], escalated: [AlertID] = []) {
        self.expired = expired
        self.escalated = escalated
    }
}

/// One entry of the event log that `/v1/events` streams.
public struct StoredEvent: Sendable, Equatable {
    /// Strictly increasing; clients resume from the last one they saw.
    public let sequence: Int64
    /// `alert.created`, `delivery.succeeded`, `alert.confirmed`, ...
    public let type: String
    public let alertID: AlertID
    public let at: Date
    /// Event-specific fields (delivery id, error, actor, ...).
    public let data: [String: String]

    public init(sequence: Int64, type: String, alertID: AlertID, at: Date, data: [String: String]) {
        self.sequence = sequence
        self.type = type
        self.alertID = alertID
        self.at = at
        self.data = data
    }
}

/// Deliveries to a decision's handler use these presenter names; config
/// presenter names cannot contain a colon, so they never clash.
public enum HandlerDelivery {
    public static func presenterName(for action: ActionKind) -> String { "handler:\(action.rawValue)" }

    /// The action a presenter name stands for, if it is a handler's.
    public static func action(forPresenter name: String) -> ActionKind? {
        guard name.hasPrefix("handler:") else { return nil }
        return ActionKind(rawValue: String(name.dropFirst("handler:".count)))
    }
}

/// An alert on its way into the store, with the presenters its route chose.
public struct AlertSubmission: Sendable, Equatable {
    public var alert: Alert
    public var presenters: [String]
    /// Presenters to add if the alert is still open after a while.
    public var escalation: Escalation?

    public init(alert: Alert, presenters: [String], escalation: Escalation? = nil) {
        self.alert = alert
        self.presenters = presenters
        self.escalation = escalation
    }
}

/// "Still open after `after`? Tell `presenters` too." Fires once per alert.
public struct Escalation: Sendable, Equatable {
    public var after: Duration
    public var presenters: [String]

    public init(after: Duration, presenters: [String]) {
        self.after = after
        self.presenters = presenters
    }
}




/// An alert with everything the store knows about it.
public struct AlertRecord: Sendable, Equatable {
    public var alert: Alert
    public var deliveries: [DeliveryRecord]
    package init(alert: Alert, deliveries: [DeliveryRecord]) {
        self.alert = alert
        self.deliveries = deliveries
    }
}

/// A filter for listing alerts.
public struct AlertQuery: Sendable, Equatable {
    public var state: AlertState?
    /// Every pair must match (label name, value).
    public var labels: [(String, String)]
    public var limit: Int
    /// Only alerts older than this id (the previous page's `nextCursor`).
    public var before: AlertID?

    public init(state: AlertState? = nil, labels: [(String, String)] = [], limit: Int = 50, before: AlertID? = nil) {
        self.state = state
        self.labels = labels
        self.limit = limit
        self.before = before
    }

    public static func == (a: AlertQuery, b: AlertQuery) -> Bool {
        a.state == b.state && a.limit == b.limit && a.before == b.before
            && a.labels.map { "\($0.0)=\($0.1)" } == b.labels.map { "\($0.0)=\($0.1)" }
    }
}

/// One page of alerts.
public struct AlertPage: Sendable, Equatable {
    public var alerts: [Alert]
    /// Pass as `before` for the next page; nil on the last page.
    public var nextCursor: AlertID?
    package init(alerts: [Alert], nextCursor: AlertID? = nil) {
        self.alerts = alerts
        self.nextCursor = nextCursor
    }
}

/// A delivery the dispatcher now owns, with the alert to present.
public struct ClaimedDelivery: Sendable, Equatable {
    public var delivery: DeliveryRecord
    public var alert: Alert
    package init(delivery: DeliveryRecord, alert: Alert) {
        self.delivery = delivery
        self.alert = alert
    }
}

/// The outcome of one attempt, as the store records it.
public struct DeliverySettlement: Sendable, Equatable {
    public enum Result: Sendable, Equatable {
        case delivered
        /// Try again at `at`; `error` says why this attempt failed.
        case retry(at: Date, error: String)
        case dead(error: String)
    }

    public var deliveryID: String
    public var result: Result
    public var at: Date

    public init(deliveryID: String, result: Result, at: Date = Date()) {
        self.deliveryID = deliveryID
        self.result = result
        self.at = at
    }
}

/// Totals for status lines and gauges.
public struct StoreCounts: Sendable, Equatable {
    public var openAlerts: Int = 0
    public var pending: Int = 0
    public var inFlight: Int = 0
    public var dead: Int = 0

    public init(openAlerts: Int = 0, pending: Int = 0, inFlight: Int = 0, dead: Int = 0) {
        self.openAlerts = openAlerts
        self.pending = pending
        self.inFlight = inFlight
        self.dead = dead
    }
}

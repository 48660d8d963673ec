import FoundationEssentials
import Synchronization
import AlertModel
import AlertdDelivery
import AlertdStore

/// The metrics alertd exports at `GET /metrics`, with one method per thing
/// that happens, so call sites stay one line and names live in one place.
public final class DaemonMetrics: Sendable {
    public let registry: MetricsRegistry
    package let started = Date()
    /// Each front door's two counters, and the commit histogram, found once:
    /// every submission and every commit counts in them, and looking a
    /// series up by name and labels cost some 4 k instructions a request.
    private let doorSeries: [FrontDoor: (received: MetricsSeries?, deduplicated: MetricsSeries?)]
    private let commitBatches: MetricsSeries?
    /// Whether the last reload failed (the daemon runs on the configuration before), for health.
    private let reloadFailed = Atomic(false)

    /// Seconds, from a millisecond to ten minutes.
    package static let latencyBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600]
    package static let batchBuckets: [Double] = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500]

    public init() {
        let r = MetricsRegistry()
        registry = r
        r.register("alertd_build_info", .gauge, help: "Always 1; the version is in the labels.")
        r.register("alertd_process_start_time_seconds", .gauge, help: "When alertd started, in Unix seconds.")
        r.register("alertd_uptime_seconds", .gauge, help: "Seconds since alertd started.")
        r.register("alertd_alerts_received_total", .counter, help: "Alerts accepted and stored, by front door.")
        r.register("alertd_alerts_deduplicated_total", .counter, help: "Alerts folded into an open alert with the same dedup key, by front door.")
        r.register("alertd_alerts_rejected_total", .counter, help: "Submissions refused, by reason.")
        r.register("alertd_decisions_total", .counter, help: "Alerts closed, by outcome.")
        r.register("alertd_deliveries_total", .counter, help: "Delivery attempts, by presenter and outcome (delivered, retry, dead); dead counts too each delivery ended without an attempt.")
        r.register("alertd_delivery_latency_seconds", .histogram, help: "From an alert's acceptance (a group notification's queueing) to its delivery, by presenter.",
                   buckets: Self.latencyBuckets)
        r.register("alertd_handler_calls_total", .counter, help: "Confirm and cancel handler calls, by action and outcome.")
        r.register("alertd_follow_ups_total", .counter,
                   help: "Follow-up attempts (telling a presenter an alert it showed has closed), by presenter and outcome.")
        r.register("alertd_open_alerts", .gauge, help: "Alerts not yet decided, expired or resolved.")
        r.register("alertd_deliveries", .gauge, help: "Deliveries in the queue, by state (pending, in_flight, dead).")
        r.register("alertd_delivery_backlog", .gauge,
                   help: "Pending deliveries by presenter: waiting for a rate limit, a retry or a silence.")
        r.register("alertd_store_writable", .gauge,
                   help: "1 while the store takes writes; 0 once one failed for want of disk, permission or I/O, until one works again.")
        r.register("alertd_deliveries_silenced_total", .counter, help: "Holds a silence or inhibition put on deliveries: once a delivery, and again if it is held after an attempt.")
        r.register("alertd_groups_open", .gauge, help: "Groups of alerts formed by grouped routes and not yet ended.")
        r.register("alertd_group_notifications_total", .counter,
                   help: "Group notifications queued, by presenter and reason (first, changed, reminder, resolved).")
        r.register("alertd_store_commit_batch_size", .histogram, help: "Write jobs per store transaction (group commit).",
                   buckets: Self.batchBuckets)
        r.register("alertd_config_last_reload_successful", .gauge, help: "1 if the last configuration reload worked, else 0.")
        r.register("alertd_config_last_reload_timestamp_seconds", .gauge, help: "When the configuration was last loaded, in Unix seconds.")
        r.set("alertd_build_info", ["version": AlertdVersion.current], to: 1)
        r.set("alertd_process_start_time_seconds", to: started.timeIntervalSince1970.rounded())
        r.set("alertd_config_last_reload_successful", to: 1)
        r.set("alertd_store_writable", to: 1)
        r.set("alertd_config_last_reload_timestamp_seconds", to: started.timeIntervalSince1970.rounded())
        for reason in ["invalid_alert", "malformed_json", "unsupported_media_type", "batch_too_large", "invalid_body", "body_too_large"] {
            r.increment("alertd_alerts_rejected_total", ["reason": reason], by: 0)
        }
        // Series whose labels are known now show at 0 from the start: one
        // that appears at its first event has that event missed by `rate()`.
        for outcome in AlertState.allCases where outcome.isFinal {
            r.increment("alertd_decisions_total", ["outcome": outcome.rawValue], by: 0)
        }
        for action in ActionKind.allCases {
            for outcome in Self.attemptOutcomes { r.increment("alertd_handler_calls_total", ["action": action.rawValue, "outcome": outcome], by: 0) }
        }
        var doors: [FrontDoor: (received: MetricsSeries?, deduplicated: MetricsSeries?)] = [:]
        for door in FrontDoor.allCases {
            // Made here, so each door's series shows (at 0) before its first alert.
            doors[door] = (r.series("alertd_alerts_received_total", ["front_door": door.rawValue]),
                           r.series("alertd_alerts_deduplicated_total", ["front_door": door.rawValue]))
        }
        doorSeries = doors
        commitBatches = r.series("alertd_store_commit_batch_size")
    }

    /// Counts what a submission through `door` came to.
    public func accepted(_ results: [SubmissionResult], via door: FrontDoor = .api) {
        let dedup = results.filter(\.deduplicated).count
        let series = doorSeries[door]
        series?.received?.increment(by: Double(results.count - dedup))
        if dedup > 0 { series?.deduplicated?.increment(by: Double(dedup)) }
    }

    public func rejected(_ reason: String, count: Int = 1) {
        registry.increment("alertd_alerts_rejected_total", ["reason": reason], by: Double(count))
    }

    public func decided(_ outcome: AlertState) {
        registry.increment("alertd_decisions_total", ["outcome": outcome.rawValue])
    }

    public func attempt(_ report: Dispatcher.AttemptReport) {
        guard report.outcome.wasAttempted else { return }
        let key = AttemptSeriesKey(kind: report.kind, isFollowUp: report.isFollowUp, outcome: report.settlement.name)
        let series = attemptSeries.withLock { $0[key] } ?? makeAttemptSeries(key)
        series.count?.increment()
        series.latency?.observe(report.sinceAccepted.seconds)
    }

    /// Which series an attempt counts in: one set per presenter or handler,
    /// kind of attempt and outcome, found once and kept, since every
    /// delivery makes one.
    private struct AttemptSeriesKey: Hashable {
        let kind: DeliveryKind
        let isFollowUp: Bool
        let outcome: String
    }

    private let attemptSeries = Mutex<[AttemptSeriesKey: (count: MetricsSeries?, latency: MetricsSeries?)]>([:])

    private func makeAttemptSeries(_ key: AttemptSeriesKey) -> (count: MetricsSeries?, latency: MetricsSeries?) {
        let made: (count: MetricsSeries?, latency: MetricsSeries?)
        if let action = key.kind.action {
            made = (registry.series("alertd_handler_calls_total", ["action": action.rawValue, "outcome": key.outcome]), nil)
        } else if key.isFollowUp {
            made = (registry.series("alertd_follow_ups_total", ["presenter": key.kind.name, "outcome": key.outcome]), nil)
        } else {
            made = (registry.series("alertd_deliveries_total", ["presenter": key.kind.name, "outcome": key.outcome]),
                    key.outcome == "delivered" ? registry.series("alertd_delivery_latency_seconds", ["presenter": key.kind.name]) : nil)
        }
        attemptSeries.withLock { $0[key] = made }
        return made
    }

    /// What an attempt may come to (``DeliverySettlement/Result/name``).
    private static let attemptOutcomes = ["delivered", "retry", "dead"]

    /// Shows at 0 the series of the presenters `settings` routes to, as
    /// they are configured (at start and at each reload): deliveries by
    /// outcome, follow-ups for those told of closings, and group
    /// notifications for those grouped routes tell. A presenter taken out
    /// keeps its series, as a counter does.
    public func showSeries(of presenters: [String], _ settings: AlertIntake.Settings) {
        let grouping = Set(settings.groupSettings.values.flatMap(\.presenters))
        for presenter in presenters {
            for outcome in Self.attemptOutcomes {
                registry.increment("alertd_deliveries_total", ["presenter": presenter, "outcome": outcome], by: 0)
                if settings.followUps.contains(presenter) {
                    registry.increment("alertd_follow_ups_total", ["presenter": presenter, "outcome": outcome], by: 0)
                }
            }
            guard grouping.contains(presenter) else { continue }
            for reason in AlertGroupNotification.Reason.allCases {
                registry.increment("alertd_group_notifications_total", ["presenter": presenter, "reason": reason.rawValue], by: 0)
            }
        }
    }

    /// Counts a group notification a flush queued.
    public func groupNotified(_ notice: GroupNotice) {
        registry.increment("alertd_group_notifications_total", ["presenter": notice.presenter, "reason": notice.reason.rawValue])
    }

    /// Whether the last reload failed, and alertd runs on the configuration before it.
    public var lastReloadFailed: Bool { reloadFailed.load(ordering: .relaxed) }

    public func committed(batch size: Int) {
        commitBatches?.observe(Double(size))
    }

    public func reloaded(successfully ok: Bool, at date: Date = Date()) {
        reloadFailed.store(!ok, ordering: .relaxed)
        registry.set("alertd_config_last_reload_successful", to: ok ? 1 : 0)
        if ok { registry.set("alertd_config_last_reload_timestamp_seconds", to: date.timeIntervalSince1970.rounded()) }
    }

    /// Refreshes the gauges that are read from the store, then renders.
    public func render(counts: StoreCounts?, storeWritable: Bool = true) -> String {
        registry.set("alertd_uptime_seconds", to: Date().timeIntervalSince(started).rounded())
        registry.set("alertd_store_writable", to: storeWritable ? 1 : 0)
        if let c = counts {
            registry.set("alertd_open_alerts", to: Double(c.openAlerts))
            registry.set("alertd_groups_open", to: Double(c.openGroups))
            registry.set("alertd_deliveries", ["state": "pending"], to: Double(c.pending))
            registry.set("alertd_deliveries", ["state": "in_flight"], to: Double(c.inFlight))
            registry.set("alertd_deliveries", ["state": "dead"], to: Double(c.dead))
            registry.replace("alertd_delivery_backlog", with: Dictionary(
                uniqueKeysWithValues: c.pendingByPresenter.map { (["presenter": $0.key], Double($0.value)) }))
            // Kept by the store, so it counts across restarts.
            registry.set("alertd_deliveries_silenced_total", to: Double(c.silencedDeliveries))
        }
        return registry.render()
    }
}

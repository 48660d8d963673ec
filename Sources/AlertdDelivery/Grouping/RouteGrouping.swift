import AlertModel
import AlertdStore

/// A route's grouping (Alertmanager's `group_by` and timers): alerts with
/// the same values of the `by` labels share one group, and its presenters
/// hear of them in group notifications instead of one delivery per alert.
public struct RouteGrouping: Sendable, Equatable {
    /// Label names; nil for `["..."]`, every label (one group per distinct label set).
    public var by: [String]?
    public var wait: Duration = AlertGroupSettings.defaultWait
    public var interval: Duration = AlertGroupSettings.defaultInterval
    public var repeatInterval: Duration = AlertGroupSettings.defaultRepeatInterval

    public init(by: [String]?, wait: Duration = AlertGroupSettings.defaultWait, interval: Duration = AlertGroupSettings.defaultInterval,
                repeatInterval: Duration = AlertGroupSettings.defaultRepeatInterval) {
        self.by = by
        self.wait = wait
        self.interval = interval
        self.repeatInterval = repeatInterval
    }

    /// The group of `route` (delivering to `presenters`) that `spec` joins.
    /// A `by` label the alert lacks counts as empty, as in Alertmanager.
    /// Every label, for `["..."]`, is every label but the generator URL
    /// alertd keeps as one: Alertmanager's `generatorURL` is no label, and
    /// two Prometheus replicas (or one whose URL changed) sent the same
    /// alert to two groups, whose last words on it disagreed.
    public func membership(of spec: AlertSpec, route: String, presenters: [String]) -> AlertGroupMembership {
        let labels = by.map { names in
            Set(names).sorted().map { AlertLabel(name: $0, value: spec.labels[$0] ?? "") }
        } ?? AlertLabel.sorted(spec.labels.filter { $0.key != AlertmanagerView.generatorURLLabel })
        return AlertGroupMembership(route: route, labels: labels, settings: settings(presenters: presenters))
    }

    /// The timers of a group of this route, told to `presenters`.
    public func settings(presenters: [String]) -> AlertGroupSettings {
        AlertGroupSettings(presenters: presenters, wait: wait, interval: interval, repeatInterval: repeatInterval)
    }
}

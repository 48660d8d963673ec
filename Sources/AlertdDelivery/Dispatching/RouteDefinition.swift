import AlertModel
import AlertdStore

/// Which alerts go to which presenters.
public struct RouteDefinition: Sendable, Equatable {
    /// Every label here must be present with this value.
    public var labels: [String: String] = [:]
    /// Every matcher here must hold, as Alertmanager's route `matchers`
    /// do (`=`, `!=`, `=~`, `!~`; a missing label counts as empty).
    public var matchers: [LabelMatcher] = []
    /// If set, the alert's severity must be one of these.
    public var severities: Set<Severity>?
    /// If set, the alert's severity must be at least this.
    public var minSeverity: Severity?
    public var presenters: [String]
    /// Keep looking at later routes after this one matched.
    public var continueMatching = false
    /// More presenters for alerts still open after a while.
    public var escalation: Escalation?
    /// Names the route's groups (`name`); `routes[N]` when unset.
    public var name: String?
    /// Set when the route groups its alerts (`group_by`).
    public var grouping: RouteGrouping?

    public init(labels: [String: String] = [:], severities: Set<Severity>? = nil, minSeverity: Severity? = nil,
                presenters: [String], continueMatching: Bool = false) {
        self.labels = labels
        self.severities = severities
        self.minSeverity = minSeverity
        self.presenters = presenters
        self.continueMatching = continueMatching
    }

    /// Label values compare byte for byte, as silences and filters do: a
    /// route of `team: café` took `cafe` with a combining accent too, which
    /// a silence of `team="café"` did not hold.
    public func matches(_ spec: AlertSpec) -> Bool {
        if let severities, !severities.contains(spec.severity) { return false }
        if let minSeverity, spec.severity < minSeverity { return false }
        return labels.allSatisfy { label in spec.labels[label.key].map { LabelMatcher.same($0, label.value) } ?? false }
            && matchers.allSatisfy { $0.matches(spec.labels) }
    }
}

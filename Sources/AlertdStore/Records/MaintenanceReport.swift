import AlertModel

/// What one maintenance pass changed.
public struct MaintenanceReport: Sendable, Equatable {
    public var expired: [AlertID] = []
    public var escalated: [AlertID] = []
    /// Alerts resolved because their sender stopped re-sending them (`endsAt` passed).
    public var resolved: [AlertID] = []

    public init(expired: [AlertID] = [], escalated: [AlertID] = [], resolved: [AlertID] = []) {
        self.expired = expired
        self.escalated = escalated
        self.resolved = resolved
    }

    /// True when the pass changed nothing.
    public var isEmpty: Bool { expired.isEmpty && escalated.isEmpty && resolved.isEmpty }
}

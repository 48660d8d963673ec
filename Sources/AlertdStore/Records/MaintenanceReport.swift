import AlertModel

/// What one maintenance pass changed.
public struct MaintenanceReport: Sendable, Equatable {
    public var expired: [AlertID] = []
    public var escalated: [AlertID] = []

    public init(expired: [AlertID] = [], escalated: [AlertID] = []) {
        self.expired = expired
        self.escalated = escalated
    }
}

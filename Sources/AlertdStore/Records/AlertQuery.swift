import AlertModel

/// A filter for listing alerts.
public struct AlertQuery: Sendable, Equatable {
    public var state: AlertState?
    /// Every pair must match (label name, value).
    public var labels: [(String, String)]
    public var limit: Int
    /// Only alerts older than this id (the previous page's `nextCursor`).
    public var before: AlertID?
    /// Only alerts with at least one delivery in this state (`dead`: what
    /// waits for a replay).
    public var deliveryState: DeliveryState?

    public init(state: AlertState? = nil, labels: [(String, String)] = [], limit: Int = 50, before: AlertID? = nil,
                deliveryState: DeliveryState? = nil) {
        self.state = state
        self.labels = labels
        self.limit = limit
        self.before = before
        self.deliveryState = deliveryState
    }

    public static func == (a: AlertQuery, b: AlertQuery) -> Bool {
        a.state == b.state && a.limit == b.limit && a.before == b.before && a.deliveryState == b.deliveryState
            && a.labels.map { "\($0.0)=\($0.1)" } == b.labels.map { "\($0.0)=\($0.1)" }
    }
}

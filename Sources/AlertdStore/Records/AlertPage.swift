import AlertModel

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

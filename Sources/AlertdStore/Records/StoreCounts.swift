import AlertModel

/// Totals for status lines and gauges.
public struct StoreCounts: Sendable, Equatable {
    public var openAlerts: Int = 0
    public var pending: Int = 0
    public var inFlight: Int = 0
    public var dead: Int = 0
    /// Holds silences or inhibitions put on deliveries (held back or
    /// withheld): once a delivery, and once more each time one holds it
    /// again after an attempt (a claim ends a hold). A counter over the
    /// store's life, not a gauge.
    public var silencedDeliveries: Int = 0
    /// Pending deliveries by presenter name (handler calls included, as
    /// `handler:confirm`): the backlog a rate limit, a silence or retries
    /// leave waiting. Presenters with none are absent.
    public var pendingByPresenter: [String: Int] = [:]
    /// Groups formed and not yet ended.
    public var openGroups: Int = 0

    public init(openAlerts: Int = 0, pending: Int = 0, inFlight: Int = 0, dead: Int = 0, silencedDeliveries: Int = 0,
                pendingByPresenter: [String: Int] = [:], openGroups: Int = 0) {
        self.openGroups = openGroups
        self.pendingByPresenter = pendingByPresenter
        self.openAlerts = openAlerts
        self.pending = pending
        self.inFlight = inFlight
        self.dead = dead
        self.silencedDeliveries = silencedDeliveries
    }
}

import AlertModel

/// An alert with everything the store knows about it.
public struct AlertRecord: Sendable, Equatable {
    public var alert: Alert
    public var deliveries: [DeliveryRecord]
    package init(alert: Alert, deliveries: [DeliveryRecord]) {
        self.alert = alert
        self.deliveries = deliveries
    }
}

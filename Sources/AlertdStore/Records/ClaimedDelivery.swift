import AlertModel

/// A delivery the dispatcher now owns, with the alert to present.
public struct ClaimedDelivery: Sendable, Equatable {
    public var delivery: DeliveryRecord
    public var alert: Alert

    public init(delivery: DeliveryRecord, alert: Alert) {
        self.delivery = delivery
        self.alert = alert
    }
}

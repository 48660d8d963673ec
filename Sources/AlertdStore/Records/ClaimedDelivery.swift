import AlertModel

/// A delivery the dispatcher now owns, with the alert to present.
public struct ClaimedDelivery: Sendable, Equatable {
    public var delivery: DeliveryRecord
    public var alert: Alert
    /// For a group notification: what it says (its alert is the group's anchor).
    public var group: GroupSnapshot?

    public init(delivery: DeliveryRecord, alert: Alert, group: GroupSnapshot? = nil) {
        self.group = group
        self.delivery = delivery
        self.alert = alert
    }
}

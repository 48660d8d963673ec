import AlertModel

/// An alert with everything the store knows about it.
public struct AlertRecord: Sendable, Equatable {
    public var alert: Alert
    public var deliveries: [DeliveryRecord]
    /// The open groups it is a member of.
    public var groups: [AlertGroupID]
    package init(alert: Alert, deliveries: [DeliveryRecord], groups: [AlertGroupID] = []) {
        self.groups = groups
        self.alert = alert
        self.deliveries = deliveries
    }
}

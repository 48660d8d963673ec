import AlertModel

/// A delivery the dispatcher now owns, with the alert to present.
public struct ClaimedDelivery: Sendable, Equatable {
    public var delivery: DeliveryRecord
    public var alert: Alert
    /// For a group notification: what it says (its alert is the group's anchor).
    public var group: GroupSnapshot?
    /// For a group notification: the group's next notification to the same
    /// presenter, when that is queued already. It says what stands now, and
    /// this one, sent after it (a retry once the destination is back), would
    /// undo it: a `first` after the `resolved` reopens the incident.
    public var supersededBy: DeliveryID?

    public init(delivery: DeliveryRecord, alert: Alert, group: GroupSnapshot? = nil, supersededBy: DeliveryID? = nil) {
        self.group = group
        self.delivery = delivery
        self.alert = alert
        self.supersededBy = supersededBy
    }

    /// A group notification that is not to be sent: a later one supersedes
    /// it, or what it said is no longer kept (it went when the next was
    /// queued).
    public var isStale: Bool { supersededBy != nil || (group == nil && delivery.id.groupNotification != nil) }
}

import AlertModel

/// A delivery the store has just committed, with its alert as submitted:
/// what intake hands the dispatcher in memory, so it need not poll for and
/// read back the work it was just given. The store stays the record: a
/// hand-off that is lost (a crash, a full dispatcher) is found there by
/// ``DeliveryQueue/claimDueDeliveries(now:capacity:orphanLimit:)``.
public struct AcceptedDelivery: Sendable, Equatable {
    public var id: DeliveryID
    public var kind: DeliveryKind
    public var alert: Alert
    /// Whether its presenter is told when the alert closes.
    public var takesFollowUp: Bool

    public init(id: DeliveryID, kind: DeliveryKind, alert: Alert, takesFollowUp: Bool = false) {
        self.id = id
        self.kind = kind
        self.alert = alert
        self.takesFollowUp = takesFollowUp
    }

    /// The delivery as storing the alert writes it: pending, due at once.
    /// A claim that finds the row still so knows it without reading it.
    public var record: DeliveryRecord {
        .pending(id, alert: alert.id, kind: kind, at: alert.createdAt, takesFollowUp: takesFollowUp)
    }
}

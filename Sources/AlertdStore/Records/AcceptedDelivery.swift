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

    public init(id: DeliveryID, kind: DeliveryKind, alert: Alert) {
        self.id = id
        self.kind = kind
        self.alert = alert
    }
}

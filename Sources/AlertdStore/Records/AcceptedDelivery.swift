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
    /// Set when the store wrote it already claimed, for the dispatcher it is
    /// handed to (``AlertIntakeStore/submit(_:claiming:)``): to the store's
    /// ``DeliveryQueue/silenceEpoch`` then. Starting it needs no claim while
    /// the epoch is unchanged; a silence saved since sends it back to the
    /// store (``DeliveryQueue/releaseClaims(_:now:)``) to be screened.
    public var claimEpoch: UInt64?

    public init(id: DeliveryID, kind: DeliveryKind, alert: Alert, takesFollowUp: Bool = false, claimEpoch: UInt64? = nil) {
        self.id = id
        self.kind = kind
        self.alert = alert
        self.takesFollowUp = takesFollowUp
        self.claimEpoch = claimEpoch
    }

    /// The delivery as storing the alert writes it: pending and due at
    /// once, or in flight with its first attempt counted when claimed at
    /// intake. A claim that finds the row still so knows it without reading it.
    public var record: DeliveryRecord {
        let pending = DeliveryRecord.pending(id, alert: alert.id, kind: kind, at: alert.createdAt, takesFollowUp: takesFollowUp)
        return claimEpoch == nil ? pending : pending.claimed(at: alert.createdAt)
    }
}

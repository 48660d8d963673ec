import FoundationEssentials
import AlertModel

/// An alert on its way into the store, with the presenters its route chose.
public struct AlertSubmission: Sendable, Equatable {
    public var alert: Alert
    public var presenters: [String]
    /// Presenters to add if the alert is still open after a while.
    public var escalation: Escalation?
    /// Those of `presenters` told when the alert closes, once they have shown it.
    public var followUps: Set<String>
    /// The groups its grouped routes put it in; their presenters hear of
    /// it through the group's notifications, not a delivery of its own.
    public var groups: [AlertGroupMembership]
    /// Folded into an open alert by its dedup key, its spec replaces that
    /// alert's: its sender re-sends its current state (Alertmanager's API,
    /// whose senders keep the newest annotations). Otherwise a re-send
    /// changes nothing but the count.
    public var refreshes: Bool

    public init(alert: Alert, presenters: [String], escalation: Escalation? = nil, followUps: Set<String> = [],
                groups: [AlertGroupMembership] = [], refreshes: Bool = false) {
        self.groups = groups
        self.refreshes = refreshes
        self.alert = alert
        self.presenters = presenters
        self.escalation = escalation
        self.followUps = followUps
    }

    /// The soonest time a clock-driven rule may act on it (expiry, the
    /// sender's `endsAt`, escalation), if any does.
    public var deadline: Date? {
        let escalates = escalation.map { alert.createdAt.addingTimeInterval($0.after.seconds) }
        return [alert.expiresAt, alert.resolvesAt, escalates].compactMap { $0 }.min()
    }

    /// The deliveries storing it queues: one per presenter of its route.
    public var deliveries: [AcceptedDelivery] { deliveries(claiming: [], epoch: nil) }

    /// ``deliveries``, those of `kinds` claimed at intake at the silence
    /// `epoch` (none when it is nil).
    public func deliveries(claiming kinds: Set<DeliveryKind>, epoch: UInt64?) -> [AcceptedDelivery] {
        presenters.enumerated().map { i, presenter in
            let kind = DeliveryKind.presenter(presenter)
            return AcceptedDelivery(id: .routed(alert.id, i), kind: kind, alert: alert, takesFollowUp: followUps.contains(presenter),
                                    claimEpoch: epoch.flatMap { kinds.contains(kind) ? $0 : nil })
        }
    }
}

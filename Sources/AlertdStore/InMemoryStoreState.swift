import FoundationEssentials
import AlertModel

/// What ``InMemoryAlertStore`` holds, with the primitives ``StoreRules``
/// works through. A value inside the actor, so every rule runs as one step.
package struct InMemoryStoreState: StoreTransaction {
    package typealias Failure = Never

    package struct PendingEscalation {
        var at: Date
        var presenters: [String]
        var firedAt: Date?
    }

    var alerts: [AlertID: Alert] = [:]
    var deliveries: [DeliveryID: DeliveryRecord] = [:]
    var escalations: [AlertID: PendingEscalation] = [:]
    var log: [StoredEvent] = []
    private var nextSequence: Int64 = 1

    package mutating func openAlert(dedupKey: String) -> AlertID? {
        alerts.values.first { $0.state == .open && $0.spec.dedupKey == dedupKey }?.id
    }

    package mutating func alert(_ id: AlertID) -> Alert? { alerts[id] }

    package mutating func insert(_ alert: Alert, escalation: Escalation?) {
        alerts[alert.id] = alert
        if let escalation {
            escalations[alert.id] = PendingEscalation(
                at: alert.createdAt.addingTimeInterval(escalation.after.seconds), presenters: escalation.presenters)
        }
    }

    package mutating func close(_ alert: Alert) { alerts[alert.id] = alert }

    package mutating func markEscalated(_ alert: AlertID, at: Date) { escalations[alert]?.firedAt = at }

    package mutating func insert(_ delivery: DeliveryRecord) { deliveries[delivery.id] = delivery }

    package mutating func append(_ kind: EventKind, alert: AlertID, at: Date, data: [String: String]) {
        log.append(StoredEvent(sequence: nextSequence, kind: kind, alertID: alert, at: at, data: data))
        nextSequence += 1
    }
}

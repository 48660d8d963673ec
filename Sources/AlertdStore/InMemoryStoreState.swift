import FoundationEssentials
import AlertModel

/// What ``InMemoryAlertStore`` holds, with the primitives ``StoreRules``
/// works through. A value inside the actor, so every rule runs as one step.
package struct InMemoryStoreState: StoreTransaction {
    package typealias Failure = Never

    package struct PendingEscalation {
        var at: Date
        var presenters: [String]
        var followUps: Set<String>
        var firedAt: Date?
    }

    var alerts: [AlertID: Alert] = [:]
    var deliveries: [DeliveryID: DeliveryRecord] = [:]
    var escalations: [AlertID: PendingEscalation] = [:]
    var log: [StoredEvent] = []
    var silences: [SilenceID: Silence] = [:]
    /// Deliveries a silence ever held back, each once.
    var silencedDeliveries = 0
    var groups: [AlertGroupID: AlertGroup] = [:]
    var members: [AlertGroupID: Set<AlertID>] = [:]
    var told: [AlertGroupID: [String: AlertGroupTold]] = [:]
    var snapshots: [DeliveryID: GroupSnapshot] = [:]
    private var nextSequence: Int64 = 1

    package mutating func openAlert(dedupKey: String) -> AlertID? {
        // Byte for byte, as SQL compares: Swift's == takes é and e + ◌́ as one.
        alerts.values.first { $0.state == .open && $0.spec.dedupKey?.utf8.elementsEqual(dedupKey.utf8) == true }?.id
    }

    package mutating func alert(_ id: AlertID) -> Alert? { alerts[id] }

    package mutating func alertState(_ id: AlertID) -> AlertState? { alerts[id]?.state }

    package mutating func insert(_ alert: Alert, escalation: Escalation?) {
        alerts[alert.id] = alert
        if escalation != nil { setEscalation(alert.id, escalation, createdAt: alert.createdAt) }
    }

    package mutating func setEscalation(_ alert: AlertID, _ escalation: Escalation?, createdAt: Date) {
        guard escalations[alert]?.firedAt == nil,
              let at = StoreCoding.followedEscalationColumns(escalation, created: StoreCoding.millis(createdAt)).at else { return }
        // To the millisecond, as the SQL stores keep it.
        escalations[alert] = PendingEscalation(at: StoreCoding.date(at), presenters: escalation?.presenters ?? [],
                                               followUps: escalation?.followUps ?? [])
    }

    package mutating func close(_ alert: Alert) { alerts[alert.id] = alert }

    package mutating func markEscalated(_ alert: AlertID, at: Date) { escalations[alert]?.firedAt = at }

    package mutating func recordRepeat(_ alert: AlertID, at: Date, resolvesAt: Date?, spec: AlertSpec?) {
        guard var open = alerts[alert], open.state == .open else { return }
        open.repeats = AlertRepeats(count: (open.repeats?.count ?? 0) + 1, lastSeenAt: at)
        if let spec {
            open.spec = spec
            open.resolvesAt = resolvesAt
        } else if let resolvesAt {
            open.resolvesAt = resolvesAt
        }
        alerts[alert] = open
    }

    package mutating func insert(_ delivery: DeliveryRecord) { deliveries[delivery.id] = delivery }

    package mutating func delivery(_ id: DeliveryID) -> DeliveryRecord? { deliveries[id] }

    package mutating func deliveries(of alert: AlertID) -> [DeliveryRecord] {
        deliveries.values.filter { $0.alertID == alert }.sorted { $0.id < $1.id }
    }

    package mutating func append(_ kind: EventKind, alert: AlertID, at: Date, data: [String: String]) {
        log.append(StoredEvent(sequence: nextSequence, kind: kind, alertID: alert, at: at, data: data))
        nextSequence += 1
    }

    package mutating func silence(_ id: SilenceID) -> Silence? { silences[id] }

    package mutating func save(_ silence: Silence) { silences[silence.id] = silence }

    package mutating func hold(_ delivery: DeliveryID, until: Date, by silence: SilenceID, at now: Date) {
        guard var d = deliveries[delivery] else { return }
        if d.silencedBy == nil { silencedDeliveries += 1 }
        d.state = .pending; d.nextAttemptAt = until; d.silencedBy = silence; d.updatedAt = now
        deliveries[delivery] = d
    }

    package mutating func withhold(_ delivery: DeliveryID, by silence: SilenceID, at now: Date) {
        guard var d = deliveries[delivery] else { return }
        if d.silencedBy == nil { silencedDeliveries += 1 }
        d.state = .silenced; d.nextAttemptAt = nil; d.silencedBy = silence; d.updatedAt = now
        deliveries[delivery] = d
    }

    package mutating func release(heldBy silence: SilenceID, at now: Date) {
        release(at: now) { $0 == silence }
    }

    package mutating func releaseInhibited(at now: Date) {
        release(at: now) { $0?.isInhibition == true }
    }

    private mutating func release(at now: Date, where holder: (SilenceID?) -> Bool) {
        for (id, var d) in deliveries where d.state == .pending && holder(d.silencedBy) && (d.nextAttemptAt ?? now) > now {
            d.nextAttemptAt = now; d.updatedAt = now
            deliveries[id] = d
        }
    }

    package mutating func activeSilences(at now: Date) -> [Silence] { silences.values.filter { $0.isActive(at: now) } }
    package mutating func screeningSilences(at now: Date) -> SilenceIndex { SilenceIndex(unexpiredSilences(at: now), at: now) }
    package mutating func unexpiredSilences(at now: Date) -> [Silence] { silences.values.filter { $0.state(at: now) != .expired } }

    package mutating func hasSilence(endingAfter now: Date) -> Bool { silences.values.contains { $0.endsAt > now } }

    package mutating func openAlerts() -> [Alert] { alerts.values.filter { $0.state == .open } }

    package mutating func group(_ id: AlertGroupID) -> AlertGroup? { groups[id] }

    package mutating func save(_ group: AlertGroup) { groups[group.id] = group }

    package mutating func deleteGroup(_ id: AlertGroupID) {
        groups[id] = nil
        members[id] = nil
        told[id] = nil
    }

    package mutating func addMember(_ alert: AlertID, to group: AlertGroupID) { members[group, default: []].insert(alert) }

    package mutating func removeMember(_ alert: AlertID, from group: AlertGroupID) { members[group]?.remove(alert) }

    package mutating func members(of group: AlertGroupID) -> [AlertID] { Array(members[group] ?? []) }

    package mutating func groups(containing alert: AlertID) -> [AlertGroupID] {
        members.filter { $0.value.contains(alert) }.map(\.key).sorted()
    }

    package mutating func told(about group: AlertGroupID) -> [AlertGroupTold] { Array(told[group]?.values ?? [:].values) }

    package mutating func save(_ told: AlertGroupTold, about group: AlertGroupID) { self.told[group, default: [:]][told.presenter] = told }

    package mutating func insert(_ delivery: DeliveryRecord, snapshot: GroupSnapshot.Encoded) {
        deliveries[delivery.id] = delivery
        snapshots[delivery.id] = snapshot.value
        if let previous = delivery.id.previousGroupNotification { snapshots[previous] = nil }
    }
}

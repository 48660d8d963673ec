import FoundationEssentials
import AlertModel

/// The few primitive reads and writes a backend offers inside one
/// transaction. The rules built on them live once, in ``StoreRules``, so
/// every backend applies the same ones and none re-derives them in its
/// query language.
package protocol StoreTransaction {
    associatedtype Failure: Error

    /// The open alert holding `dedupKey`, if any.
    mutating func openAlert(dedupKey: String) throws(Failure) -> AlertID?
    /// The alert as it stands, if it exists.
    mutating func alert(_ id: AlertID) throws(Failure) -> Alert?
    /// Only the alert's state, if it exists: what a rule that asks no more
    /// needs, without decoding the spec (every settled delivery asks this).
    mutating func alertState(_ id: AlertID) throws(Failure) -> AlertState?
    /// Stores a new open alert, with its escalation if its route has one.
    mutating func insert(_ alert: Alert, escalation: Escalation?) throws(Failure)
    /// Writes `alert`'s new state and decision (it was open until now).
    mutating func close(_ alert: Alert) throws(Failure)
    /// Records that `alert`'s escalation has fired, so it never fires again.
    mutating func markEscalated(_ alert: AlertID, at: Date) throws(Failure)
    /// Gives an alert whose escalation has not fired `escalation` instead,
    /// due its `after` from `createdAt`; nil holds it (``StoreCoding/heldEscalation``).
    mutating func setEscalation(_ alert: AlertID, _ escalation: Escalation?, createdAt: Date) throws(Failure)
    /// Counts a re-send folded into the open alert, seen at `at`
    /// (``Alert/repeats``), in one write: with `resolvesAt` it moves when
    /// the alert resolves by itself (``Alert/resolvesAt``); with `spec` it
    /// takes the re-send's spec (its title and message; labels, severity and
    /// dedup key are the same by its fingerprint), for an alert sent through
    /// Alertmanager's API (``AlertSubmission/refreshes``), as Alertmanager
    /// keeps the newest annotations, and its `resolvesAt` whatever it is: a
    /// re-send with no `endsAt` leaves the alert open until it is resolved,
    /// where keeping the earlier one resolved it under a sender still sending.
    mutating func recordRepeat(_ alert: AlertID, at: Date, resolvesAt: Date?, spec: AlertSpec?) throws(Failure)
    /// Queues a delivery, due at once.
    mutating func insert(_ delivery: DeliveryRecord) throws(Failure)
    /// The delivery with this id, if any.
    mutating func delivery(_ id: DeliveryID) throws(Failure) -> DeliveryRecord?
    /// Every delivery of `alert`.
    mutating func deliveries(of alert: AlertID) throws(Failure) -> [DeliveryRecord]
    /// Appends to the event log.
    mutating func append(_ kind: EventKind, alert: AlertID, at: Date, data: [String: String]) throws(Failure)

    /// The silence with this id, if any.
    mutating func silence(_ id: SilenceID) throws(Failure) -> Silence?
    /// Stores a silence, over the one with its id if there is one.
    mutating func save(_ silence: Silence) throws(Failure)
    /// Puts a pending delivery off until `until`, noting the silence that
    /// holds it. The first time any silence holds or withholds a delivery
    /// counts it in ``StoreCounts/silencedDeliveries``.
    mutating func hold(_ delivery: DeliveryID, until: Date, by silence: SilenceID, at now: Date) throws(Failure)
    /// Settles a pending delivery as ``DeliveryState/silenced``: never to be
    /// made, its alert having closed while a silence held it. Counted as `hold`.
    mutating func withhold(_ delivery: DeliveryID, by silence: SilenceID, at now: Date) throws(Failure)
    /// Makes the pending deliveries that `silence` holds due at `now`.
    mutating func release(heldBy silence: SilenceID, at now: Date) throws(Failure)

    /// The silences active at `now`.
    mutating func activeSilences(at now: Date) throws(Failure) -> [Silence]
    /// The silences active at `now` or still to start.
    mutating func unexpiredSilences(at now: Date) throws(Failure) -> [Silence]
    /// ``unexpiredSilences(at:)``, filed, to screen deliveries with (the
    /// active ones hold). A store nodes share keeps them from changing
    /// until the screening commits; one process's store may keep the
    /// filing between screenings.
    mutating func screeningSilences(at now: Date) throws(Failure) -> SilenceIndex
    /// What the silences not expired at `now` could cost one alert in
    /// regex steps (``SilenceBudget``) once `new` (if any) is saved and the
    /// silence `replaced` is gone. By default read from every such silence;
    /// a store may keep the budget between saves.
    mutating func silenceStepsInForce(saving new: Silence?, replacing replaced: SilenceID?, at now: Date) throws(Failure) -> Int
    /// Whether any silence is active at `now` or will be: one not yet ended.
    mutating func hasSilence(endingAfter now: Date) throws(Failure) -> Bool
    /// Every open alert, for inhibition.
    mutating func openAlerts() throws(Failure) -> [Alert]
    /// The inhibitions in force under `rules` (``Inhibitions/none`` without
    /// any). By default read from every open alert; a store may keep them.
    mutating func inhibitions(under rules: [InhibitRule]) throws(Failure) -> Inhibitions

    /// The group with this id, if it has formed and not ended.
    mutating func group(_ id: AlertGroupID) throws(Failure) -> AlertGroup?
    /// Stores a group, over the one with its id if there is one.
    mutating func save(_ group: AlertGroup) throws(Failure)
    /// Ends a group: deletes it, its members and what its presenters were told.
    mutating func deleteGroup(_ id: AlertGroupID) throws(Failure)
    /// Makes `alert` a member of `group` (once).
    mutating func addMember(_ alert: AlertID, to group: AlertGroupID) throws(Failure)
    /// Takes `alert` out of `group`: it closed and there is nothing more to say of it.
    mutating func removeMember(_ alert: AlertID, from group: AlertGroupID) throws(Failure)
    /// The group's members, in no particular order.
    mutating func members(of group: AlertGroupID) throws(Failure) -> [AlertID]
    /// The group's members' alerts, oldest first (by creation, then id). By
    /// default each read by ``alert(_:)``; a store may read them at once.
    mutating func memberAlerts(of group: AlertGroupID) throws(Failure) -> [Alert]
    /// The groups `alert` is a member of.
    mutating func groups(containing alert: AlertID) throws(Failure) -> [AlertGroupID]
    /// What each presenter was last told about `group`.
    mutating func told(about group: AlertGroupID) throws(Failure) -> [AlertGroupTold]
    /// Records what one presenter was told, over what it was told before.
    mutating func save(_ told: AlertGroupTold, about group: AlertGroupID) throws(Failure)
    /// Queues a group notification, due at once, with what it says, and
    /// drops what the one before it to the same presenter said: a claim of
    /// that one now ends superseded without reading it, so a big group
    /// that keeps changing stores one snapshot per presenter, not one per
    /// notification ever sent.
    mutating func insert(_ delivery: DeliveryRecord, snapshot: GroupSnapshot.Encoded) throws(Failure)
    /// Makes every pending delivery an inhibition holds due at `now`, to be
    /// screened again: the `inhibit` rules changed under them.
    mutating func releaseInhibited(at now: Date) throws(Failure)
}

extension StoreTransaction {
    package mutating func silenceStepsInForce(saving new: Silence?, replacing replaced: SilenceID?, at now: Date) throws(Failure) -> Int {
        SilenceBudget.steps(of: try unexpiredSilences(at: now), at: now, saving: new, replacing: replaced)
    }

    package mutating func inhibitions(under rules: [InhibitRule]) throws(Failure) -> Inhibitions {
        try inhibitionsOfEveryOpenAlert(under: rules)
    }

    package mutating func memberAlerts(of group: AlertGroupID) throws(Failure) -> [Alert] {
        var alerts: [Alert] = []
        for member in try members(of: group) {
            if let alert = try alert(member) { alerts.append(alert) }
        }
        return alerts.sorted(by: Alert.oldestFirst)
    }

    /// The inhibitions in force under `rules`, read from every open alert:
    /// the default, and what a store that keeps sources does without them.
    package mutating func inhibitionsOfEveryOpenAlert(under rules: [InhibitRule]) throws(Failure) -> Inhibitions {
        rules.isEmpty ? .none : Inhibitions(rules: rules, openAlerts: try openAlerts())
    }
}

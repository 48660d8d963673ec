import FoundationEssentials
import AlertModel

extension StoreRules {
    /// Alertmanager's rules for a new or changed silence. A start in the
    /// past is now. A silence that has not expired and keeps its matchers
    /// is changed in place (an active one keeps its start), unless an
    /// active one is asked to start later: that ends it now and stores a
    /// new one, pending, as Alertmanager does (kept in place, `amtool
    /// silence update --start` tomorrow left it silencing from now on). Any
    /// other change expires the old silence and stores a new one. A change
    /// releases what the old silence held, to be screened again at the next
    /// claim.
    package static func saveSilence<T: StoreTransaction>(
        _ silence: Silence, replacing id: SilenceID?, now: Date, in tx: inout T
    ) throws(T.Failure) -> SilenceSaveOutcome {
        let now = wholeMillisecond(now)
        var new = silence
        new.updatedAt = now
        new.startsAt = max(wholeMillisecond(new.startsAt), now)
        new.endsAt = wholeMillisecond(new.endsAt)
        // The one it replaces is about to end: not counted. Past the bound
        // already (silences filed anew as others ended), one that adds
        // nothing to it is still taken: every silence was refused, a plain
        // one in an incident too, until someone found which regexes to end.
        let inForce = try tx.silenceStepsInForce(saving: new, replacing: id, at: now)
        if inForce > Silence.maxRegexStepsInForce {
            let already = try tx.silenceStepsInForce(saving: nil, replacing: nil, at: now)
            guard inForce <= already else { return .tooCostly(steps: inForce) }
        }
        guard let id else {
            try tx.save(new)
            return .saved(new)
        }
        guard let old = try tx.silence(id) else { return .notFound }
        let state = old.state(at: now)
        let startsLater = state == .active && new.startsAt > now
        if state != .expired && Set(old.matchers) == Set(new.matchers) && !startsLater {
            new.id = old.id
            if state == .active { new.startsAt = old.startsAt }
        } else {
            _ = try expireSilence(id, now: now, in: &tx)
            if new.id == id { new.id = .generate() }
        }
        try tx.save(new)
        try tx.release(heldBy: id, at: now)
        return .saved(new)
    }

    /// The open source that inhibits `alert`, read as of now: a store may
    /// keep sources between claims (``InhibitionSources``), and each
    /// re-send moves `resolves_at`. One closed since the inhibitions were
    /// read (on another node, whose release found nothing held yet) holds
    /// nothing, and the next source is looked at: held by it, the target
    /// waited an hour for the backstop; let go, an alert another open
    /// source inhibits was sent.
    private static func openSource<T: StoreTransaction>(
        inhibiting alert: Alert, in inhibitions: Inhibitions, tx: inout T
    ) throws(T.Failure) -> Alert? {
        var closed: Set<AlertID> = []
        while let found = inhibitions.source(inhibiting: alert, excluding: closed) {
            let source = try tx.alert(found.id) ?? found
            if source.state == .open { return source }
            closed.insert(found.id)
        }
        return nil
    }

    /// Ends a silence now; one still pending ends before it starts.
    package static func expireSilence<T: StoreTransaction>(_ id: SilenceID, now: Date, in tx: inout T) throws(T.Failure) -> Silence? {
        let now = wholeMillisecond(now)
        guard var silence = try tx.silence(id) else { return nil }
        switch silence.state(at: now) {
        case .expired: return silence
        case .pending: silence.startsAt = now
        case .active: break
        }
        silence.endsAt = now
        silence.updatedAt = now
        try tx.save(silence)
        try tx.release(heldBy: id, at: now)
        return silence
    }

    /// A silence's times are kept to the millisecond, as every backend and
    /// Alertmanager's wire format hold them; rounded down, so a silence
    /// expired "now" has ended by now.
    private static func wholeMillisecond(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }

    /// How many pages of due deliveries one poll's claim reads at most. A
    /// delivery ``screen(_:kind:heldBy:of:silences:inhibitions:now:in:)``
    /// holds leaves the due set but took a row of its page; the page is
    /// read again for the room it left, so that a claim with room left has
    /// taken everything due, which the dispatcher counts on.
    package static let claimPages = 16

    /// The one rule of silencing, applied to each due delivery as it is
    /// claimed: an active silence that matches the alert's labels holds the
    /// delivery until the silence ends (the one ending last, when several
    /// match), and at that point it is screened again. Once the alert has
    /// closed, a delivery a silence matches or held is withheld for good:
    /// the alert was never shown and is over now. Handler calls carry a
    /// person's decision and are never held, nor are group notifications
    /// (their flush left out what was silenced). Returns true when the
    /// delivery may be claimed.
    ///
    /// Inhibition rides on the same holding: an open alert that inhibits
    /// this one (``InhibitRule``, among `inhibitors`, the open alerts that
    /// are a source of some rule) holds the delivery under
    /// ``SilenceID/inhibition(by:)``, and closing that alert releases it
    /// (``close``), so it is screened again at once.
    package static func screen<T: StoreTransaction>(
        _ delivery: DeliveryID, kind: DeliveryKind, heldBy: SilenceID?, of alert: Alert, silences active: SilenceIndex,
        inhibitions: Inhibitions = .none, now: Date, in tx: inout T
    ) throws(T.Failure) -> Bool {
        // A group notification lists only what no silence holds, as of its flush.
        guard kind.action == nil, delivery.groupNotification == nil else { return true }
        let silence = active.silencing(alert.spec.labels).max { $0.endsAt < $1.endsAt }
        var data = ["delivery_id": delivery.rawValue, "presenter": kind.name]
        if let silence, alert.state == .open {
            try tx.hold(delivery, until: silence.endsAt, by: silence.id, at: now)
            data["silence_id"] = silence.id.rawValue
            data["until"] = UTCTimestamp.iso8601(silence.endsAt)
            try tx.append(.deliverySilenced, alert: alert.id, at: now, data: data)
            return false
        }
        if alert.state == .open, let source = try openSource(inhibiting: alert, in: inhibitions, tx: &tx) {
            // The source has no end of its own; closing it releases the hold.
            // One that resolves by itself (Alertmanager's endsAt) is looked
            // at again then, in case maintenance is late to close it. Past
            // that time and still open (maintenance late, the grace after a
            // restart), its close is what releases: held until a moment
            // already gone, the target was due again at once, and read again
            // on every page of a claim, the deliveries after it never reached.
            let until = source.resolvesAt.flatMap { $0 > now ? $0 : nil } ?? now.addingTimeInterval(Inhibitions.recheck)
            try tx.hold(delivery, until: until, by: .inhibition(by: source.id), at: now)
            data["inhibited_by"] = source.id.rawValue
            data["until"] = UTCTimestamp.iso8601(until)
            try tx.append(.deliverySilenced, alert: alert.id, at: now, data: data)
            return false
        }
        if alert.state != .open, let by = silence?.id ?? heldBy {
            try tx.withhold(delivery, by: by, at: now)
            data["silence_id"] = by.rawValue
            try tx.append(.deliverySilenced, alert: alert.id, at: now, data: data)
            return false
        }
        return true
    }
}

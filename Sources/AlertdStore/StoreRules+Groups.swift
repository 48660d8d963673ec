import FoundationEssentials
import AlertModel

extension StoreRules {
    /// An alert joins the group its route keys it into: the group forms
    /// with its first member, to be looked at `wait` later; a member that
    /// joins a group already notified brings its next look forward to
    /// `interval` after that notification (``AlertGroupSettings/settle``
    /// from now, if that has passed).
    package static func join<T: StoreTransaction>(
        _ alert: Alert, _ membership: AlertGroupMembership, at time: Date? = nil, in tx: inout T
    ) throws(T.Failure) {
        let now = time ?? alert.createdAt
        var membership = membership
        var taken = 0
        // Its id held by another route's or other labels' group (a hash
        // collision, perhaps crafted): never that group, the next id. Each
        // group read once: a storm's every member joining read its group twice.
        var found = try tx.group(membership.id)
        while let holder = found, holder.route != membership.route || holder.labels.sorted() != membership.labels, taken < 16 {
            taken += 1
            membership.id = AlertGroupID(route: membership.route, labels: membership.labels, taken: taken)
            found = try tx.group(membership.id)
        }
        if let old = found {
            var group = old
            group.settings = membership.settings
            if let notified = group.notifiedAt {
                group.nextDueAt = min(group.nextDueAt, max(notified.addingTimeInterval(membership.settings.interval.seconds),
                                                           now.addingTimeInterval(membership.settings.settle.seconds)))
            }
            // A storm's members mostly change nothing: no write for them.
            if group != old { try tx.save(group) }
        } else {
            try tx.save(AlertGroup(id: membership.id, route: membership.route, labels: membership.labels, settings: membership.settings,
                                   createdAt: now, nextDueAt: now.addingTimeInterval(membership.settings.wait.seconds)))
        }
        try tx.addMember(alert.id, to: membership.id)
    }

    /// The configuration's grouped routes are `routes` (by name), as loaded
    /// at start or reload: each of the groups `ids` takes its route's
    /// settings, rather than keeping those it formed with until a member
    /// joins. A shorter timer brings its next look forward (a look with
    /// nothing to say only sets the next by the new timers); a longer one
    /// is kept to at that look. Presenters taken off the route hear that
    /// the group resolved, and nothing else
    /// (``flush(_:now:silences:inhibitions:in:)``); so do all of a group's
    /// when its route is gone or no longer groups. A group of an unnamed
    /// route (`routes[N]`) is left as it is: its name is a place in the
    /// list, which a reordered configuration gives to another route.
    /// A group of a route `rerouting` names (one the reload removed or
    /// stopped grouping) sends the open members it told nobody of where
    /// `rerouting` says (``reroute(_:by:now:in:)``), and ends if it told
    /// nobody at all. Returns how many groups changed.
    package static func follow<T: StoreTransaction>(
        _ ids: [AlertGroupID], routes: [String: AlertGroupSettings], rerouting: GroupRerouting? = nil, now: Date, in tx: inout T
    ) throws(T.Failure) -> Int {
        var changed = 0
        for id in ids {
            guard var group = try tx.group(id), !group.routeIsUnnamed else { continue }
            var rerouted = false
            if routes[group.route] == nil, let rerouting, rerouting.routes.contains(group.route) {
                rerouted = try reroute(group, by: rerouting.submission, now: now, in: &tx)
                guard let left = try tx.group(id) else {
                    changed += 1
                    continue
                }
                group = left
            }
            var settings = group.settings
            settings.presenters = []
            settings = routes[group.route] ?? settings
            guard settings != group.settings else {
                if rerouted { changed += 1 }
                continue
            }
            group.settings = settings
            let look = group.notifiedAt.map { $0.addingTimeInterval(settings.interval.seconds) }
                ?? group.createdAt.addingTimeInterval(settings.wait.seconds)
            group.nextDueAt = min(group.nextDueAt, max(look, now))
            try tx.save(group)
            changed += 1
        }
        return changed
    }

    /// A group whose route is gone or no longer groups: the open members
    /// it told nobody of go where the configuration routes them now, as
    /// `rerouting` says (deliveries of their own, or other groups), and
    /// leave it; a group that told nobody at all ends. Kept, with no
    /// presenter, it told nobody of alerts waiting out its `group_wait` or
    /// `group_interval` at the reload. A presenter the alert already has a
    /// delivery for (a `continue` route's) gets no second one, and a group
    /// it is in already is not joined again. True when it changed.
    private static func reroute<T: StoreTransaction>(
        _ group: AlertGroup, by rerouting: (Alert) -> AlertSubmission, now: Date, in tx: inout T
    ) throws(T.Failure) -> Bool {
        let told = try tx.told(about: group.id)
        var known = Set<AlertID>()
        for t in told { known.formUnion(t.alerts); known.formUnion(t.believed) }
        var moved = false
        for alert in try tx.memberAlerts(of: group.id) where alert.state == .open && !known.contains(alert.id) {
            let routed = rerouting(alert)
            let had = try tx.deliveries(of: alert.id)
            let served = Set(had.map(\.kind))
            // Past the ids its deliveries have: each routed id is taken once.
            var next = had.count
            for presenter in routed.presenters where !served.contains(.presenter(presenter)) {
                try tx.insert(.pending(.routed(alert.id, next), alert: alert.id, kind: .presenter(presenter), at: now,
                                       takesFollowUp: routed.followUps.contains(presenter)))
                next += 1
            }
            let member = Set(try tx.groups(containing: alert.id))
            // Joined now, as if sent now: a group formed at the alert's own time
            // waited less than its `group_wait`, and its generation could be
            // older than an earlier forming's, whose notifications then went
            // unsuperseded.
            for membership in routed.groups where !member.contains(membership.id) { try join(alert, membership, at: now, in: &tx) }
            try tx.removeMember(alert.id, from: group.id)
            moved = true
        }
        if told.isEmpty {
            try tx.deleteGroup(group.id)
            return true
        }
        return moved
    }

    /// A member closed: a group already notified is looked at again
    /// `interval` after its last notification (``AlertGroupSettings/settle``
    /// from now, if that has passed), to say so (with whatever else changed
    /// by then). One still in its first wait just waits.
    package static func memberClosed<T: StoreTransaction>(_ alert: AlertID, at now: Date, in tx: inout T) throws(T.Failure) {
        for id in try tx.groups(containing: alert) {
            guard var group = try tx.group(id), let notified = group.notifiedAt else { continue }
            let due = max(notified.addingTimeInterval(group.settings.interval.seconds), now.addingTimeInterval(group.settings.settle.seconds))
            guard due < group.nextDueAt else { continue }
            group.nextDueAt = due
            try tx.save(group)
        }
    }

    /// Looks at a group whose time has come, and queues for each of its
    /// presenters what it should be told now, if anything (Alertmanager's
    /// flush): the first notification; a change (alerts joined or closed);
    /// a reminder once `repeatInterval` passed with nothing changed; or,
    /// once every member closed, that the group resolved. A resolved group
    /// stays one more `interval`, so an alert that fires again soon after
    /// waits for it like any change rather than forming a new group due
    /// after `wait` (a flapping alert's every flap would be news), and then
    /// ends; so does a group that told nobody, while alerts come and go
    /// between its looks (flaps shorter than its `wait`). Silenced and
    /// inhibited members are not listed. Each
    /// notification is a delivery of its own with its content stored, so
    /// it is retried, rate limited and replayed like any other. A member
    /// that closed leaves the group once every presenter told of it has
    /// been told it closed, so a long-lived group does not read every
    /// alert it ever had at each look.
    package static func flush<T: StoreTransaction>(
        _ id: AlertGroupID, now: Date, silences: SilenceIndex, inhibitions: Inhibitions, in tx: inout T
    ) throws(T.Failure) -> [GroupNotice] {
        guard var group = try tx.group(id), group.nextDueAt <= now else { return [] }
        let members = try tx.memberAlerts(of: id)
        let open = members.filter { $0.state == .open }
        let firing = open.filter { alert in
            silences.silencing(alert.spec.labels).isEmpty && inhibitions.source(inhibiting: alert) == nil
        }
        let firingIDs = Set(firing.map(\.id))
        let told = Dictionary(try tx.told(about: id).map { ($0.presenter, $0) }) { a, _ in a }
        var notices: [GroupNotice] = []
        var snapshot: GroupSnapshot.Encoded?
        // A presenter told of the group before a reload took it off the
        // route still hears that the group resolved, and nothing else.
        let onRoute = group.settings.presenters
        let offRoute = told.keys.filter { !onRoute.contains($0) }.sorted()
        for presenter in onRoute + offRoute {
            let previous = told[presenter]
            let before = previous?.alerts ?? []
            // What the destination may take for firing: what the last
            // delivered notification listed, and what the last queued did.
            // Closures the ones since told are told again: this one may
            // supersede them unsent.
            let mayBelieve = previous.map { $0.believed.isEmpty ? before : before.union($0.believed) } ?? []
            let untold = group.settings.closingsUntold.contains(presenter)
            let closed = untold ? [] : members.filter { mayBelieve.contains($0.id) && $0.state.isFinal }
            let reason: AlertGroupNotification.Reason
            if previous == nil {
                guard !firing.isEmpty else { continue }
                reason = .first
            } else if let previous, untold, firingIDs.isSubset(of: before) && firingIDs != before {
                // Only closings (or everything closed): no news to a presenter told
                // nothing of them, as Alertmanager's `send_resolved: false`.
                // What it was told stops naming them, so they may leave the group.
                try tx.save(AlertGroupTold(presenter: presenter, sequence: previous.sequence, alerts: firingIDs, at: previous.at,
                                           thread: previous.thread, believed: previous.believed.intersection(firingIDs)), about: id)
                continue
            } else if firing.isEmpty {
                guard !before.isEmpty else { continue }
                if open.isEmpty {
                    reason = .resolved
                } else if closed.contains(where: { before.contains($0.id) }) {
                    reason = .changed
                } else {
                    // Every member still open is silenced or inhibited: nothing
                    // to say (as Alertmanager sends nothing), and what this
                    // presenter was told stands, so their return is no news.
                    continue
                }
            } else if firingIDs != before {
                reason = .changed
            } else if let previous, now.addingTimeInterval(0.002) >= previous.at.addingTimeInterval(group.settings.reminderInterval.seconds) {
                // (The slack covers times stored to the millisecond.)
                reason = .reminder
            } else {
                continue
            }
            if reason != .resolved, !onRoute.contains(presenter) { continue }
            let sequence = (previous?.sequence ?? 0) + 1
            let notification = AlertGroupNotification(
                groupID: id, route: group.route, groupLabels: group.labels, sequence: sequence, reason: reason,
                firing: firing, newAlertIDs: firingIDs.subtracting(before), closed: closed)
            guard let anchor = firing.first ?? closed.first ?? members.first else { continue }
            let deliveryID = DeliveryID.group(id, generation: group.generation, sequence, presenter: presenter)
            let said = GroupSnapshot(notification: notification, thread: previous?.thread)
            // `firing` is one array for every presenter, so comparing is cheap next to encoding.
            let encoded = snapshot.flatMap { $0.value == said ? $0 : nil } ?? GroupSnapshot.Encoded(said)
            snapshot = encoded
            try tx.insert(.pending(deliveryID, alert: anchor.id, kind: .presenter(presenter), at: now), snapshot: encoded)
            try tx.save(AlertGroupTold(presenter: presenter, sequence: sequence, alerts: firingIDs, at: now, thread: previous?.thread,
                                       believed: previous?.believed ?? []), about: id)
            notices.append(GroupNotice(group: id, presenter: presenter, reason: reason, delivery: deliveryID, listed: firing.count))
        }
        let toldNow = Set(notices.map(\.presenter))
        var stillTold = toldNow.isEmpty ? Set<AlertID>() : firingIDs
        for (presenter, previous) in told {
            if !toldNow.contains(presenter) { stillTold.formUnion(previous.alerts) }
            stillTold.formUnion(previous.believed)
        }
        for member in members where member.state.isFinal && !stillTold.contains(member.id) {
            try tx.removeMember(member.id, from: id)
        }
        if open.isEmpty {
            // Nothing was said now: everyone told has been told it resolved,
            // and its interval has passed; it ends once every such notification
            // is delivered or given up. Ended while one was on its way, the
            // group formed afresh, its notification superseded that one
            // unsent, and a receiver back from an outage never heard that
            // what it was told fires had closed.
            guard !notices.isEmpty else {
                for t in told.values where try awaited(t, of: group, in: &tx) {
                    group.nextDueAt = now.addingTimeInterval(group.settings.interval.seconds)
                    try tx.save(group)
                    return notices
                }
                // Told nobody, but alerts came and went since the last look (a
                // flap shorter than `group_wait`): kept one more interval, so the
                // next flap joins it and is told if it fires at that look, as
                // Alertmanager's group does. Ended, every flap formed a new group
                // that its alert closed within the wait, and none was ever told.
                if told.isEmpty && !members.isEmpty {
                    group.nextDueAt = now.addingTimeInterval(group.settings.interval.seconds)
                    try tx.save(group)
                    return notices
                }
                try tx.deleteGroup(id)
                return notices
            }
            group.notifiedAt = now
            group.nextDueAt = now.addingTimeInterval(group.settings.interval.seconds)
            try tx.save(group)
            return notices
        }
        if !notices.isEmpty { group.notifiedAt = now }
        // Nothing left to say until a reminder falls due, unless a member
        // joins or closes first (``join``, ``memberClosed``); members held
        // by a silence or inhibition are looked at again after `interval`.
        // Each presenter's reminder counts from when it was last told: one
        // added to the route by a reload is told later than the others,
        // and counting from that look made their reminders late by as much.
        let lastTold = onRoute.compactMap { toldNow.contains($0) ? now : told[$0]?.at }.min()
        var next = (lastTold ?? group.notifiedAt ?? now).addingTimeInterval(group.settings.reminderInterval.seconds)
        if firing.count < open.count || group.notifiedAt == nil {
            next = min(next, now.addingTimeInterval(group.settings.interval.seconds))
        }
        // A reminder due by now was queued by this look, unless there is
        // nothing firing to remind of (every member held): then the next look
        // is an interval on. Looked at again at once, a group held past its
        // repeat interval was flushed ten times a second, a write each.
        group.nextDueAt = next > now ? next : now.addingTimeInterval(group.settings.interval.seconds)
        try tx.save(group)
        return notices
    }

    /// Whether the last notification `told` names is still to be delivered
    /// to a destination that takes some of the group's alerts for firing.
    private static func awaited<T: StoreTransaction>(_ told: AlertGroupTold, of group: AlertGroup, in tx: inout T) throws(T.Failure) -> Bool {
        guard !told.believed.isEmpty else { return false }
        let last = DeliveryID.group(group.id, generation: group.generation, told.sequence, presenter: told.presenter)
        guard let delivery = try tx.delivery(last) else { return false }
        return delivery.state == .pending || delivery.state == .inFlight
    }

    /// A group notification was delivered: the firing alerts it listed
    /// are what its destination takes for firing now
    /// (``AlertGroupTold/believed``); if an earlier one is delivered after
    /// a later was queued, the later says what changed since, and both
    /// stand until it is delivered. What the destination answered becomes
    /// the group's thread for that presenter, if it has none yet.
    package static func confirmed<T: StoreTransaction>(
        _ parts: (group: AlertGroupID, generation: Int64, sequence: Int, presenter: String), listed: Set<AlertID>?, thread: String?,
        in tx: inout T
    ) throws(T.Failure) {
        guard let group = try tx.group(parts.group), group.generation == parts.generation else { return }
        let everyTold = try tx.told(about: parts.group)
        guard var told = everyTold.first(where: { $0.presenter == parts.presenter }) else { return }
        let was = told
        if told.thread == nil { told.thread = thread }
        // The last queued listed what `alerts` holds; an earlier one, what
        // its settler says (unknown, it adds nothing).
        if told.sequence == parts.sequence {
            told.believed = listed ?? told.alerts
        } else if let listed {
            told.believed.formUnion(listed)
        }
        guard told != was else { return }
        try tx.save(told, about: parts.group)
        // Told of their closing at last, closed members that no presenter
        // may still take for firing leave the group (as a flush lets them).
        let dropped = was.believed.subtracting(told.believed).subtracting(told.alerts)
        guard !dropped.isEmpty else { return }
        var kept = Set<AlertID>()
        for other in everyTold where other.presenter != parts.presenter {
            kept.formUnion(other.alerts)
            kept.formUnion(other.believed)
        }
        for id in dropped where !kept.contains(id) {
            if try tx.alertState(id)?.isFinal ?? true { try tx.removeMember(id, from: parts.group) }
        }
    }
}

extension StoreRules {
    /// ``flush(_:now:silences:inhibitions:in:)`` for each of `due`, with
    /// the silences and inhibitions in force now, read once.
    package static func flush<T: StoreTransaction>(
        _ due: [AlertGroupID], now: Date, inhibitRules: [InhibitRule], in tx: inout T
    ) throws(T.Failure) -> [GroupNotice] {
        guard !due.isEmpty else { return [] }
        let silences = try tx.screeningSilences(at: now)
        let inhibitions = try tx.inhibitions(under: inhibitRules)
        var notices: [GroupNotice] = []
        for id in due { notices += try flush(id, now: now, silences: silences, inhibitions: inhibitions, in: &tx) }
        return notices
    }

    /// A group as `GET /v1/groups/{id}` shows it.
    package static func groupRecord<T: StoreTransaction>(_ id: AlertGroupID, in tx: inout T) throws(T.Failure) -> AlertGroupRecord? {
        guard let group = try tx.group(id) else { return nil }
        let members = try tx.memberAlerts(of: id)
        return AlertGroupRecord(group: group, members: members, told: try tx.told(about: id).sorted { $0.presenter < $1.presenter })
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdStore
@testable import AlertdSQLite
@testable import AlertdSQLiteStore

/// Grouping's rules on every backend: a group forms with its first member
/// and is flushed `wait` later; changes wait for `interval`, reminders for
/// `repeatInterval`; the group resolves once, stays an interval, then ends;
/// closed members leave it once told; what each presenter
/// was told, and its thread, are kept; a notification's content is stored
/// with its delivery.
extension StoreConformanceTests {
    static let groupStart = Date(timeIntervalSince1970: 1_800_000_000)

    func grouped(_ title: String, rack: String = "7", at offset: TimeInterval, wait: Duration = .seconds(30),
                 interval: Duration = .seconds(300), repeatInterval: Duration = .seconds(3600),
                 presenters: [String] = ["chat", "pager"]) throws -> AlertSubmission {
        let spec = try spec(title, labels: ["alertname": "DiskFull", "rack": rack, "instance": title])
        let membership = AlertGroupMembership(
            route: "storms", labels: [AlertLabel(name: "alertname", value: "DiskFull"), AlertLabel(name: "rack", value: rack)],
            settings: AlertGroupSettings(presenters: presenters, wait: wait, interval: interval, repeatInterval: repeatInterval))
        return AlertSubmission(alert: Alert(spec: spec, at: Self.groupStart.addingTimeInterval(offset)), presenters: [], groups: [membership])
    }

    func at(_ offset: TimeInterval) -> Date { Self.groupStart.addingTimeInterval(offset) }

    /// What the group notifications due for `chat` say, claimed as a
    /// dispatcher would before the next flush drops the one before's.
    func claimNotifications(_ store: any AlertStore, at offset: TimeInterval) async throws -> [AlertGroupNotification] {
        try await store.claimDueDeliveries(now: at(offset), capacity: [.presenter("chat"): 10], orphanLimit: 0)
            .compactMap(\.group?.notification)
    }

    /// ``claimNotifications(_:at:)``, each then delivered.
    func deliverNotifications(_ store: any AlertStore, at offset: TimeInterval) async throws -> [AlertGroupNotification] {
        let claimed = try await store.claimDueDeliveries(now: at(offset), capacity: [.presenter("chat"): 10], orphanLimit: 0)
        try await store.settle(claimed.map { DeliverySettlement(deliveryID: $0.delivery.id, result: .delivered, at: at(offset)) })
        return claimed.compactMap(\.group?.notification)
    }

    @Test(arguments: StoreBackend.allCases) func aGroupIsNotifiedOnceAfterItsWaitListingEveryMember(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let subs = try (0..<5).map { try grouped("db\($0)", at: Double($0)) }
        _ = try await store.submit(subs)
        let id = subs[0].groups[0].id
        #expect(try await store.record(id: subs[0].alert.id)?.groups == [id])
        #expect(try await store.record(id: subs[0].alert.id)?.deliveries == [])  // no delivery of its own
        #expect(try await store.nextGroupDueTime() == at(30))
        #expect(try await store.counts().openGroups == 1)

        #expect(try await store.flushDueGroups(now: at(29), inhibitRules: [], limit: 10) == [])
        let notices = try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10)
        #expect(notices.map(\.presenter).sorted() == ["chat", "pager"])
        #expect(notices.allSatisfy { $0.reason == .first && $0.listed == 5 })
        // Flushing again at the same moment (a restart) sends nothing twice.
        #expect(try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10) == [])
        #expect(try await store.nextGroupDueTime() == at(3630))

        let claimed = try await store.claimDueDeliveries(now: at(30), capacity: [.presenter("chat"): 5, .presenter("pager"): 5], orphanLimit: 0)
        #expect(claimed.count == 2)
        let chat = try #require(claimed.first { $0.delivery.kind == .presenter("chat") })
        #expect(chat.delivery.id.groupNotification?.group == id)
        #expect(chat.delivery.id.groupNotification?.sequence == 1)
        let n = try #require(chat.group?.notification)
        #expect(n.reason == .first && n.sequence == 1 && n.route == "storms")
        #expect(n.firing.map(\.id) == subs.map(\.alert.id))
        #expect(n.newAlertIDs == Set(subs.map(\.alert.id)))
        #expect(n.groupLabels.map(\.description) == ["alertname=DiskFull", "rack=7"])
        #expect(chat.group?.thread == nil)

        let record = try #require(try await store.group(id: id))
        #expect(record.members.count == 5)
        #expect(record.told.map(\.sequence) == [1, 1])
        #expect(try await store.groups().map(\.id) == [id])
    }

    @Test(arguments: StoreBackend.allCases) func changesWaitForTheIntervalAndRemindersForTheRepeatInterval(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let first = try grouped("db0", at: 0, interval: .seconds(60), repeatInterval: .seconds(600), presenters: ["chat"])
        _ = try await store.submit([first])
        _ = try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10)
        var sent = try await claimNotifications(store, at: 30)
        // A member joining soon after waits for the interval after that notification.
        let late = try grouped("db1", at: 40, interval: .seconds(60), repeatInterval: .seconds(600), presenters: ["chat"])
        _ = try await store.submit([late])
        #expect(try await store.nextGroupDueTime() == at(90))
        #expect(try await store.flushDueGroups(now: at(89), inhibitRules: [], limit: 10) == [])
        let changed = try await store.flushDueGroups(now: at(90), inhibitRules: [], limit: 10)
        #expect(changed.map(\.reason) == [.changed])
        #expect(changed.first?.listed == 2)
        sent += try await claimNotifications(store, at: 90)
        // Nothing changes: a reminder after the repeat interval, not before.
        #expect(try await store.nextGroupDueTime() == at(690))
        #expect(try await store.flushDueGroups(now: at(689), inhibitRules: [], limit: 10) == [])
        #expect(try await store.flushDueGroups(now: at(690), inhibitRules: [], limit: 10).map(\.reason) == [.reminder])
        sent += try await claimNotifications(store, at: 690)
        let bySequence = Dictionary(uniqueKeysWithValues: sent.map { ($0.sequence, $0) })
        #expect(bySequence.keys.sorted() == [1, 2, 3])
        #expect(bySequence[2]?.newAlertIDs == [late.alert.id])
        #expect(bySequence[3]?.newAlertIDs == [])
        #expect(bySequence[3]?.firing.count == 2)
    }

    /// A repeat interval shorter than the interval: reminders come every
    /// interval, and a change still waits for it (the look for the shorter
    /// reminder told a change 20 s after the notification before).
    @Test(arguments: StoreBackend.allCases) func nothingIsToldSoonerThanTheIntervalNotEvenAReminder(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let first = try grouped("db0", at: 0, interval: .seconds(60), repeatInterval: .seconds(20), presenters: ["chat"])
        _ = try await store.submit([first])
        #expect(try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10).map(\.reason) == [.first])
        _ = try await claimNotifications(store, at: 30)
        _ = try await store.submit([try grouped("db1", at: 35, interval: .seconds(60), repeatInterval: .seconds(20), presenters: ["chat"])])
        #expect(try await store.nextGroupDueTime() == at(90))
        #expect(try await store.flushDueGroups(now: at(90), inhibitRules: [], limit: 10).map(\.reason) == [.changed])
        _ = try await claimNotifications(store, at: 90)
        #expect(try await store.nextGroupDueTime() == at(150))
        #expect(try await store.flushDueGroups(now: at(149), inhibitRules: [], limit: 10) == [])
        #expect(try await store.flushDueGroups(now: at(150), inhibitRules: [], limit: 10).map(\.reason) == [.reminder])
    }

    /// A presenter a reload adds to the route is told at the next look;
    /// the reminders of those told before still count from when they were
    /// (they came as late as the added one was told after them).
    @Test(arguments: StoreBackend.allCases) func eachPresentersReminderCountsFromWhenItWasTold(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let first = try grouped("db0", at: 0, interval: .seconds(60), repeatInterval: .seconds(600), presenters: ["chat"])
        _ = try await store.submit([first])
        #expect(try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10).map(\.presenter) == ["chat"])
        _ = try await deliverNotifications(store, at: 30)
        var settings = first.groups[0].settings
        settings.presenters = ["chat", "pager"]
        #expect(try await store.followRoutes(["storms": settings], now: at(40)) == 1)
        #expect(try await store.nextGroupDueTime() == at(90))
        let added = try await store.flushDueGroups(now: at(90), inhibitRules: [], limit: 10)
        #expect(added.map(\.presenter) == ["pager"] && added.map(\.reason) == [.first])
        #expect(try await store.nextGroupDueTime() == at(630))
        let chat = try await store.flushDueGroups(now: at(630), inhibitRules: [], limit: 10)
        #expect(chat.map(\.presenter) == ["chat"] && chat.map(\.reason) == [.reminder])
        #expect(try await store.nextGroupDueTime() == at(690))
        let pager = try await store.flushDueGroups(now: at(690), inhibitRules: [], limit: 10)
        #expect(pager.map(\.presenter) == ["pager"] && pager.map(\.reason) == [.reminder])
        #expect(try await store.nextGroupDueTime() == at(1230))
    }

    @Test(arguments: StoreBackend.allCases) func aGroupResolvesOnceWhenEveryMemberClosedThenEnds(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let subs = try (0..<3).map { try grouped("db\($0)", at: 0, interval: .seconds(60), presenters: ["chat"]) }
        _ = try await store.submit(subs)
        _ = try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10)
        var notes = try await deliverNotifications(store, at: 30)
        // One closes: a change, listing the closure.
        _ = try await store.decide(subs[0].alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(40)))
        #expect(try await store.nextGroupDueTime() == at(90))
        #expect(try await store.flushDueGroups(now: at(90), inhibitRules: [], limit: 10).map(\.reason) == [.changed])
        // Until told it closed, it stays in the group; then it leaves.
        let id = subs[0].groups[0].id
        #expect(try await store.group(id: id)?.members.map(\.id) == subs.map(\.alert.id))
        notes += try await deliverNotifications(store, at: 90)
        #expect(try await store.group(id: id)?.members.map(\.id) == subs.dropFirst().map(\.alert.id))
        for s in subs.dropFirst() { _ = try await store.decide(s.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(100))) }
        let resolved = try await store.flushDueGroups(now: at(150), inhibitRules: [], limit: 10)
        #expect(resolved.map(\.reason) == [.resolved])
        notes += try await deliverNotifications(store, at: 150)
        // It stays an interval, with no members, and then ends with nothing more said.
        #expect(try await store.nextGroupDueTime() == at(210))
        #expect(try await store.group(id: id)?.members == [])
        #expect(try await store.flushDueGroups(now: at(209), inhibitRules: [], limit: 10) == [])
        #expect(try await store.groups().map(\.id) == [id])
        #expect(try await store.flushDueGroups(now: at(210), inhibitRules: [], limit: 10) == [])
        #expect(try await store.nextGroupDueTime() == nil)
        #expect(try await store.groups() == [])
        #expect(try await store.counts().openGroups == 0)
        #expect(try await store.record(id: subs[1].alert.id)?.groups == [])

        #expect(notes.map(\.reason) == [.first, .changed, .resolved])
        #expect(notes[1].closed.map(\.id) == [subs[0].alert.id])
        #expect(notes[1].firing.count == 2)
        #expect(Set(notes[2].closed.map(\.id)) == Set(subs.dropFirst().map(\.alert.id)))
        #expect(notes[2].firing.isEmpty)
        #expect(notes[2].summaryAlert.state == .resolved)
        #expect(notes[2].title.hasPrefix("[RESOLVED]"))

        // The same labels again form a new group, whose notifications have new ids.
        let again = try grouped("db9", at: 220, presenters: ["chat"])
        _ = try await store.submit([again])
        let notices = try await store.flushDueGroups(now: at(250), inhibitRules: [], limit: 10)
        #expect(notices.map(\.reason) == [.first])
        let formedAgain = try #require(notices.first?.delivery.groupNotification)
        #expect(formedAgain.sequence == 1)
        #expect(formedAgain.generation != resolved.first?.delivery.groupNotification?.generation)
    }

    /// A presenter whose `follow_ups` is false (Alertmanager's
    /// `send_resolved: false`) is told what fires and never what closed: no
    /// `resolved`, no change that only closes alerts, no closings listed; a
    /// new alert firing is news to it as to the others. The closed leave
    /// the group all the same, and it ends. It was told every closing.
    @Test(arguments: StoreBackend.allCases) func aPresenterToldNothingOfClosingsHearsOnlyWhatFires(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        func member(_ title: String, at offset: TimeInterval) throws -> AlertSubmission {
            var s = try grouped(title, at: offset, interval: .seconds(60))
            s.groups[0].settings.closingsUntold = ["pager"]
            return s
        }
        func told(_ offset: TimeInterval) async throws -> [String: AlertGroupNotification] {
            let claimed = try await store.claimDueDeliveries(now: at(offset), capacity: [.presenter("chat"): 5, .presenter("pager"): 5], orphanLimit: 0)
            try await store.settle(claimed.map { DeliverySettlement(deliveryID: $0.delivery.id, result: .delivered, at: at(offset)) })
            return Dictionary(uniqueKeysWithValues: claimed.compactMap { c in c.group.map { (c.delivery.kind.name, $0.notification) } })
        }
        let subs = try (0..<3).map { try member("db\($0)", at: 0) }
        let id = subs[0].groups[0].id
        _ = try await store.submit(subs)
        _ = try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10)
        #expect(try await told(30).mapValues(\.reason) == ["chat": .first, "pager": .first])

        _ = try await store.decide(subs[0].alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(40)))
        #expect(try await store.flushDueGroups(now: at(90), inhibitRules: [], limit: 10).map(\.presenter) == ["chat"])
        #expect(try await told(90)["chat"]?.closed.map(\.id) == [subs[0].alert.id])
        #expect(try await store.group(id: id)?.members.map(\.id) == subs.dropFirst().map(\.alert.id))

        let late = try member("db3", at: 100)
        _ = try await store.submit([late])
        #expect(try await store.flushDueGroups(now: at(150), inhibitRules: [], limit: 10).map(\.presenter).sorted() == ["chat", "pager"])
        let changed = try await told(150)
        #expect(changed["pager"]?.reason == .changed)
        #expect(changed["pager"]?.newAlertIDs == [late.alert.id])
        #expect(changed["pager"]?.closed.isEmpty == true)

        for s in subs.dropFirst() + [late] { _ = try await store.decide(s.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(160))) }
        let resolved = try await store.flushDueGroups(now: at(210), inhibitRules: [], limit: 10)
        #expect(resolved.map(\.presenter) == ["chat"] && resolved.map(\.reason) == [.resolved])
        _ = try await told(210)
        #expect(try await store.flushDueGroups(now: at(270), inhibitRules: [], limit: 10) == [])
        #expect(try await store.groups() == [])
    }

    /// Notifications queued while none could be sent (the destination was
    /// down) are claimed together; each but the last names the one after
    /// it, which says what stands now.
    @Test(arguments: StoreBackend.allCases) func aClaimedNotificationNamesTheNextOneQueued(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let first = try grouped("db0", at: 0, interval: .seconds(60), presenters: ["chat", "pager"])
        _ = try await store.submit([first])
        _ = try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10)
        _ = try await store.decide(first.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(40)))
        #expect(try await store.flushDueGroups(now: at(90), inhibitRules: [], limit: 10).map(\.reason) == [.resolved, .resolved])
        let claimed = try await store.claimDueDeliveries(now: at(90), capacity: [.presenter("chat"): 10, .presenter("pager"): 10], orphanLimit: 0)
        #expect(claimed.count == 4)
        for c in claimed {
            let parts = try #require(c.delivery.id.groupNotification)
            let next = DeliveryID.group(parts.group, generation: parts.generation, 2, presenter: parts.presenter)
            #expect(c.supersededBy == (parts.sequence == 1 ? next : nil), "\(c.delivery.id)")
            // Queuing the next dropped what the first said: a big group that
            // keeps changing stores one notification's worth per presenter.
            #expect((c.group == nil) == (parts.sequence == 1), "\(c.delivery.id)")
        }
    }

    /// The group ended and formed again while its old notifications still
    /// waited (the destination was down): the old `resolved`, sent after
    /// the new forming's `first`, would close the incident that reopened.
    /// Each old one names what supersedes it.
    @Test(arguments: StoreBackend.allCases) func aNotificationOfAnEndedGroupThatFormedAgainIsSuperseded(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let first = try grouped("db0", at: 0, interval: .seconds(60), presenters: ["pager"])
        _ = try await store.submit([first])
        _ = try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10)
        _ = try await store.decide(first.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(40)))
        let resolved = try #require(try await store.flushDueGroups(now: at(90), inhibitRules: [], limit: 10).first)
        #expect(resolved.reason == .resolved)
        #expect(try await store.flushDueGroups(now: at(150), inhibitRules: [], limit: 10) == [])
        #expect(try await store.groups() == [])
        let again = try grouped("db0", at: 160, interval: .seconds(60), presenters: ["pager"])
        _ = try await store.submit([again])
        let formed = try #require(try await store.groups().first).generation
        let claimed = try await store.claimDueDeliveries(now: at(160), capacity: [.presenter("pager"): 10], orphanLimit: 0)
        let by = Dictionary(uniqueKeysWithValues: claimed.map { ($0.delivery.id, $0.supersededBy) })
        #expect(by.count == 2)
        #expect(by[resolved.delivery] == DeliveryID.group(try #require(again.groups.first).id, generation: formed, 1, presenter: "pager"))
        #expect(claimed.allSatisfy { $0.isStale })
    }

    /// A group whose `resolved` is still on its way to a destination told
    /// its alerts fire does not end: ended, it formed afresh when one fired
    /// again, its `first` superseded the `resolved` unsent, and the
    /// destination never heard the others had closed. It ends once that
    /// notification is delivered or given up.
    @Test(arguments: StoreBackend.allCases) func aGroupWaitsForItsResolvedToBeDeliveredBeforeItEnds(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let subs = try (0..<2).map { try grouped("db\($0)", at: 0, interval: .seconds(60), presenters: ["pager"]) }
        let group = subs[0].groups[0].id
        _ = try await store.submit(subs)
        _ = try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10)
        let first = try await store.claimDueDeliveries(now: at(30), capacity: [.presenter("pager"): 10], orphanLimit: 0)
        try await store.settle(first.map { DeliverySettlement(deliveryID: $0.delivery.id, result: .delivered, at: at(30)) })
        for s in subs { _ = try await store.decide(s.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(40))) }
        let resolved = try #require(try await store.flushDueGroups(now: at(90), inhibitRules: [], limit: 10).first)
        #expect(resolved.reason == .resolved)
        // Its destination is down: the group stays, and looks again an interval later.
        #expect(try await store.flushDueGroups(now: at(150), inhibitRules: [], limit: 10) == [])
        #expect(try await store.groups().map(\.id) == [group])
        #expect(try await store.nextGroupDueTime() == at(210))
        let again = try grouped("db2", at: 160, interval: .seconds(60), presenters: ["pager"])
        _ = try await store.submit([again])
        #expect(try await store.flushDueGroups(now: at(210), inhibitRules: [], limit: 10).map(\.reason) == [.changed])
        let claimed = try await store.claimDueDeliveries(now: at(210), capacity: [.presenter("pager"): 10], orphanLimit: 0)
        let latest = try #require(claimed.first { $0.supersededBy == nil })
        let current = try #require(latest.group?.notification)
        #expect(claimed.first { $0.delivery.id == resolved.delivery }?.supersededBy == latest.delivery.id)
        #expect(current.firing.map(\.id) == [again.alert.id])
        #expect(Set(current.closed.map(\.id)) == Set(subs.map(\.alert.id)))

        // Given up instead, a resolved lets its group end.
        let other = try (0..<2).map { try grouped("web\($0)", rack: "8", at: 300, interval: .seconds(60), presenters: ["pager"]) }
        _ = try await store.submit(other)
        _ = try await store.flushDueGroups(now: at(330), inhibitRules: [], limit: 10)
        let told = try await store.claimDueDeliveries(now: at(330), capacity: [.presenter("pager"): 10], orphanLimit: 0)
            .filter { $0.delivery.id.groupNotification?.group == other[0].groups[0].id }
        try await store.settle(told.map { DeliverySettlement(deliveryID: $0.delivery.id, result: .delivered, at: at(330)) })
        for s in other { _ = try await store.decide(s.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(340))) }
        let gone = try await store.flushDueGroups(now: at(390), inhibitRules: [], limit: 10).filter { $0.group == other[0].groups[0].id }
        #expect(gone.map(\.reason) == [.resolved])
        let dying = try await store.claimDueDeliveries(now: at(390), capacity: [.presenter("pager"): 10], orphanLimit: 0)
            .filter { $0.delivery.id == gone.first?.delivery }
        try await store.settle(dying.map { DeliverySettlement(deliveryID: $0.delivery.id, result: .dead(error: "HTTP 503"), at: at(391)) })
        _ = try await store.flushDueGroups(now: at(450), inhibitRules: [], limit: 10)
        #expect(try await store.group(id: other[0].groups[0].id) == nil)
    }

    /// Retention shorter than `group_interval`: a closed member is kept
    /// until its group has told of it, so the group still resolves (it had
    /// ended unannounced, its closed members pruned before its next look).
    @Test(arguments: StoreBackend.allCases) func aClosedMemberOutlivesRetentionUntilItsGroupToldOfIt(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let s = try grouped("db0", at: 0, interval: .seconds(60), presenters: ["pager"])
        _ = try await store.submit([s])
        _ = try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10)
        let sent = try await store.claimDueDeliveries(now: at(30), capacity: [.presenter("pager"): 10], orphanLimit: 0)
        try await store.settle(sent.map { DeliverySettlement(deliveryID: $0.delivery.id, result: .delivered, at: at(31)) })
        _ = try await store.decide(s.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(40)))
        #expect(try await store.prune(closedBefore: at(80), limit: 10) == 0)
        let resolved = try await store.flushDueGroups(now: at(90), inhibitRules: [], limit: 10)
        #expect(resolved.map(\.reason) == [.resolved])
        let told = try await store.claimDueDeliveries(now: at(90), capacity: [.presenter("pager"): 10], orphanLimit: 0)
        #expect(told.first?.group?.notification.closed.map(\.id) == [s.alert.id])
        try await store.settle(told.map { DeliverySettlement(deliveryID: $0.delivery.id, result: .delivered, at: at(91)) })
        // Told, it left the group, and goes with the next prune.
        #expect(try await store.prune(closedBefore: at(100), limit: 10) == 1)
    }

    /// A reload takes a presenter off the route while it has been told of
    /// the group: it hears no more changes, but it does hear that the group
    /// resolved (else a pager's incident stays open for good).
    @Test(arguments: StoreBackend.allCases) func aPresenterTakenOffTheRouteStillHearsTheGroupResolved(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let first = try grouped("db0", at: 0, interval: .seconds(60), presenters: ["chat", "pager"])
        _ = try await store.submit([first])
        #expect(try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10).map(\.presenter).sorted() == ["chat", "pager"])
        // After the reload, a member joins with the route's new presenters.
        let later = try grouped("db1", at: 40, interval: .seconds(60), presenters: ["chat"])
        _ = try await store.submit([later])
        let changed = try await store.flushDueGroups(now: at(90), inhibitRules: [], limit: 10)
        #expect(changed.map(\.presenter) == ["chat"])
        #expect(changed.map(\.reason) == [.changed])
        for s in [first, later] { _ = try await store.decide(s.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(100))) }
        let resolved = try await store.flushDueGroups(now: at(150), inhibitRules: [], limit: 10)
        #expect(resolved.map(\.presenter).sorted() == ["chat", "pager"])
        #expect(resolved.allSatisfy { $0.reason == .resolved })
        #expect(resolved.first { $0.presenter == "pager" }?.delivery.groupNotification?.sequence == 2)
    }

    /// A reload changed the route: its open groups take the new presenters
    /// and timers at once. A shorter timer brings the next look forward; a
    /// look with nothing to say sets the next by the new timers; a group
    /// still in its first wait keeps to it; other routes' groups and
    /// unchanged settings are left alone.
    @Test(arguments: StoreBackend.allCases) func openGroupsFollowTheirRoutesNewSettings(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let told = try grouped("db0", at: 0, interval: .seconds(300), repeatInterval: .seconds(3600))
        _ = try await store.submit([told])
        #expect(try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10).map(\.presenter).sorted() == ["chat", "pager"])
        let waiting = try grouped("db9", rack: "9", at: 40, interval: .seconds(300), repeatInterval: .seconds(3600))
        _ = try await store.submit([waiting])
        #expect(try await store.nextGroupDueTime() == at(70))

        let settings = AlertGroupSettings(presenters: ["chat"], wait: .seconds(60), interval: .seconds(60), repeatInterval: .seconds(600))
        #expect(try await store.followRoutes(["storms": settings], now: at(45)) == 2)
        #expect(try await store.followRoutes(["storms": settings], now: at(45)) == 0)
        let groups = try await store.groups()
        #expect(groups.allSatisfy { $0.settings == settings })
        // The notified group looks again at 30 + 60; the waiting one keeps its 70.
        #expect(Dictionary(uniqueKeysWithValues: groups.map { ($0.id, $0.nextDueAt) })
                == [told.groups[0].id: at(90), waiting.groups[0].id: at(70)])
        let first = try await store.flushDueGroups(now: at(70), inhibitRules: [], limit: 10)
        #expect(first.map(\.presenter) == ["chat"])
        #expect(first.map(\.reason) == [.first])
        // Nothing new at 90: the next look is the new reminder, 30 + 600.
        #expect(try await store.flushDueGroups(now: at(90), inhibitRules: [], limit: 10) == [])
        #expect(try await store.group(id: told.groups[0].id)?.group.nextDueAt == at(630))
        // Taken off the route, the pager hears only that the group resolved.
        _ = try await store.decide(told.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(100)))
        // After a quiet spell a change waits a second for the rest of its burst.
        #expect(try await store.flushDueGroups(now: at(100.5), inhibitRules: [], limit: 10) == [])
        let resolved = try await store.flushDueGroups(now: at(101), inhibitRules: [], limit: 10)
        #expect(resolved.map(\.presenter).sorted() == ["chat", "pager"])
        #expect(resolved.allSatisfy { $0.reason == .resolved })
    }

    /// A group whose route is gone (or no longer groups) only tells the
    /// presenters it told that it resolved; a group of an unnamed route,
    /// named by its place in the list, is left as it is.
    @Test(arguments: StoreBackend.allCases) func groupsOfARemovedRouteOnlyResolveAndUnnamedRoutesKeepTheirs(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let told = try grouped("db0", at: 0, interval: .seconds(60))
        let other = try grouped("db1", at: 1, interval: .seconds(60))
        let settings = try #require(told.groups.first).settings
        let unnamed = AlertGroupMembership(route: "routes[0]", labels: [AlertLabel(name: "alertname", value: "CPU")], settings: settings)
        let cpu = AlertSubmission(alert: Alert(spec: try spec("cpu", labels: ["alertname": "CPU"]), at: at(0)), presenters: [], groups: [unnamed])
        _ = try await store.submit([told, other, cpu])
        #expect(try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10).count == 4)
        #expect(try await store.followRoutes([:], now: at(40)) == 1)
        let groups = Dictionary(uniqueKeysWithValues: try await store.groups().map { ($0.route, $0.settings) })
        #expect(groups["storms"]?.presenters == [])
        #expect(groups["routes[0]"] == settings)
        // A change is not told; the end is, to both presenters told before.
        _ = try await store.decide(told.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(50)))
        #expect(try await store.flushDueGroups(now: at(90), inhibitRules: [], limit: 10).filter { $0.group == told.groups[0].id } == [])
        _ = try await store.decide(other.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(100)))
        let resolved = try await store.flushDueGroups(now: at(200), inhibitRules: [], limit: 10).filter { $0.group == told.groups[0].id }
        #expect(resolved.map(\.presenter).sorted() == ["chat", "pager"])
        #expect(resolved.allSatisfy { $0.reason == .resolved })
    }

    /// A group that told nobody yet, whose route is gone or no longer
    /// groups, sends its open members where the routes now do and ends:
    /// kept with no presenter, the alerts waiting out its `group_wait` at
    /// the reload were never told to anyone. A group already told keeps to
    /// telling its end (above).
    @Test(arguments: StoreBackend.allCases) func aGroupThatToldNobodyFollowsItsAlertsNewRoutes(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let subs = try (0..<3).map { try grouped("db\($0)", at: 0, interval: .seconds(60)) }
        let told = try grouped("web0", rack: "8", at: 0, interval: .seconds(60))
        _ = try await store.submit(subs + [told])
        _ = try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10)
        // Rack 9 forms after the first look: still in its wait at the reload.
        let waiting = try (3..<5).map { try grouped("db\($0)", rack: "9", at: 35, interval: .seconds(60)) }
        _ = try await store.submit(waiting)
        _ = try await store.decide(waiting[1].alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(36)))
        let rerouted = try await store.followRoutes([:], rerouting: GroupRerouting(routes: ["storms"]) {
            AlertSubmission(alert: $0, presenters: ["chat", "pager"], followUps: ["chat"])
        }, now: at(40))
        #expect(rerouted == 3)
        #expect(try await store.group(id: waiting[0].groups[0].id) == nil)
        #expect(Set(try await store.groups().map(\.id)) == Set([subs[0].groups[0].id, told.groups[0].id]))
        let deliveries = try #require(try await store.record(id: waiting[0].alert.id)).deliveries
        #expect(deliveries.map(\.kind).sorted { $0.name < $1.name } == [.presenter("chat"), .presenter("pager")])
        #expect(deliveries.allSatisfy { $0.state == .pending })
        #expect(deliveries.first { $0.kind == .presenter("chat") }?.takesFollowUp == true)
        #expect(try #require(try await store.record(id: waiting[1].alert.id)).deliveries.isEmpty)
        let claimed = try await store.claimDueDeliveries(now: at(40), capacity: [.presenter("chat"): 10, .presenter("pager"): 10], orphanLimit: 0)
        #expect(claimed.filter { $0.group == nil }.map(\.delivery.alertID) == [waiting[0].alert.id, waiting[0].alert.id])
        // Told of already, a group keeps the members it told of for its end;
        // one that joined since, in its interval, goes where it is routed now.
        // A presenter it had a delivery for (a `continue` route's) gets no second.
        var joined = try grouped("db6", at: 45, interval: .seconds(60))
        joined.presenters = ["chat"]
        _ = try await store.submit([joined])
        // A route the reload did not stop grouping (another node's newer one) is left alone.
        let reroute = GroupRerouting(routes: ["storms"]) { AlertSubmission(alert: $0, presenters: ["chat", "pager"]) }
        _ = try await store.followRoutes([:], rerouting: GroupRerouting(routes: ["other"], submission: reroute.submission), now: at(46))
        #expect(try await store.group(id: subs[0].groups[0].id)?.members.map(\.id).contains(joined.alert.id) == true)
        #expect(try #require(try await store.record(id: joined.alert.id)).deliveries.count == 1)
        #expect(try await store.followRoutes([:], rerouting: reroute, now: at(47)) == 1)
        #expect(try await store.group(id: subs[0].groups[0].id)?.members.map(\.id) == subs.map(\.alert.id))
        let kinds = try #require(try await store.record(id: joined.alert.id)).deliveries.map(\.kind)
        #expect(kinds.sorted { $0.name < $1.name } == [.presenter("chat"), .presenter("pager")])

        // Into another route's group instead: it joins that one.
        let late = try grouped("db5", rack: "5", at: 50, interval: .seconds(60))
        _ = try await store.submit([late])
        let elsewhere = AlertGroupMembership(route: "racks", labels: [AlertLabel(name: "rack", value: "5")], settings: late.groups[0].settings)
        #expect(try await store.followRoutes(["racks": elsewhere.settings], rerouting: GroupRerouting(routes: ["storms"]) {
            AlertSubmission(alert: $0, presenters: [], groups: [elsewhere])
        }, now: at(60)) >= 1)
        #expect(try await store.group(id: elsewhere.id)?.members.map(\.id) == [late.alert.id])
        // Formed at the reload, as if the alert were sent then: not at the alert's own time.
        #expect(try await store.group(id: elsewhere.id)?.group.createdAt == at(60))
        #expect(try await store.group(id: late.groups[0].id) == nil)
    }

    /// Two groups whose ids collide (a real FNV-1a collision, found by
    /// searching): the second does not join the first, whose route and
    /// labels it does not share, but takes the next id.
    @Test(arguments: StoreBackend.allCases) func aGroupWhoseIdIsTakenByAnotherTakesTheNext(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        func member(_ title: String, route: String, a: String, presenters: [String]) throws -> AlertSubmission {
            let labels = [AlertLabel(name: "a", value: a)]
            let membership = AlertGroupMembership(route: route, labels: labels, settings: AlertGroupSettings(
                presenters: presenters, wait: .seconds(30), interval: .seconds(300), repeatInterval: .seconds(3600)))
            return AlertSubmission(alert: Alert(spec: try spec(title, labels: ["a": a]), at: at(0)), presenters: [], groups: [membership])
        }
        let victim = try member("db down", route: "pager", a: "543181af1377bf65", presenters: ["pager"])
        let intruder = try member("info", route: "chat", a: "5ac7746b4904291a", presenters: ["chat"])
        let id = victim.groups[0].id
        #expect(intruder.groups[0].id == id)
        _ = try await store.submit([victim])
        _ = try await store.submit([intruder])
        let next = AlertGroupID(route: "chat", labels: [AlertLabel(name: "a", value: "5ac7746b4904291a")], taken: 1)
        #expect(next != id)
        #expect(try await store.group(id: id)?.members.map(\.id) == [victim.alert.id])
        #expect(try await store.group(id: id)?.group.settings.presenters == ["pager"])
        #expect(try await store.group(id: next)?.members.map(\.id) == [intruder.alert.id])
        #expect(try await store.record(id: intruder.alert.id)?.groups == [next])
        let notices = try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10)
        #expect(Set(notices.map(\.presenter)) == ["pager", "chat"])
        #expect(notices.allSatisfy { $0.listed == 1 })
    }

    /// A flap: the group's one alert resolves and fires again soon after.
    /// The new alert joins the resolved group, told an interval after the
    /// resolution (as any change is), not a new group told `wait` after it
    /// fired: `interval` throttles a flapping alert's notifications.
    @Test(arguments: StoreBackend.allCases) func anAlertFiringSoonAfterItsGroupResolvedWaitsForTheInterval(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let first = try grouped("db0", at: 0, interval: .seconds(60), presenters: ["chat"])
        _ = try await store.submit([first])
        #expect(try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10).map(\.reason) == [.first])
        _ = try await store.decide(first.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(40)))
        #expect(try await store.flushDueGroups(now: at(90), inhibitRules: [], limit: 10).map(\.reason) == [.resolved])

        let again = try grouped("db0", at: 100, interval: .seconds(60), presenters: ["chat"])
        _ = try await store.submit([again])
        #expect(try await store.nextGroupDueTime() == at(150))
        #expect(try await store.flushDueGroups(now: at(149), inhibitRules: [], limit: 10) == [])
        let changed = try await store.flushDueGroups(now: at(150), inhibitRules: [], limit: 10)
        #expect(changed.map(\.reason) == [.changed])
        #expect(changed.first?.listed == 1)

        // The two before it, never sent, end superseded: what they said is
        // gone, as its receiver never heard of the first alert.
        let notes = try await deliverNotifications(store, at: 150)
        #expect(notes.map(\.reason) == [.changed])
        let note = try #require(notes.first)
        #expect(note.sequence == 3)
        #expect(note.firing.map(\.id) == [again.alert.id])
        #expect(note.newAlertIDs == [again.alert.id])
        #expect(note.closed.isEmpty)
        #expect(try await store.group(id: again.groups[0].id)?.members.map(\.id) == [again.alert.id])
    }

    /// A receiver down from the start while an alert flaps: each flap is a
    /// new alert. It never heard of the old ones, so their closings are not
    /// kept up one per flap: the group holds the one firing, and the
    /// notification that finally goes out lists the closing of the one
    /// before only.
    @Test(arguments: StoreBackend.allCases) func aFlappingAlertsClosingsAreNotKeptWhileNothingIsDelivered(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        var flap = try grouped("db0", at: 0, interval: .seconds(60), presenters: ["chat"])
        var previous = flap.alert.id
        let group = flap.groups[0].id
        _ = try await store.submit([flap])
        #expect(try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10).map(\.reason) == [.first])
        for n in 1...5 {
            previous = flap.alert.id
            let t = TimeInterval(30 + 60 * n)
            _ = try await store.decide(flap.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(t - 20)))
            flap = try grouped("db0", at: t - 10, interval: .seconds(60), presenters: ["chat"])
            _ = try await store.submit([flap])
            #expect(try await store.flushDueGroups(now: at(t), inhibitRules: [], limit: 10).map(\.reason) == [.changed])
        }
        #expect(try await store.group(id: group)?.members.map(\.id) == [flap.alert.id])
        let claimed = try await store.claimDueDeliveries(now: at(400), capacity: [.presenter("chat"): 10], orphanLimit: 0)
        let current = try #require(claimed.first { $0.supersededBy == nil }?.group?.notification)
        #expect(current.firing.map(\.id) == [flap.alert.id])
        #expect(current.closed.map(\.id) == [previous])
    }

    /// A receiver down while alerts close in two waves: the `changed`
    /// listing the first wave is never sent, superseded by the one listing
    /// the second, which lists both. Once a notification is delivered, the
    /// next lists only what closed since.
    @Test(arguments: StoreBackend.allCases) func closuresANotificationNeverSentToldAreToldByTheNext(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let subs = try (0..<5).map { try grouped("db\($0)", at: 0, interval: .seconds(60), presenters: ["chat"]) }
        let ids = subs.map(\.alert.id)
        let group = subs[0].groups[0].id
        _ = try await store.submit(subs)
        _ = try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10)
        #expect(try await deliverNotifications(store, at: 30).map(\.firing.count) == [5])
        // The first wave closes; its change waits for a receiver that is down.
        for id in ids.prefix(2) { _ = try await store.decide(id, AlertDecision(outcome: .resolved, actor: "t", at: at(40))) }
        #expect(try await store.flushDueGroups(now: at(90), inhibitRules: [], limit: 10).map(\.reason) == [.changed])
        // The second wave: the next change supersedes the first, unsent.
        _ = try await store.decide(ids[2], AlertDecision(outcome: .resolved, actor: "t", at: at(100)))
        #expect(try await store.flushDueGroups(now: at(150), inhibitRules: [], limit: 10).map(\.reason) == [.changed])
        #expect(try await store.group(id: group)?.members.count == 5)
        let claimed = try await store.claimDueDeliveries(now: at(150), capacity: [.presenter("chat"): 10], orphanLimit: 0)
        let current = try #require(claimed.first { $0.supersededBy == nil }?.group?.notification)
        #expect(current.sequence == 3)
        #expect(Set(current.closed.map(\.id)) == Set(ids.prefix(3)))
        #expect(Set(current.firing.map(\.id)) == Set(ids.suffix(2)))
        try await store.settle(claimed.map {
            DeliverySettlement(deliveryID: $0.delivery.id, result: $0.supersededBy == nil ? .delivered : .dead(error: "superseded"), at: at(151))
        })
        // Delivered: the three closed have been told, and leave the group.
        #expect(try await store.group(id: group)?.members.map(\.id) == Array(ids.suffix(2)))
        _ = try await store.decide(ids[3], AlertDecision(outcome: .resolved, actor: "t", at: at(160)))
        #expect(try await store.flushDueGroups(now: at(211), inhibitRules: [], limit: 10).map(\.reason) == [.changed])
        let next = try await deliverNotifications(store, at: 211)
        #expect(next.map { $0.closed.map(\.id) } == [[ids[3]]])
    }

    @Test(arguments: StoreBackend.allCases) func aGroupWhoseMembersAllCloseDuringItsWaitSaysNothing(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let s = try grouped("db0", at: 0)
        _ = try await store.submit([s])
        _ = try await store.decide(s.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(5)))
        #expect(try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10) == [])
        // Kept one more interval for a flap (below), then ended, having said nothing.
        #expect(try await store.nextGroupDueTime() == at(330))
        #expect(try await store.flushDueGroups(now: at(330), inhibitRules: [], limit: 10) == [])
        #expect(try await store.groups() == [])
    }

    /// An alert that fires for less than `group_wait` at a time, again and
    /// again: each flap was a group of its own that its alert closed within
    /// the wait, and none was ever told. The group stays while alerts come
    /// and go between its looks, and the first look that finds one firing
    /// tells it, as Alertmanager's group does; once a look finds nothing
    /// came since the one before, it ends.
    @Test(arguments: StoreBackend.allCases) func anAlertFlappingFasterThanTheWaitIsToldWhenALookFindsItFiring(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        func flap(_ n: Int, from start: TimeInterval, to end: TimeInterval?) async throws -> AlertID {
            let s = try grouped("db\(n)", at: start, interval: .seconds(60), presenters: ["chat"])
            _ = try await store.submit([s])
            if let end { _ = try await store.decide(s.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(end))) }
            return s.alert.id
        }
        _ = try await flap(0, from: 0, to: 10)
        #expect(try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10) == [])
        _ = try await flap(1, from: 40, to: 50)
        let firing = try await flap(2, from: 85, to: nil)
        let told = try await store.flushDueGroups(now: at(90), inhibitRules: [], limit: 10)
        #expect(told.map(\.reason) == [.first])
        #expect(try await claimNotifications(store, at: 90).map { $0.firing.map(\.id) } == [[firing]])

        // Nothing between two looks of a group that told nobody: it ends.
        let quiet = try grouped("db9", rack: "8", at: 0, interval: .seconds(60), presenters: ["chat"])
        _ = try await store.submit([quiet])
        _ = try await store.decide(quiet.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(10)))
        _ = try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10)
        #expect(try await store.group(id: quiet.groups[0].id) != nil)
        _ = try await store.flushDueGroups(now: at(90), inhibitRules: [], limit: 10)
        #expect(try await store.group(id: quiet.groups[0].id) == nil)
    }

    @Test(arguments: StoreBackend.allCases) func silencedMembersAreNotListedAndTheNotificationIsNotHeld(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let quiet = try grouped("db0", at: 0, presenters: ["chat"])
        let loud = try grouped("db1", at: 1, presenters: ["chat"])
        _ = try await store.submit([quiet, loud])
        _ = try await store.saveSilence(try silence("instance=\"db0\"", from: at(0)), replacing: nil, now: at(0))
        #expect(try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10).first?.listed == 1)
        // The notification's alert is the group's oldest firing member, which
        // no silence matches; and a group notification is never held anyway.
        let claimed = try await store.claimDueDeliveries(now: at(30), capacity: [.presenter("chat"): 10], orphanLimit: 0)
        #expect(claimed.count == 1)
        #expect(claimed.first?.group?.notification.firing.map(\.id) == [loud.alert.id])
    }

    /// Once every open member was held by a silence or an inhibition, the
    /// group's presenters were sent an empty "changed", and when the hold
    /// ended the same members were announced as new.
    @Test(arguments: StoreBackend.allCases) func membersAllHeldAreNoNewsAndNeitherIsTheirReturn(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let subs = try (0..<2).map { try grouped("db\($0)", at: Double($0), interval: .seconds(60), repeatInterval: .seconds(600), presenters: ["chat"]) }
        _ = try await store.submit(subs)
        #expect(try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10).map(\.reason) == [.first])
        _ = try await store.saveSilence(try silence("alertname=\"DiskFull\"", from: at(40), for: 900), replacing: nil, now: at(40))
        // Due for a reminder with every member silenced: nothing is sent,
        // and the next look is an interval on (it was at once: ten flushes
        // a second, a write each, for as long as the silence lasted).
        #expect(try await store.flushDueGroups(now: at(630), inhibitRules: [], limit: 10) == [])
        #expect(try await store.nextGroupDueTime() == at(690))
        // The silence over, the members that were told are still the ones told:
        // the reminder that is due, never a "changed" that calls them new.
        let reminder = try await store.flushDueGroups(now: at(945), inhibitRules: [], limit: 10)
        #expect(reminder.map(\.reason) == [.reminder], "\(reminder)")
        #expect(reminder.first?.listed == 2)
        // A member that closes while the rest are held is still said.
        _ = try await store.saveSilence(try silence("instance=\"db1\"", from: at(1_010), for: 900), replacing: nil, now: at(1_010))
        _ = try await store.decide(subs[0].alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(1_020)))
        let changed = try await store.flushDueGroups(now: at(1_100), inhibitRules: [], limit: 10)
        #expect(changed.map(\.reason) == [.changed], "\(changed)")
        // Nothing the presenter was told of fires: told as resolved.
        let told = try await claimNotifications(store, at: 1_100)
        #expect(told.map(\.nothingFires) == [true])
        #expect(told.map(\.title) == ["[RESOLVED] alertname=DiskFull rack=7"])
        #expect(told.first?.closed.map(\.id) == [subs[0].alert.id])
        // The held member firing again is a change, told as firing.
        let back = try await store.flushDueGroups(now: at(1_920), inhibitRules: [], limit: 10)
        #expect(back.map(\.reason) == [.changed], "\(back)")
        let firing = try await claimNotifications(store, at: 1_920)
        #expect(firing.map(\.title) == ["[FIRING:1] alertname=DiskFull rack=7"])
        #expect(firing.first?.firing.map(\.id) == [subs[1].alert.id])
    }

    @Test(arguments: StoreBackend.allCases) func whatAPresenterAnsweredIsTheGroupsThreadForLaterNotifications(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let s = try grouped("db0", at: 0, interval: .seconds(60), repeatInterval: .seconds(60), presenters: ["chat"])
        _ = try await store.submit([s])
        _ = try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10)
        let first = try await store.claimDueDeliveries(now: at(30), capacity: [.presenter("chat"): 10], orphanLimit: 0)
        let id = try #require(first.first?.delivery.id)
        try await store.settle([DeliverySettlement(deliveryID: id, result: .delivered, at: at(31), thread: "1700000000.000100")])
        #expect(try await store.group(id: s.groups[0].id)?.told.first?.thread == "1700000000.000100")
        _ = try await store.flushDueGroups(now: at(90), inhibitRules: [], limit: 10)
        let reminder = try await store.claimDueDeliveries(now: at(90), capacity: [.presenter("chat"): 10], orphanLimit: 0)
        #expect(reminder.first?.group?.notification.reason == .reminder)
        #expect(reminder.first?.group?.thread == "1700000000.000100")
        // A retried delivery sends what was stored, whatever happened since.
        try await store.settle([DeliverySettlement(deliveryID: try #require(reminder.first?.delivery.id),
                                                   result: .retry(at: at(95), error: "503"), at: at(91))])
        _ = try await store.decide(s.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: at(92)))
        let retried = try await store.claimDueDeliveries(now: at(95), capacity: [.presenter("chat"): 10], orphanLimit: 0)
        #expect(retried.first?.group == reminder.first?.group)
        #expect(retried.first?.group?.notification.firing.first?.state == .open)
    }

    /// A group notification's snapshot lives apart from its delivery's row,
    /// which every claim and outcome updates: in the row, each of those
    /// rewrote it whole (a group of 5,000 long alerts, 41 MB a time). A
    /// store from before is moved over by its migration, and pruning takes
    /// the snapshot with its delivery.
    @Test func aSnapshotIsKeptApartFromItsDeliveryRow() async throws {
        let path = dir.path + "/apart.db"
        do {
            let store = try SQLiteAlertStore(path: path)
            _ = try await store.submit(try (0..<3).map { try grouped("db\($0)", at: Double($0), presenters: ["chat"]) })
            #expect(try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10).count == 1)
            store.close()
        }
        let conn = try SQLiteConnection(path: path)
        func count(_ sql: String) throws -> Int64 { try conn.withLock { c throws(SQLiteError) in try c.scalar(sql) ?? -1 } }
        #expect(try count("SELECT COUNT(*) FROM group_snapshots") == 1)
        #expect(try count("SELECT COUNT(*) FROM deliveries WHERE group_snapshot IS NOT NULL") == 0)
        // As migration 17 left it: the snapshot in the row.
        try conn.withLock { c throws(SQLiteError) in
            try c.execute("""
                UPDATE deliveries SET group_snapshot = (SELECT snapshot FROM group_snapshots WHERE delivery_id = deliveries.id);
                DROP TABLE group_snapshots; PRAGMA user_version = 17;
                """)
        }
        let store = try SQLiteAlertStore(path: path)
        let claimed = try await store.claimDueDeliveries(now: at(30), capacity: [.presenter("chat"): 5], orphanLimit: 0)
        #expect(claimed.first?.group?.notification.firing.count == 3)
        #expect(try count("SELECT COUNT(*) FROM deliveries WHERE group_snapshot IS NOT NULL") == 0)
        #expect(try count("SELECT COUNT(*) FROM group_snapshots") == 1)
    }

    /// SQLite keeps the snapshot a flush made for the claim that follows
    /// (``GroupSnapshotCache``): that claim does not read the row back, and
    /// gets what the row holds. A retry reads the row.
    @Test func aClaimRightAfterItsFlushTakesTheSnapshotTheRowHolds() async throws {
        let path = dir.path + "/kept.db"
        let store = try SQLiteAlertStore(path: path)
        _ = try await store.submit(try (0..<3).map { try grouped("db\($0)", at: Double($0), presenters: ["chat"]) })
        #expect(try await store.flushDueGroups(now: at(30), inhibitRules: [], limit: 10).count == 1)
        let conn = try SQLiteConnection(path: path)
        let texts = try conn.withLock { c throws(SQLiteError) in
            try c.statement("SELECT snapshot FROM group_snapshots").query { $0.text(0) }
        }
        let text = try #require(texts.first)
        let stored = try #require(GroupSnapshot.decode(text))
        // A claim that read the row now would find nothing whole.
        try conn.withLock { c throws(SQLiteError) in try c.execute("UPDATE group_snapshots SET snapshot = '{'") }
        let claimed = try await store.claimDueDeliveries(now: at(30), capacity: [.presenter("chat"): 5], orphanLimit: 0)
        #expect(claimed.map(\.group) == [stored])
        let delivery = try #require(claimed.first?.delivery)
        try await store.settle([DeliverySettlement(deliveryID: delivery.id, result: .retry(at: at(31), error: "refused"), at: at(30))])
        let retried = try await store.claimDueDeliveries(now: at(31), capacity: [.presenter("chat"): 5], orphanLimit: 0)
        #expect(retried.map(\.delivery.id) == [delivery.id])
        #expect(retried.first?.group == nil)
    }
}

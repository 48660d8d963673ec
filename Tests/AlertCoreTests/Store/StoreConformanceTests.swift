import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdHTTPServer
@testable import AlertdStore
@testable import AlertdSQLiteStore
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

/// The store's contract, run unchanged against every backend: a backend
/// that drifts from the others fails here. Add a backend to `StoreBackend`
/// and it is held to all of it.
@Suite struct StoreConformanceTests {
    let dir = TemporaryDirectory()

    func alert(confirm: Bool = true, cancel: Bool = true, expires: AlertDuration? = nil, dedup: String? = nil) throws -> Alert {
        var b = AlertSpec.Builder().title("Deploy?")
        if confirm { b = b.confirm("Deploy", handler: "https://ci.example/deploy") }
        if cancel { b = b.cancel("Abort", handler: "https://ci.example/abort") }
        if let expires { b = b.expires(after: expires) }
        if let dedup { b = b.dedupKey(dedup) }
        return Alert(spec: try b.build().get())
    }

    func spec(_ title: String = "Disk full", dedup: String? = nil, labels: [String: String] = [:]) throws -> AlertSpec {
        var b = AlertSpec.Builder().title(title).labels(labels)
        if let dedup { b = b.dedupKey(dedup) }
        return try b.build().get()
    }

    @Test(arguments: StoreBackend.allCases) func theFirstDecisionWinsAndQueuesItsHandlerInTheSameTransaction(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let a = try alert()
        _ = try await store.submit([AlertSubmission(alert: a, presenters: [])])
        let first = try await store.decide(a.id, AlertDecision(outcome: .confirmed, actor: "uid:1000", comment: "go"))
        guard case .decided(let decided, let handler) = first else { Issue.record("not decided: \(first)"); return }
        #expect(decided.state == .confirmed)
        #expect(decided.decision?.actor == "uid:1000")
        #expect(decided.decision?.comment == "go")
        #expect(handler == .handler(a.id, .confirm))
        let second = try await store.decide(a.id, AlertDecision(outcome: .cancelled, actor: "uid:0"))
        guard case .alreadyDecided(let current) = second else { Issue.record("second decision won: \(second)"); return }
        #expect(current.state == .confirmed)
        #expect(current.decision?.actor == "uid:1000")
        let record = try #require(try await store.record(id: a.id))
        #expect(record.deliveries.map(\.presenter) == ["handler:confirm"])
        let events = try await store.events(after: 0, limit: 10).map(\.kind)
        #expect(events == [.alertCreated, .alertConfirmed])
        #expect(try await store.decide(AlertID.generate(), AlertDecision(outcome: .confirmed, actor: "x")) == .notFound)
    }

    @Test(arguments: StoreBackend.allCases) func aHundredRacingDecisionsMakeOneDecisionAndOneHandlerCall(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let a = try alert()
        _ = try await store.submit([AlertSubmission(alert: a, presenters: [])])
        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<100 {
                group.addTask {
                    let outcome: AlertState = i.isMultiple(of: 2) ? .confirmed : .cancelled
                    if case .decided = try await store.decide(a.id, AlertDecision(outcome: outcome, actor: "racer\(i)")) { return true }
                    return false
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
        #expect(try #require(try await store.record(id: a.id)).deliveries.count == 1)
    }

    @Test(arguments: StoreBackend.allCases) func expiryClosesTheAlertAndCallsCancelOnce(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let a = try alert(expires: .seconds(60))
        _ = try await store.submit([AlertSubmission(alert: a, presenters: [])])
        #expect(try await store.runMaintenance(now: Date()).expired.isEmpty)
        let due = try #require(try await store.nextMaintenanceTime())
        #expect(abs(due.timeIntervalSince(a.createdAt) - 60) < 0.01)
        let later = a.createdAt.addingTimeInterval(61)
        #expect(try await store.runMaintenance(now: later).expired == [a.id])
        #expect(try await store.runMaintenance(now: later).expired.isEmpty)
        let record = try #require(try await store.record(id: a.id))
        #expect(record.alert.state == .expired)
        #expect(record.alert.decision?.actor == "alertd")
        #expect(record.deliveries.map(\.presenter) == ["handler:cancel"])
        #expect(try await store.nextMaintenanceTime() == nil)
    }

    @Test(arguments: StoreBackend.allCases) func aDecisionAfterTheExpiryLosesToTheClock(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let a = try alert(expires: .seconds(60))
        _ = try await store.submit([AlertSubmission(alert: a, presenters: [])])
        // The dispatcher has not expired it yet, but its time is up.
        let late = try await store.decide(a.id, AlertDecision(outcome: .confirmed, actor: "uid:1000", at: a.createdAt.addingTimeInterval(61)))
        guard case .alreadyDecided(let current) = late else { Issue.record("a late decision won: \(late)"); return }
        #expect(current.state == .expired)
        #expect(try #require(try await store.record(id: a.id)).deliveries.map(\.presenter) == ["handler:cancel"])
    }

    @Test(arguments: StoreBackend.allCases) func escalationFiresOnceAndNotAfterADecision(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let open = try alert(confirm: false, cancel: false)
        let decided = try alert(confirm: false, cancel: false)
        let esc = Escalation(after: .seconds(900), presenters: ["pager"])
        _ = try await store.submit([
            AlertSubmission(alert: open, presenters: ["log"], escalation: esc),
            AlertSubmission(alert: decided, presenters: ["log"], escalation: esc),
        ])
        _ = try await store.decide(decided.id, AlertDecision(outcome: .resolved, actor: "uid:0"))
        let later = open.createdAt.addingTimeInterval(901)
        #expect(try await store.runMaintenance(now: later).escalated == [open.id])
        #expect(try await store.runMaintenance(now: later.addingTimeInterval(900)).escalated.isEmpty)
        #expect(try #require(try await store.record(id: open.id)).deliveries.map(\.presenter) == ["log", "pager"])
        #expect(try #require(try await store.record(id: decided.id)).deliveries.map(\.presenter) == ["log"])
    }

    /// Escalations still to come follow the routes as reloaded, on every
    /// backend: one a route no longer has is held, never due, and fires as it
    /// would have once a later reload gives it back; a changed one fires when
    /// and where the route now says, and one fired already stays fired.
    @Test(arguments: StoreBackend.allCases) func escalationsStillToComeFollowTheRoutesAsReloaded(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let start = Date()
        let pager = Escalation(after: .seconds(900), presenters: ["pager"])
        // More than a page of them, so that the pages are seen to follow one another.
        let dropped = try (0...StoreRules.escalationPage).map { i in Alert(spec: try spec("drop \(i)"), at: start) }
        let moved = Alert(spec: try spec("move"), at: start)
        let kept = Alert(spec: try spec("keep"), at: start)
        let fired = Alert(spec: try spec("fired"), at: start)
        _ = try await store.submit(dropped.map { AlertSubmission(alert: $0, presenters: ["log"], escalation: pager) } + [
            AlertSubmission(alert: moved, presenters: ["log"], escalation: pager),
            AlertSubmission(alert: kept, presenters: ["log"], escalation: pager),
            AlertSubmission(alert: fired, presenters: ["log"], escalation: Escalation(after: .seconds(10), presenters: ["pager"])),
        ])
        #expect(try await store.runMaintenance(now: start.addingTimeInterval(11)).escalated == [fired.id])

        let oncall = Escalation(after: .seconds(60), presenters: ["oncall"], followUps: ["oncall"])
        let plan: @Sendable (Alert) -> Escalation? = { alert in
            switch alert.spec.title {
            case "move": oncall
            case "keep": pager
            case "fired": Escalation(after: .seconds(30), presenters: ["other"])
            default: nil
            }
        }
        #expect(try await store.followEscalations(plan) == dropped.count + 1)
        // Followed again, nothing is left to change.
        #expect(try await store.followEscalations(plan) == 0)

        #expect(try await store.runMaintenance(now: start.addingTimeInterval(61)).escalated == [moved.id])
        #expect(try await store.runMaintenance(now: start.addingTimeInterval(901)).escalated == [kept.id])
        #expect(try await store.runMaintenance(now: start.addingTimeInterval(2000)).escalated.isEmpty)
        #expect(try await store.nextMaintenanceTime() == nil)
        #expect(try #require(try await store.record(id: moved.id)).deliveries.map(\.presenter) == ["log", "oncall"])
        #expect(try #require(try await store.record(id: kept.id)).deliveries.map(\.presenter) == ["log", "pager"])
        #expect(try #require(try await store.record(id: fired.id)).deliveries.map(\.presenter) == ["log", "pager"])
        #expect(try #require(try await store.record(id: dropped[0].id)).deliveries.map(\.presenter) == ["log"])

        // Given back by a later reload, a held escalation fires as it would
        // have, here at once, being overdue; the rest stay held.
        let back: @Sendable (Alert) -> Escalation? = { $0.spec.title == "drop 0" ? pager : nil }
        #expect(try await store.followEscalations(back) == 1)
        #expect(try await store.nextMaintenanceTime().map(StoreCoding.millis) == StoreCoding.millis(dropped[0].createdAt) + 900_000)
        #expect(try await store.runMaintenance(now: start.addingTimeInterval(2001)).escalated == [dropped[0].id])
        #expect(try #require(try await store.record(id: dropped[0].id)).deliveries.map(\.presenter) == ["log", "pager"])
    }

    /// Maintenance that comes late (after a restart) acts as the clock had:
    /// an escalation due before the alert's expiry fires, then the alert
    /// expires as of its expiry; one due after it never fires.
    @Test(arguments: StoreBackend.allCases) func lateMaintenanceEscalatesWhatWasDueBeforeTheExpiry(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let early = try alert(confirm: false, cancel: false, expires: .seconds(7))
        let late = try alert(confirm: false, cancel: false, expires: .seconds(7))
        _ = try await store.submit([
            AlertSubmission(alert: early, presenters: ["log"], escalation: Escalation(after: .seconds(5), presenters: ["pager"])),
            AlertSubmission(alert: late, presenters: ["log"], escalation: Escalation(after: .seconds(8), presenters: ["pager"])),
        ])
        let report = try await store.runMaintenance(now: early.createdAt.addingTimeInterval(10))
        #expect(report.escalated == [early.id])
        #expect(Set(report.expired) == [early.id, late.id])
        let record = try #require(try await store.record(id: early.id))
        #expect(record.deliveries.map(\.presenter) == ["log", "pager"])
        #expect(record.alert.state == .expired)
        #expect(record.alert.decision.map { abs($0.at.timeIntervalSince(early.createdAt.addingTimeInterval(7))) < 0.01 } == true)
        #expect(try #require(try await store.record(id: late.id)).deliveries.map(\.presenter) == ["log"])
    }

    @Test(arguments: StoreBackend.allCases) func resolvingByDedupKeyFreesTheKey(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let a = try alert(confirm: false, cancel: false, dedup: "disk:db1")
        _ = try await store.submit([AlertSubmission(alert: a, presenters: [])])
        #expect(try await store.openAlert(dedupKey: "disk:db1") == a.id)
        _ = try await store.decide(a.id, AlertDecision(outcome: .resolved, actor: "uid:0"))
        #expect(try await store.openAlert(dedupKey: "disk:db1") == nil)
        let b = try alert(confirm: false, cancel: false, dedup: "disk:db1")
        #expect(try await store.submit([AlertSubmission(alert: b, presenters: [])]).first?.deduplicated == false)
    }

    /// Resolving by key, many at once (Alertmanager's senders): an outcome
    /// per key in order, nil for a key nothing open holds, the same rules as
    /// one decision (the clock wins past the expiry, a cancel handler is queued).
    @Test(arguments: StoreBackend.allCases) func decidingManyByDedupKeyDecidesEachOpenOneInOrder(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let plain = try alert(confirm: false, cancel: false, dedup: "fp:1")
        let handled = try alert(confirm: false, cancel: true, dedup: "fp:2")
        let lapsed = try alert(confirm: false, cancel: false, expires: .seconds(5), dedup: "fp:3")
        let closed = try alert(confirm: false, cancel: false, dedup: "fp:4")
        _ = try await store.submit([plain, handled, lapsed, closed].map { AlertSubmission(alert: $0, presenters: []) })
        _ = try await store.decide(closed.id, AlertDecision(outcome: .resolved, actor: "uid:0"))
        let decision = AlertDecision(outcome: .cancelled, actor: "alertmanager-api", at: lapsed.createdAt.addingTimeInterval(10))
        let outcomes = try await store.decideOpen(dedupKeys: ["fp:2", "fp:0", "fp:1", "fp:3", "fp:4"], decision)
        try #require(outcomes.count == 5)
        guard case .decided(let first, let handler)? = outcomes[0], case .decided(let third, nil)? = outcomes[2] else {
            Issue.record("outcomes: \(outcomes)")
            return
        }
        #expect(first.id == handled.id && first.state == .cancelled && handler != nil)
        #expect(third.id == plain.id && third.decision?.actor == "alertmanager-api")
        #expect(outcomes[1] == nil)
        #expect(outcomes[4] == nil)
        guard case .alreadyDecided(let expired)? = outcomes[3] else {
            Issue.record("the lapsed alert: \(String(describing: outcomes[3]))")
            return
        }
        #expect(expired.id == lapsed.id && expired.state == .expired)
        for key in ["fp:1", "fp:2", "fp:3", "fp:4"] { #expect(try await store.openAlert(dedupKey: key) == nil) }
        #expect(try await store.record(id: handled.id)?.deliveries.count == 1)
    }

    @Test(arguments: StoreBackend.allCases) func submittedAlertReadsBackWithItsDeliveries(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let alert = Alert(spec: try spec())
        let results = try await store.submit([AlertSubmission(alert: alert, presenters: ["terminal", "log"])])
        #expect(results == [SubmissionResult(id: alert.id, state: .open, deduplicated: false)])
        let record = try #require(try await store.record(id: alert.id))
        #expect(record.alert.spec == alert.spec)
        #expect(record.alert.state == .open)
        #expect(record.deliveries.map(\.presenter) == ["terminal", "log"])
        #expect(record.deliveries.allSatisfy { $0.state == .pending && $0.attempts == 0 })
    }

    @Test(arguments: StoreBackend.allCases) func openDedupKeyFoldsIntoTheExistingAlertEvenInOneBatch(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let first = Alert(spec: try spec(dedup: "k1"))
        let second = Alert(spec: try spec(dedup: "k1"))
        let results = try await store.submit([
            AlertSubmission(alert: first, presenters: ["log"]),
            AlertSubmission(alert: second, presenters: ["log"]),
        ])
        #expect(results[0].deduplicated == false)
        #expect(results[1] == SubmissionResult(id: first.id, state: .open, deduplicated: true))
        #expect(try await store.record(id: second.id) == nil)
        #expect(try await store.counts().pending == 1)
    }

    @Test(arguments: StoreBackend.allCases) func claimSettleAndRetryCycle(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let alert = Alert(spec: try spec())
        _ = try await store.submit([AlertSubmission(alert: alert, presenters: ["hook"])])
        let now = Date()
        let claimed = try await store.claimDueDeliveries(now: now, capacity: [.presenter("hook"): 4], orphanLimit: 0)
        #expect(claimed.count == 1)
        #expect(claimed[0].delivery.attempts == 1)
        #expect(claimed[0].alert.spec == alert.spec)
        // Claimed work is not handed out twice.
        #expect(try await store.claimDueDeliveries(now: now, capacity: [.presenter("hook"): 4], orphanLimit: 0).isEmpty)

        let later = now.addingTimeInterval(60)
        try await store.settle([DeliverySettlement(deliveryID: claimed[0].delivery.id, result: .retry(at: later, error: "HTTP 500"))])
        let pending = try #require(try await store.record(id: alert.id)).deliveries[0]
        #expect(pending.state == .pending)
        #expect(pending.lastError == "HTTP 500")
        #expect(try await store.claimDueDeliveries(now: now, capacity: [.presenter("hook"): 4], orphanLimit: 0).isEmpty)
        let due = try #require(try await store.nextDueTime())
        #expect(abs(due.timeIntervalSince(later)) < 0.01)

        let again = try await store.claimDueDeliveries(now: later, capacity: [.presenter("hook"): 4], orphanLimit: 0)
        #expect(again.first?.delivery.attempts == 2)
        try await store.settle([DeliverySettlement(deliveryID: again[0].delivery.id, result: .delivered)])
        let done = try #require(try await store.record(id: alert.id)).deliveries[0]
        #expect(done.state == .delivered)
        #expect(done.lastError == nil)
        #expect(done.deliveredAt != nil)
    }

    /// An outcome of no attempt (a call held untried, a delivery ended
    /// unsent) takes back the attempt its claim counted, retried or dead.
    @Test(arguments: StoreBackend.allCases) func anOutcomeNotSentTakesBackItsClaimsAttempt(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let alert = Alert(spec: try spec())
        _ = try await store.submit([AlertSubmission(alert: alert, presenters: ["hook"])])
        let now = Date()
        let claimed = try await store.claimDueDeliveries(now: now, capacity: [.presenter("hook"): 4], orphanLimit: 0)
        #expect(claimed.first?.delivery.attempts == 1)
        var held = DeliverySettlement(deliveryID: claimed[0].delivery.id, result: .retry(at: now, error: "held"))
        held.sent = false
        try await store.settle([held])
        #expect(try #require(try await store.record(id: alert.id)).deliveries[0].attempts == 0)
        let again = try await store.claimDueDeliveries(now: now, capacity: [.presenter("hook"): 4], orphanLimit: 0)
        #expect(again.first?.delivery.attempts == 1)
        var ended = DeliverySettlement(deliveryID: again[0].delivery.id, result: .dead(error: "ended unsent"))
        ended.sent = false
        try await store.settle([ended])
        let dead = try #require(try await store.record(id: alert.id)).deliveries[0]
        #expect(dead.state == .dead && dead.attempts == 0)
    }

    @Test(arguments: StoreBackend.allCases) func handedOffDeliveriesAreClaimedOnceEitherWay(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let (a, b) = (Alert(spec: try spec("a")), Alert(spec: try spec("b")))
        let submissions = [AlertSubmission(alert: a, presenters: ["hook", "log"]), AlertSubmission(alert: b, presenters: ["hook"])]
        _ = try await store.submit(submissions)
        let accepted = submissions.flatMap(\.deliveries)
        #expect(accepted.map(\.id) == [.routed(a.id, 0), .routed(a.id, 1), .routed(b.id, 0)])
        let now = Date()
        // Not due yet: nothing is claimed.
        #expect(try await store.claimAccepted(accepted, now: a.createdAt.addingTimeInterval(-60)).isEmpty)
        // The poll got one first: the hand-off claims the others and skips it.
        let polled = try await store.claimDueDeliveries(now: now, capacity: [.presenter("log"): 1], orphanLimit: 0)
        #expect(polled.map(\.delivery.id) == [.routed(a.id, 1)])
        let claimed = try await store.claimAccepted(accepted, now: now)
        #expect(claimed.map(\.id) == [.routed(a.id, 0), .routed(b.id, 0)])
        #expect(claimed.allSatisfy { $0.state == .inFlight && $0.attempts == 1 })
        #expect(claimed.map(\.kind) == [.presenter("hook"), .presenter("hook")])
        // Claimed work is handed out once, by either path.
        #expect(try await store.claimAccepted(accepted, now: now).isEmpty)
        #expect(try await store.claimDueDeliveries(now: now, capacity: [.presenter("hook"): 4, .presenter("log"): 4], orphanLimit: 0).isEmpty)
        let record = try #require(try await store.record(id: a.id))
        #expect(record.deliveries.map(\.state) == [.inFlight, .inFlight])
        #expect(record.deliveries.map(\.attempts) == [1, 1])
        // What the claim gave is what the store holds (times to the
        // millisecond; the row keeps when it fell due, a claim says none).
        let held = try #require(record.deliveries.first)
        let given = try #require(claimed.first)
        #expect([held.id.rawValue, held.alertID.rawValue, held.presenter, held.lastError, held.silencedBy?.rawValue, held.followUpOf?.rawValue]
                == [given.id.rawValue, given.alertID.rawValue, given.presenter, given.lastError, given.silencedBy?.rawValue, given.followUpOf?.rawValue])
        #expect((held.kind, held.state, held.attempts, held.takesFollowUp) == (given.kind, given.state, given.attempts, given.takesFollowUp))
        #expect(abs(held.createdAt.timeIntervalSince(given.createdAt)) < 0.001)
    }

    @Test(arguments: StoreBackend.allCases) func deliveriesOfTheKindsAskedForAreStoredClaimedWhileNoSilenceIsInForce(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let hook = DeliveryKind.presenter("hook")
        let (a, b) = (Alert(spec: try spec("a")), Alert(spec: try spec("b")))
        let (d, again) = (Alert(spec: try spec("d", dedup: "k")), Alert(spec: try spec("d", dedup: "k")))
        let stored = try await store.submit([AlertSubmission(alert: a, presenters: ["hook", "log"]), AlertSubmission(alert: b, presenters: ["hook"]),
                                             AlertSubmission(alert: d, presenters: ["hook"]), AlertSubmission(alert: again, presenters: ["hook"])],
                                            claiming: [hook])
        #expect(stored.results.map(\.id) == [a.id, b.id, d.id, d.id])
        // What it stored, for the hand-off: none for the alert folded into an open one.
        #expect(stored.deliveries.map(\.id) == [.routed(a.id, 0), .routed(a.id, 1), .routed(b.id, 0), .routed(d.id, 0)])
        #expect(stored.deliveries.map(\.kind) == [hook, .presenter("log"), hook, hook])
        guard let epoch = stored.claimEpoch else {
            // A backend may not claim at intake: then every delivery is pending.
            #expect(try #require(try await store.record(id: a.id)).deliveries.map(\.state) == [.pending, .pending])
            return
        }
        #expect(epoch == store.silenceEpoch)
        // As the hand-off says: hook's in flight with its attempt counted, log's pending.
        let handOffs = Array(stored.deliveries.prefix(2))
        #expect(stored.deliveries.map(\.claimEpoch) == [epoch, nil, epoch, epoch])
        let held = try #require(try await store.record(id: a.id)).deliveries
        #expect(held.map(\.state) == handOffs.map(\.record.state))
        #expect(held.map(\.state) == [.inFlight, .pending])
        #expect(held.map(\.attempts) == [1, 0])
        var counts = try await store.counts()
        #expect((counts.inFlight, counts.pending) == (3, 1))
        // Claimed already: neither claim hands it out again.
        #expect(try await store.claimAccepted(handOffs, now: Date()).map(\.id) == [.routed(a.id, 1)])
        #expect(try await store.claimDueDeliveries(now: Date(), capacity: [hook: 8], orphanLimit: 0).isEmpty)
        // Its outcome is written as a claimed one's.
        try await store.settle([DeliverySettlement(handOffs[0].record, result: .delivered, at: Date())])
        #expect(try #require(try await store.record(id: a.id)).deliveries.map(\.state) == [.delivered, .inFlight])
        // Given back unstarted: pending and due, the attempt taken back, claimed once more by the poll.
        #expect(try await store.releaseClaims([.routed(b.id, 0), .routed(a.id, 0)], now: Date()) == 1)
        #expect(try #require(try await store.record(id: b.id)).deliveries.map { [$0.state.rawValue, "\($0.attempts)"] } == [["pending", "0"]])
        let polled = try await store.claimDueDeliveries(now: Date(), capacity: [hook: 8], orphanLimit: 0)
        #expect(polled.map(\.delivery.id) == [.routed(b.id, 0)])
        #expect(polled.map(\.delivery.attempts) == [1])
        counts = try await store.counts()
        #expect((counts.inFlight, counts.pending) == (3, 0))
        // A silence saved moves the epoch; while one is in force, or only
        // scheduled, nothing is stored claimed.
        let later = Date().addingTimeInterval(600)
        _ = try await store.saveSilence(Silence(matchers: [try LabelMatcher(parsing: "team=db")], startsAt: later,
                                                endsAt: later.addingTimeInterval(60), createdBy: "alice", comment: "later"),
                                        replacing: nil, now: Date())
        #expect(store.silenceEpoch != epoch)
        let c = Alert(spec: try spec("c"))
        #expect(try await store.submit([AlertSubmission(alert: c, presenters: ["hook"])], claiming: [hook]).claimEpoch == nil)
        #expect(try #require(try await store.record(id: c.id)).deliveries.map(\.state) == [.pending])
    }

    @Test(arguments: StoreBackend.allCases) func aHandOffMovedOnSinceItWasStoredIsClaimedAsItNowIs(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let a = Alert(spec: try spec("a"))
        let submission = AlertSubmission(alert: a, presenters: ["hook"], followUps: ["hook"])
        _ = try await store.submit([submission])
        // A poll claimed it and it failed: pending again, with an attempt and an error.
        let now = Date()
        let polled = try await store.claimDueDeliveries(now: now, capacity: [.presenter("hook"): 1], orphanLimit: 0)
        try await store.settle([DeliverySettlement(polled[0].delivery, result: .retry(at: now, error: "HTTP 503"), at: now)])
        // The hand-off's claim either leaves it to the poll or gives it as it now is.
        let claimed = try await store.claimAccepted(submission.deliveries, now: now.addingTimeInterval(1))
        let again = claimed.isEmpty
            ? try await store.claimDueDeliveries(now: now.addingTimeInterval(1), capacity: [.presenter("hook"): 1], orphanLimit: 0).map(\.delivery)
            : claimed
        #expect(again.map(\.attempts) == [2])
        #expect(again.map(\.lastError) == ["HTTP 503"])
        #expect(again.map(\.takesFollowUp) == [true])
    }

    @Test(arguments: StoreBackend.allCases) func anOutcomeIsRecordedAgainstTheRowNotWhatTheSettlerBelieves(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let (a, b) = (Alert(spec: try spec("a")), Alert(spec: try spec("b")))
        _ = try await store.submit([AlertSubmission(alert: a, presenters: ["hook"]), AlertSubmission(alert: b, presenters: ["log"])])
        let now = Date()
        let claimed = try await store.claimDueDeliveries(now: now, capacity: [.presenter("hook"): 1, .presenter("log"): 1], orphanLimit: 0)
        let ofA = try #require(claimed.first { $0.alert.id == a.id }?.delivery)
        let ofB = try #require(claimed.first { $0.alert.id == b.id }?.delivery)
        // A settlement for a's delivery carrying b's facts: the event names a and its presenter.
        var wrong = DeliverySettlement(ofB, result: .delivered, at: now)
        wrong.deliveryID = ofA.id
        try await store.settle([wrong])
        let events = try await store.events(after: 0, limit: 50).filter { $0.kind == .deliverySucceeded }
        #expect(events.map(\.alertID) == [a.id])
        #expect(events.map { $0.data["presenter"] } == ["hook"])
        #expect(try #require(try await store.record(id: a.id)).deliveries.map(\.state) == [.delivered])
        #expect(try #require(try await store.record(id: b.id)).deliveries.map(\.state) == [.inFlight])
    }

    @Test(arguments: StoreBackend.allCases) func outcomesAndTheNextHandOffsAreWrittenTogether(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let (a, b, c) = (Alert(spec: try spec("a")), Alert(spec: try spec("b")), Alert(spec: try spec("c")))
        let first = AlertSubmission(alert: a, presenters: ["hook"])
        let rest = [AlertSubmission(alert: b, presenters: ["hook"]), AlertSubmission(alert: c, presenters: ["hook"])]
        _ = try await store.submit([first] + rest)
        let now = Date()
        let running = try await store.claimAccepted(first.deliveries, now: now)
        #expect(running.map(\.id) == [.routed(a.id, 0)])
        // c was claimed by a poll meanwhile: the write skips it and claims b.
        let polled = try await store.claimDueDeliveries(now: now, capacity: [.presenter("hook"): 1], orphanLimit: 0)
        #expect(polled.map(\.delivery.id) == [.routed(b.id, 0)] || polled.map(\.delivery.id) == [.routed(c.id, 0)])
        let (queued, claimed) = try await store.settle([DeliverySettlement(running[0], result: .delivered, at: now)],
                                                       thenClaim: rest.flatMap(\.deliveries), now: now)
        #expect(queued == 0)
        #expect(claimed.count == 1)
        #expect(claimed.first.map { $0.state == .inFlight && $0.attempts == 1 } == true)
        #expect(Set(claimed.map(\.id) + polled.map(\.delivery.id)) == [.routed(b.id, 0), .routed(c.id, 0)])
        #expect(try #require(try await store.record(id: a.id)).deliveries.map(\.state) == [.delivered])
        // Nothing to claim: the outcome alone is written.
        let alone = try await store.settle([DeliverySettlement(deliveryID: claimed[0].id, result: .dead(error: "HTTP 404"), at: now)],
                                           thenClaim: [], now: now)
        #expect(alone.claimed.isEmpty)
        #expect(try await store.events(after: 0, limit: 50).map(\.kind).filter { $0 == .deliverySucceeded || $0 == .deliveryDead }.count == 2)
    }

    @Test(arguments: StoreBackend.allCases) func handOffsAreLeftToTheScreeningClaimWhileASilenceIsActive(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let now = Date()
        // It matches nothing here; that any silence is active is enough.
        _ = try await store.saveSilence(try silence(#"alertname="Other""#, from: now.addingTimeInterval(-1), for: 600), replacing: nil, now: now)
        // Made at the test's clock: a parallel run can stall it for a second.
        let a = Alert(spec: try spec("a", labels: ["alertname": "DiskFull"]), at: now)
        let submission = AlertSubmission(alert: a, presenters: ["hook"])
        _ = try await store.submit([submission])
        let later = now.addingTimeInterval(1)
        #expect(try await store.claimAccepted(submission.deliveries, now: later).isEmpty)
        let polled = try await store.claimDueDeliveries(now: later, capacity: [.presenter("hook"): 1], orphanLimit: 0)
        #expect(polled.map(\.delivery.id) == [.routed(a.id, 0)])
    }

    @Test(arguments: StoreBackend.allCases) func capacityBoundsClaimsPerPresenterAndOrphansAreReturned(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        for i in 0..<5 {
            _ = try await store.submit([AlertSubmission(alert: Alert(spec: try spec("a\(i)")), presenters: ["a", "gone"])])
        }
        let claimed = try await store.claimDueDeliveries(now: Date(), capacity: [.presenter("a"): 2], orphanLimit: 3)
        #expect(claimed.filter { $0.delivery.presenter == "a" }.count == 2)
        #expect(claimed.filter { $0.delivery.presenter == "gone" }.count == 3)
    }

    /// An orphan waiting for a retry, or held by a silence, is returned
    /// at once: it can never be sent, and the dispatcher sweeps for orphans
    /// only after a start or a reload, so one left until it was due stayed
    /// pending for good.
    @Test(arguments: StoreBackend.allCases) func orphansAreReturnedDueOrNotAndUnscreened(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let now = Date()
        _ = try await store.saveSilence(try silence(#"alertname="Held""#, from: now.addingTimeInterval(-1), for: 600), replacing: nil, now: now)
        let waiting = Alert(spec: try spec("w"), at: now)
        let held = Alert(spec: try spec("h", labels: ["alertname": "Held"]), at: now)
        _ = try await store.submit([AlertSubmission(alert: waiting, presenters: ["gone"]), AlertSubmission(alert: held, presenters: ["gone"])])
        // The first one fails and waits a minute for its retry.
        let first = try await store.claimDueDeliveries(now: now, capacity: [.presenter("gone"): 1], orphanLimit: 0)
        #expect(first.map(\.alert.id) == [waiting.id])
        try await store.settle([DeliverySettlement(deliveryID: first[0].delivery.id, result: .retry(at: now.addingTimeInterval(60), error: "down"))])
        // The presenter is gone: both come back now, the one a silence held too.
        let orphans = try await store.claimDueDeliveries(now: now.addingTimeInterval(0.01), capacity: [.presenter("other"): 4], orphanLimit: 8)
        #expect(Set(orphans.map(\.alert.id)) == [waiting.id, held.id])
        #expect(try await store.claimDueDeliveries(now: now.addingTimeInterval(0.02), capacity: [.presenter("other"): 4], orphanLimit: 8).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases) func replayMakesDeadDeliveriesPendingAgain(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let alert = Alert(spec: try spec())
        _ = try await store.submit([AlertSubmission(alert: alert, presenters: ["hook"])])
        let claimed = try await store.claimDueDeliveries(now: Date(), capacity: [.presenter("hook"): 1], orphanLimit: 0)
        try await store.settle([DeliverySettlement(deliveryID: claimed[0].delivery.id, result: .dead(error: "HTTP 404"))])
        #expect(try await store.counts().dead == 1)
        // The console's dead-deliveries list: alerts with one that waits for a replay.
        _ = try await store.submit([AlertSubmission(alert: Alert(spec: try spec("fine")), presenters: [])])
        #expect(try await store.alerts(matching: AlertQuery(deliveryState: .dead)).alerts.map(\.id) == [alert.id])
        #expect(try await store.replayDead(alert: alert.id, now: Date()) == 1)
        #expect(try await store.alerts(matching: AlertQuery(deliveryState: .dead)).alerts.isEmpty)
        let d = try #require(try await store.record(id: alert.id)).deliveries[0]
        #expect(d.state == .pending)
        #expect(d.attempts == 0)
    }

    @Test(arguments: StoreBackend.allCases) func listingIsNewestFirstWithCursorAndFilters(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        var ids: [AlertID] = []
        for i in 0..<7 {
            let a = Alert(spec: try spec("a\(i)", labels: ["env": i % 2 == 0 ? "prod" : "dev"]))
            ids.append(a.id)
            _ = try await store.submit([AlertSubmission(alert: a, presenters: [])])
        }
        let page1 = try await store.alerts(matching: AlertQuery(limit: 3))
        #expect(page1.alerts.map(\.id) == Array(ids.reversed().prefix(3)))
        let page2 = try await store.alerts(matching: AlertQuery(limit: 3, before: page1.nextCursor))
        #expect(page2.alerts.map(\.id) == Array(ids.reversed().dropFirst(3).prefix(3)))
        let page3 = try await store.alerts(matching: AlertQuery(limit: 3, before: page2.nextCursor))
        #expect(page3.alerts.count == 1)
        #expect(page3.nextCursor == nil)
        let prod = try await store.alerts(matching: AlertQuery(labels: [("env", "prod")], limit: 100))
        #expect(prod.alerts.count == 4)
        #expect(try await store.alerts(matching: AlertQuery(state: .confirmed)).alerts.isEmpty)
    }

    @Test(arguments: StoreBackend.allCases) func closedAlertsPastRetentionGoWithTheirDeliveriesAndCountsStayRight(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let long = Date().addingTimeInterval(-40 * 86_400)
        func alert(_ title: String, at date: Date) throws -> Alert {
            Alert(spec: try AlertSpec.Builder().title(title).build().get(), at: date)
        }
        let oldClosed = try alert("old closed", at: long)
        let oldOpen = try alert("old open", at: long)
        let oldUndelivered = try alert("old closed, delivery pending", at: long)
        let recentClosed = try alert("recent closed", at: Date())
        _ = try await store.submit([
            AlertSubmission(alert: oldClosed, presenters: []),
            AlertSubmission(alert: oldOpen, presenters: []),
            AlertSubmission(alert: oldUndelivered, presenters: ["hook"]),
            AlertSubmission(alert: recentClosed, presenters: []),
        ])
        for a in [oldClosed, oldUndelivered] {
            _ = try await store.decide(a.id, AlertDecision(outcome: .resolved, actor: "t", at: long.addingTimeInterval(60)))
        }
        _ = try await store.decide(recentClosed.id, AlertDecision(outcome: .resolved, actor: "t"))

        let cutoff = Date().addingTimeInterval(-30 * 86_400)
        #expect(try await store.prune(closedBefore: cutoff, limit: 100) == 1)
        #expect(try await store.record(id: oldClosed.id) == nil)
        #expect(try await store.record(id: oldOpen.id) != nil)  // open: never pruned
        #expect(try await store.record(id: oldUndelivered.id) != nil)  // a delivery still pending
        #expect(try await store.record(id: recentClosed.id) != nil)
        #expect(try await store.counts() == StoreCounts(openAlerts: 1, pending: 1, inFlight: 0, dead: 0, pendingByPresenter: ["hook": 1]))
        // The newest event survives pruning, so the log's position is never lost.
        let events = try await store.events(after: 0, limit: 100)
        #expect(!events.isEmpty)
        #expect(events.allSatisfy { $0.at >= cutoff || $0.sequence == events.last?.sequence })
    }

    @Test(arguments: StoreBackend.allCases) func staleClaimsNobodyHoldsAreReleasedAndHeldOnesKept(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let (held, lost) = (Alert(spec: try spec("held")), Alert(spec: try spec("lost")))
        _ = try await store.submit([AlertSubmission(alert: held, presenters: ["hook"]), AlertSubmission(alert: lost, presenters: ["hook"])])
        let claimedAt = Date()
        let claimed = try await store.claimDueDeliveries(now: claimedAt, capacity: [.presenter("hook"): 2], orphanLimit: 0)
        #expect(claimed.count == 2)
        let heldID = try #require(claimed.first { $0.alert.id == held.id }).delivery.id
        // Not yet past the lease: nothing goes.
        #expect(try await store.releaseStaleClaims(claimedBefore: claimedAt.addingTimeInterval(-1), keeping: [], now: Date()) == 0)
        let later = claimedAt.addingTimeInterval(120)
        #expect(try await store.releaseStaleClaims(claimedBefore: later.addingTimeInterval(-60), keeping: [heldID], now: later) == 1)
        #expect(try #require(try await store.record(id: held.id)).deliveries[0].state == .inFlight)
        let released = try #require(try await store.record(id: lost.id)).deliveries[0]
        #expect(released.state == .pending)
        #expect(released.attempts == 1)
        let again = try await store.claimDueDeliveries(now: later, capacity: [.presenter("hook"): 2], orphanLimit: 0)
        #expect(again.map(\.alert.id) == [lost.id])
        #expect(again.first?.delivery.attempts == 2)
    }
}

import Foundation
import Synchronization
import Testing
@testable import AlertModel
@testable import AlertdSQLite
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdHTTPServer
@testable import AlertdLogging
@testable import AlertdCommandLine
@testable import AlertdStore
@testable import AlertdSQLiteStore
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

/// A presenter that answers from a script and records what it was given.
actor ScriptedPresenter: AlertPresenter {
    nonisolated let name: String
    private var script: [PresentationOutcome]
    private(set) var calls: [(alert: AlertID, context: DeliveryContext, at: ContinuousClock.Instant)] = []
    private let delay: Duration
    /// Each call's delay in turn, then `delay`.
    private var delays: [Duration]
    private var running = 0
    private(set) var maxRunning = 0
    /// When each call's answer was given, in order.
    private(set) var answers: [(delivery: DeliveryID, at: ContinuousClock.Instant)] = []

    init(name: String, script: [PresentationOutcome] = [], delay: Duration = .zero, delays: [Duration] = []) {
        self.name = name
        self.script = script
        self.delay = delay
        self.delays = delays
    }

    func present(_ alert: Alert, delivery: DeliveryContext) async -> PresentationOutcome {
        calls.append((alert.id, delivery, .now))
        running += 1
        maxRunning = max(maxRunning, running)
        let wait = delays.isEmpty ? delay : delays.removeFirst()
        if wait > .zero { try? await Task.sleep(for: wait) }
        running -= 1
        answers.append((delivery.deliveryID, .now))
        return script.isEmpty ? .delivered : script.removeFirst()
    }

    var callCount: Int { calls.count }
}

/// A presenter that always fails, worth retrying, whose service asks for 2 s between tries.
actor LeastWaitPresenter: AlertPresenter {
    nonisolated let name: String
    nonisolated var minimumRetryDelay: Duration? { .seconds(2) }
    private(set) var calls = 0

    init(name: String) { self.name = name }

    func present(_ alert: Alert, delivery: DeliveryContext) async -> PresentationOutcome {
        calls += 1
        return .retryableFailure(reason: "HTTP 503")
    }
}

/// A presenter whose receiver is down until ``recover()``: every attempt
/// before fails (retryable), every one after is delivered. Given
/// `failing`, it is up, and the alerts `failing` picks always fail.
actor OutagePresenter: AlertPresenter {
    nonisolated let name: String
    private let failing: (@Sendable (Alert) -> Bool)?
    private var down: Bool
    private var running = 0
    /// How many ran at once when each attempt started, in order.
    private var atOnce: [Int] = []
    private(set) var deliveredCount = 0

    init(name: String, failing: (@Sendable (Alert) -> Bool)? = nil) {
        self.name = name
        self.failing = failing
        down = failing == nil
    }

    func present(_ alert: Alert, delivery: DeliveryContext) async -> PresentationOutcome {
        running += 1
        atOnce.append(running)
        defer { running -= 1 }
        try? await Task.sleep(for: .milliseconds(2))
        guard !down, failing?(alert) != true else { return .retryableFailure(reason: "HTTP 503") }
        deliveredCount += 1
        return .delivered
    }

    /// Ends the outage; returns how many attempts it saw.
    func recover() -> Int {
        down = false
        return atOnce.count
    }

    /// The most attempts that ran at once, from attempt `n` on.
    func mostAtOnceAfterTheFirst(_ n: Int) -> Int { atOnce.dropFirst(n).max() ?? 0 }
}

@Suite struct DispatcherTests {
    func fastRetry() -> RetryPolicy {
        var r = RetryPolicy()
        r.initialDelay = .milliseconds(50)
        r.factor = 2
        r.jitter = false
        return r
    }

    func submit(_ store: any AlertStore, presenters: [String], title: String = "t") async throws -> AlertID {
        let alert = Alert(spec: try AlertSpec.Builder().title(title).build().get())
        _ = try await store.submit([AlertSubmission(alert: alert, presenters: presenters)])
        return alert.id
    }

    /// A dispatcher over an in-memory store and the intake that hands it
    /// what it stores, wired as the daemon wires them.
    func handingOff(to presenter: some AlertPresenter, maxConcurrency: Int) -> (InMemoryAlertStore, Dispatcher, AlertIntake) {
        let store = InMemoryAlertStore()
        let (dispatcher, intake) = handingOff(to: presenter, maxConcurrency: maxConcurrency, over: store)
        return (store, dispatcher, intake)
    }

    /// The same over `store`; with `claimAtIntake` false the store writes
    /// nothing claimed at intake, so the dispatcher claims each hand-off.
    func handingOff(to presenter: some AlertPresenter, maxConcurrency: Int, over store: some AlertStore,
                    claimAtIntake: Bool = true) -> (Dispatcher, AlertIntake) {
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: presenter, maxConcurrency: maxConcurrency)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20))
        let route = AlertRouter(routes: [], defaultRoute: RouteDefinition(presenters: [presenter.name]))
        let intake = AlertIntake(store: store, settings: .init(router: route, limits: .default),
                                 onAccepted: { dispatcher.accept($0) },
                                 claimKinds: { claimAtIntake ? dispatcher.handOffClaimKinds() : [] })
        return (dispatcher, intake)
    }

    /// Lets `store` write outcomes again, then checks that every alert of
    /// `ids` was sent once, never more than `maxConcurrency` at a time.
    func releaseAndFinish(_ store: HeldSettleStore, _ dispatcher: Dispatcher, _ run: Task<Void, Never>, sentBy hook: ScriptedPresenter,
                          ids: [AlertID], maxConcurrency: Int) async throws {
        store.release()
        try await waitUntil { await hook.callCount == ids.count }
        try await waitUntil { let c = try await store.counts(); return c.pending == 0 && c.inFlight == 0 }
        await dispatcher.shutdownGracefully()
        await run.value
        #expect(Set(await hook.calls.map(\.alert)) == Set(ids))
        #expect(await hook.maxRunning <= maxConcurrency)
        #expect(await dispatcher.inFlightCount == 0)
    }

    /// What a dispatcher reported of its attempts.
    final class Reports: Sendable {
        private let list = Mutex<[Dispatcher.AttemptReport]>([])
        func add(_ report: Dispatcher.AttemptReport) { list.withLock { $0.append(report) } }
        var all: [Dispatcher.AttemptReport] { list.withLock { $0 } }
    }

    /// A dispatcher sending to `hook` one at a time, its reports in `reports`.
    func reporting(to reports: Reports, over store: any AlertStore, sending hook: ScriptedPresenter, retry: RetryPolicy) -> Dispatcher {
        Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 1)]), retry: retry,
                   idleTick: .milliseconds(20), onAttempt: { reports.add($0) })
    }

    func waitUntil(_ timeout: Duration = .seconds(5), _ condition: () async throws -> Bool) async throws {
        if try await !eventually(timeout, every: .milliseconds(10), condition) { Issue.record("condition not met within \(timeout)") }
    }

    /// A webhook sending to `receiver`, as the daemon makes one.
    func webhook(to receiver: WebhookReceiver) throws -> WebhookPresenter {
        try WebhookPresenter(name: "hook", configuration: .init(url: receiver.url, timeout: .seconds(30)), client: HTTPClient())
    }

    /// A request the shutdown cuts off goes back to pending at once, for
    /// another node or the next start, and the stop does not wait for the
    /// receiver.
    @Test func aRequestCutOffByShutdownIsGivenBack() async throws {
        let receiver = try WebhookReceiver(delay: .seconds(20))
        let store = HeldSettleStore(held: false)
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: try webhook(to: receiver), maxConcurrency: 4)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20))
        let id = try await submit(store, presenters: ["hook"])
        let run = Task { await dispatcher.run() }
        #expect(await receiver.wait { $0.count == 1 })
        let clock = ContinuousClock()
        let stopped = await clock.measure {
            run.cancel()
            await run.value
        }
        #expect(stopped < .seconds(2))
        let delivery = try #require(try await store.record(id: id)?.deliveries.first)
        #expect(delivery.state == .pending)
        #expect(store.released.withLock { $0 } == [delivery.id])
        #expect(store.settleCalls.load(ordering: .relaxed) == 0)
        await receiver.stop()
    }

    /// A dispatcher running with `lease` on a store that refuses outcomes,
    /// once its one alert has been delivered to a webhook.
    func deliveredWhileOutcomesFail(lease: Duration) async throws
        -> (WebhookReceiver, HeldSettleStore, Dispatcher, AlertID, Task<Void, Never>) {
        let receiver = try WebhookReceiver()
        let store = HeldSettleStore(held: false)
        store.settlesFail.withLock { $0 = true }
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: try webhook(to: receiver), maxConcurrency: 4)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20), claimLease: lease)
        let id = try await submit(store, presenters: ["hook"])
        let run = Task { await dispatcher.run() }
        #expect(await receiver.wait { $0.count == 1 })
        return (receiver, store, dispatcher, id, run)
    }

    /// An outcome the store could not write (a full disk) is kept, and its
    /// claim with it, and written once the store takes writes again: released
    /// after a lease, as before, the delivery was sent again (a full disk
    /// made 3,129 repeats of 5,000 deliveries).
    @Test func anOutcomeTheStoreCouldNotWriteIsWrittenLaterNotSentAgain() async throws {
        let (receiver, store, dispatcher, id, run) = try await deliveredWhileOutcomesFail(lease: .milliseconds(200))
        // Several leases pass while the store refuses the outcome.
        try await Task.sleep(for: .seconds(1))
        #expect(store.settleCalls.load(ordering: .relaxed) >= 2, "the write is tried again")
        #expect(try await store.record(id: id)?.deliveries.first?.state == .inFlight)
        store.settlesFail.withLock { $0 = false }
        try await waitUntil { try await store.record(id: id)?.deliveries.first?.state == .delivered }
        try await Task.sleep(for: .milliseconds(500))
        await dispatcher.shutdownGracefully()
        await run.value
        #expect(receiver.received.count == 1, "sent once")
        await receiver.stop()
    }

    /// Unwritten still when the dispatcher stops, an outcome is tried once
    /// more then, before the next start would send its delivery again.
    @Test func anUnwrittenOutcomeIsTriedOnceMoreAtTheStop() async throws {
        let (receiver, store, dispatcher, id, run) = try await deliveredWhileOutcomesFail(lease: .seconds(60))
        try await waitUntil { store.settleCalls.load(ordering: .relaxed) >= 1 }
        store.settlesFail.withLock { $0 = false }
        // No lease check comes before the stop: the stop writes it.
        await dispatcher.shutdownGracefully()
        await run.value
        #expect(try await store.record(id: id)?.deliveries.first?.state == .delivered)
        await receiver.stop()
    }

    /// One the receiver answered, its outcome not yet written when the
    /// shutdown cuts the rest off, keeps its outcome: given back too, it
    /// would be sent again by another node while the delivered write lands.
    @Test func aRequestAnsweredBeforeTheCutOffKeepsItsOutcome() async throws {
        let receiver = try WebhookReceiver()
        let store = HeldSettleStore(held: true)
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: try webhook(to: receiver), maxConcurrency: 4)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20))
        let id = try await submit(store, presenters: ["hook"])
        let run = Task { await dispatcher.run() }
        try await waitUntil { store.settleCalls.load(ordering: .relaxed) == 1 }
        run.cancel()
        await run.value
        #expect(store.released.withLock { $0 }.isEmpty)
        store.release()
        try await waitUntil { try await store.record(id: id)?.deliveries.first?.state == .delivered }
        #expect(receiver.received.count == 1)
        await receiver.stop()
    }

    @Test func retriesWithBackoffUntilDelivered() async throws {
        let store = InMemoryAlertStore()
        let hook = ScriptedPresenter(name: "hook", script: [
            .retryableFailure(reason: "HTTP 500"), .retryableFailure(reason: "HTTP 500"), .retryableFailure(reason: "HTTP 500"),
        ])
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 1)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20))
        let id = try await submit(store, presenters: ["hook"])
        let run = Task { await dispatcher.run() }
        try await waitUntil { await store.record(id: id)?.deliveries.first?.state == .delivered }
        await dispatcher.shutdownGracefully()
        await run.value

        let calls = await hook.calls
        // Required, not expected: the gaps below index the calls.
        try #require(calls.count == 4)
        #expect(calls.map(\.context.attempt) == [1, 2, 3, 4])
        // One delivery id across every retry.
        #expect(Set(calls.map(\.context.deliveryID)).count == 1)
        // Gaps follow the backoff: 50, 100, 200 ms (never shorter).
        for (i, expected) in [50, 100, 200].enumerated() {
            let gap = calls[i + 1].at - calls[i].at
            #expect(gap >= .milliseconds(expected - 5), "gap \(i) was \(gap)")
        }
        #expect(await store.record(id: id)?.deliveries.first?.attempts == 4)
    }

    /// A presenter whose service asks for a least wait (Pushover's 5 s):
    /// its failed delivery is retried no sooner, though the backoff says 50 ms.
    @Test func aPresentersLeastWaitHoldsUnderTheBackoff() async throws {
        let hook = LeastWaitPresenter(name: "hook")
        let (store, dispatcher, intake) = handingOff(to: hook, maxConcurrency: 1)
        let run = Task { await dispatcher.run() }
        let id = try await intake.submit([try AlertSpec.Builder().title("a").build().get()])[0].id
        // Its one attempt failed and was written: pending, with why.
        try await waitUntil { await store.record(id: id)?.deliveries.first.map { $0.state == .pending && $0.lastError != nil } == true }
        let next = try #require(await store.record(id: id)?.deliveries.first?.nextAttemptAt)
        #expect(next.timeIntervalSinceNow > 1.5, "retried \(next.timeIntervalSinceNow) s on, under the 2 s the presenter asks")
        await dispatcher.shutdownGracefully()
        await run.value
        #expect(await hook.calls == 1)
    }

    /// A presenter whose receiver is down for a while: past a run of
    /// failures its retries are tried one at a time, paced by the backoff,
    /// not each on its own backoff (an outage of 30 s with 10,000 alerts
    /// waiting made 64,000 attempts, each written and logged); each new
    /// alert is tried once as it comes. When one is delivered, everything
    /// waiting goes at once.
    @Test func aPresenterThatKeepsFailingIsTriedOneDeliveryAtATime() async throws {
        let hook = OutagePresenter(name: "hook")
        let (store, dispatcher, intake) = handingOff(to: hook, maxConcurrency: 8)
        let run = Task { await dispatcher.run() }
        var ids: [AlertID] = []
        for n in 0..<100 { ids.append(try await intake.submit([try AlertSpec.Builder().title("a\(n)").build().get()])[0].id) }
        // 1.5 s of outage: each delivery on its own backoff (50, 100, 200, 400, 800 ms) would be tried about 6 times.
        try await Task.sleep(for: .milliseconds(1_500))
        let duringOutage = await hook.recover()
        #expect(duringOutage < 130, "\(duringOutage) attempts while the receiver was down: 100 first ones, then retries one at a time")
        #expect(await hook.mostAtOnceAfterTheFirst(110) <= 1)
        try await waitUntil(.seconds(10)) { let c = try await store.counts(); return c.pending == 0 && c.inFlight == 0 }
        await dispatcher.shutdownGracefully()
        await run.value
        for id in ids { #expect(await store.record(id: id)?.deliveries.first?.state == .delivered) }
        #expect(await hook.deliveredCount == 100)
    }

    /// Alerts its receiver always refuses pace a presenter's retries, not
    /// its new alerts: a good one sent meanwhile goes at once (it waited
    /// out the pacing, up to 5 s as it then was, behind 50 refused ones).
    @Test func aNewAlertIsNotHeldBehindRetriesTheReceiverRefuses() async throws {
        let hook = OutagePresenter(name: "hook", failing: { $0.spec.title.hasPrefix("bad") })
        let (store, dispatcher, intake) = handingOff(to: hook, maxConcurrency: 8)
        let run = Task { await dispatcher.run() }
        for n in 0..<30 { _ = try await intake.submit([try AlertSpec.Builder().title("bad \(n)").build().get()]) }
        // Paced by now: a few waits of the backoff (50, 100, 200, 400, 800 ms).
        try await Task.sleep(for: .milliseconds(1_500))
        let sent = ContinuousClock.now
        let good = try await intake.submit([try AlertSpec.Builder().title("good").build().get()])[0].id
        try await waitUntil(.seconds(5)) { await store.record(id: good)?.deliveries.first?.state == .delivered }
        #expect(ContinuousClock.now - sent < .milliseconds(300), "\(ContinuousClock.now - sent)")
        await dispatcher.shutdownGracefully()
        await run.value
    }

    /// A delivery held while its presenter failed is not tried past
    /// `retry.max_age`: the rule its own attempt would have applied. It is
    /// dead like any other: counted so (an alert on the dead count is for
    /// exactly this), its last error kept, and no attempt counted that was
    /// not made.
    @Test func aDeliveryHeldWhileItsPresenterFailedStillEndsAtMaxAge() async throws {
        let hook = OutagePresenter(name: "hook")
        let store = InMemoryAlertStore()
        var retry = fastRetry()
        retry.maxAge = .milliseconds(400)
        let dead = Mutex(0)
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 4)]),
                                    retry: retry, idleTick: .milliseconds(20),
                                    onAttempt: { report in if case .dead = report.settlement { dead.withLock { $0 += 1 } } })
        var ids: [AlertID] = []
        for n in 0..<30 { ids.append(try await submit(store, presenters: ["hook"], title: "a\(n)")) }
        let run = Task { await dispatcher.run() }
        try await Task.sleep(for: .milliseconds(1_000))
        _ = await hook.recover()
        try await waitUntil(.seconds(10)) { let c = try await store.counts(); return c.pending == 0 && c.inFlight == 0 }
        await dispatcher.shutdownGracefully()
        await run.value
        var deliveries: [DeliveryRecord] = []
        for id in ids { deliveries.append(try #require(await store.record(id: id)?.deliveries.first)) }
        #expect(deliveries.allSatisfy { $0.state == .dead }, "\(deliveries.map(\.state))")
        let heldOut = deliveries.filter { $0.lastError?.contains("passed while its presenter failed") == true }
        #expect(!heldOut.isEmpty)
        #expect(heldOut.allSatisfy { $0.lastError?.hasPrefix("HTTP 503 (gave up: retry.max_age") == true }, "\(heldOut.map(\.lastError))")
        #expect(await hook.deliveredCount == 0)
        #expect(dead.withLock { $0 } == ids.count)
        #expect(deliveries.map(\.attempts).reduce(0, +) == (await hook.recover()), "only attempts made are counted")
    }

    /// The held-retry rule is for retries held while the presenter fails:
    /// a first attempt of a delivery older than `max_age` (made before a long
    /// stop, or held by a silence) is made, and so is a replay's (the claim
    /// counts the attempt, so "attempts > 0" had killed every one unsent).
    @Test func aFirstAttemptOrAReplayOfAnOldDeliveryIsMade() async throws {
        let hook = ScriptedPresenter(name: "hook", script: [.permanentFailure(reason: "HTTP 400")])
        let store = InMemoryAlertStore()
        var retry = fastRetry()
        retry.maxAge = .seconds(3_600)
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 1)]),
                                    retry: retry, idleTick: .milliseconds(20))
        let old = Alert(spec: try AlertSpec.Builder().title("old").build().get(), at: Date().addingTimeInterval(-7_200))
        _ = try await store.submit([AlertSubmission(alert: old, presenters: ["hook"])])
        let run = Task { await dispatcher.run() }
        try await waitUntil { await store.record(id: old.id)?.deliveries.first?.state == .dead }
        #expect(await store.record(id: old.id)?.deliveries.first?.lastError == "HTTP 400")
        #expect(try await store.replayDead(alert: old.id, now: Date()) == 1)
        try await waitUntil { await store.record(id: old.id)?.deliveries.first?.state == .delivered }
        await dispatcher.shutdownGracefully()
        await run.value
        #expect(await hook.callCount == 2)
    }

    /// An e-mail that reached some recipients (retried for the others) is
    /// no failure of the presenter: it is not paced one at a time.
    @Test func reachingSomeRecipientsDoesNotSlowThePresenter() async throws {
        let hook = ScriptedPresenter(name: "hook", script: Array(repeating: .reachedSome(reason: "452 mailbox full"), count: 40),
                                     delay: .milliseconds(5))
        let (store, dispatcher, intake) = handingOff(to: hook, maxConcurrency: 8)
        let run = Task { await dispatcher.run() }
        for n in 0..<40 { _ = try await intake.submit([try AlertSpec.Builder().title("m\(n)").build().get()]) }
        try await waitUntil(.seconds(3)) { await hook.callCount >= 40 }
        await dispatcher.shutdownGracefully()
        await run.value
        #expect(await hook.maxRunning > 1)
        _ = store
    }

    /// A service that asks to wait (a 429's Retry-After) is asked nothing
    /// more until then, by any delivery: its limit is the bot's or the
    /// webhook's, not one alert's. Then the backlog goes at once.
    @Test func aServiceThatAsksToWaitGetsNothingUntilThen() async throws {
        let hook = ScriptedPresenter(name: "hook", script: [.retryableFailure(reason: "HTTP 429", retryAfter: .milliseconds(600))])
        let (store, dispatcher, intake) = handingOff(to: hook, maxConcurrency: 4)
        let run = Task { await dispatcher.run() }
        let first = try await intake.submit([try AlertSpec.Builder().title("first").build().get()])[0].id
        try await waitUntil { await hook.callCount == 1 }
        let asked = try #require(await hook.calls.first?.at)
        var later: [AlertID] = []
        for n in 0..<3 { later.append(try await intake.submit([try AlertSpec.Builder().title("later \(n)").build().get()])[0].id) }
        try await waitUntil { let c = try await store.counts(); return c.pending == 0 && c.inFlight == 0 }
        await dispatcher.shutdownGracefully()
        await run.value
        let calls = await hook.calls
        #expect(calls.count == 5)
        #expect(Set(calls.dropFirst().map(\.alert)) == Set(later + [first]))
        for call in calls.dropFirst() { #expect(call.at - asked >= .milliseconds(590), "a call \(call.at - asked) after the 429") }
    }

    /// A delivery claimed while another attempt's 429 came in waits out
    /// the pause too: its slot was counted before the claim, and started as
    /// the claim came back, it went out 150 ms into a 5 s wait.
    @Test func aDeliveryClaimedAsA429ArrivesWaitsOutThePause() async throws {
        let store = HeldSettleStore(held: false)
        store.claimDelay.withLock { $0 = .milliseconds(300) }
        let hook = ScriptedPresenter(name: "hook", script: [.retryableFailure(reason: "HTTP 429", retryAfter: .milliseconds(1_500))],
                                     delays: [.milliseconds(450)])
        var retry = fastRetry()
        retry.maxDelay = .seconds(10)
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 4)]),
                                    retry: retry, idleTick: .milliseconds(20))
        let first = try await submit(store, presenters: ["hook"], title: "a")
        let run = Task { await dispatcher.run() }
        try await waitUntil { await hook.callCount == 1 }
        // Claimed by the next poll, whose answer comes back after the 429.
        let second = try await submit(store, presenters: ["hook"], title: "b")
        dispatcher.wake()
        try await waitUntil(.seconds(5)) { await hook.callCount == 3 }
        try await waitUntil { let c = try await store.counts(); return c.pending == 0 && c.inFlight == 0 }
        await dispatcher.shutdownGracefully()
        await run.value
        let calls = await hook.calls
        let asked = try #require(await hook.answers.first?.at)
        #expect(calls.count == 3)
        #expect(Set(calls.dropFirst().map(\.alert)) == [first, second])
        for call in calls.dropFirst() { #expect(call.at - asked >= .milliseconds(1_490), "a call \(call.at - asked) after the 429") }
        // Given back unsent, its attempt is not counted.
        #expect(try await store.record(id: second)?.deliveries.first?.attempts == 1)
    }

    /// Reaching some recipients, the rest still worth a try, is retried for
    /// those; out of retries it is partly delivered, not dead: dead, those
    /// who had the mail never heard that the alert closed.
    @Test func reachingSomeRecipientsIsRetriedThenPartlyDeliveredNotDead() async throws {
        let store = InMemoryAlertStore()
        let hook = ScriptedPresenter(name: "hook", script: [.reachedSome(reason: "451 from later@example.com"),
                                                            .reachedSome(reason: "451 from later@example.com")])
        var retry = fastRetry()
        retry.maxAttempts = 2
        let reports = Reports()
        let dispatcher = reporting(to: reports, over: store, sending: hook, retry: retry)
        let id = try await submit(store, presenters: ["hook"])
        let run = Task { await dispatcher.run() }
        try await waitUntil { await store.record(id: id)?.deliveries.first?.state == .delivered }
        await dispatcher.shutdownGracefully()
        await run.value
        #expect(await hook.callCount == 2)
        let outcomes = reports.all.map(\.outcome)
        #expect(outcomes.first == .reachedSome(reason: "451 from later@example.com"))
        guard case .partlyDelivered(let why)? = outcomes.last else { Issue.record("\(outcomes)"); return }
        #expect(why.hasPrefix("451 from later@example.com (gave up after 2 attempts"), "\(why)")
    }

    @Test func permanentFailureIsDeadAtOnceWithTheReason() async throws {
        let store = InMemoryAlertStore()
        let hook = ScriptedPresenter(name: "hook", script: [.permanentFailure(reason: "HTTP 404 from http://x/")])
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 1)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20))
        let id = try await submit(store, presenters: ["hook"])
        let run = Task { await dispatcher.run() }
        try await waitUntil { await store.record(id: id)?.deliveries.first?.state == .dead }
        await dispatcher.shutdownGracefully()
        await run.value
        let d = try #require(await store.record(id: id)?.deliveries.first)
        #expect(d.lastError == "HTTP 404 from http://x/")
        #expect(await hook.callCount == 1)
    }

    @Test func maxAttemptsBoundsRetries() async throws {
        let store = InMemoryAlertStore()
        let hook = ScriptedPresenter(name: "hook", script: Array(repeating: .retryableFailure(reason: "timeout"), count: 10))
        var retry = fastRetry()
        retry.maxAttempts = 2
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 1)]),
                                    retry: retry, idleTick: .milliseconds(20))
        let id = try await submit(store, presenters: ["hook"])
        let run = Task { await dispatcher.run() }
        try await waitUntil { await store.record(id: id)?.deliveries.first?.state == .dead }
        await dispatcher.shutdownGracefully()
        await run.value
        #expect(await hook.callCount == 2)
        #expect(await store.record(id: id)?.deliveries.first?.lastError?.contains("gave up after 2 attempts") == true)
    }

    @Test func concurrencyPerPresenterIsBounded() async throws {
        let store = InMemoryAlertStore()
        let slow = ScriptedPresenter(name: "slow", delay: .milliseconds(30))
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: slow, maxConcurrency: 3)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20))
        for i in 0..<12 { _ = try await submit(store, presenters: ["slow"], title: "a\(i)") }
        let run = Task { await dispatcher.run() }
        try await waitUntil { await slow.callCount == 12 }
        try await waitUntil { let c = await store.counts(); return c.pending == 0 && c.inFlight == 0 }
        await dispatcher.shutdownGracefully()
        await run.value
        #expect(await slow.maxRunning == 3)
    }

    @Test func handedOffAlertsAreDeliveredOnceEachWithinTheConcurrency() async throws {
        let slow = ScriptedPresenter(name: "slow", delay: .milliseconds(10))
        let (store, dispatcher, intake) = handingOff(to: slow, maxConcurrency: 3)
        let run = Task { await dispatcher.run() }
        try await waitUntil { !dispatcher.handOffClaimKinds().isEmpty }
        var ids: [AlertID] = []
        for batch in 0..<4 {
            let specs = try (0..<10).map { try AlertSpec.Builder().title("a\(batch)-\($0)").build().get() }
            ids += try await intake.submit(specs).map(\.id)
        }
        try await waitUntil { await slow.callCount >= 40 }
        try await waitUntil { let c = await store.counts(); return c.pending == 0 && c.inFlight == 0 }
        await dispatcher.shutdownGracefully()
        await run.value
        let calls = await slow.calls
        #expect(calls.count == 40)
        #expect(Set(calls.map(\.alert)) == Set(ids))
        #expect(calls.allSatisfy { $0.context.attempt == 1 })
        #expect(await slow.maxRunning <= 3)
    }

    @Test func aSlotIsFreeOnceItsAttemptEndsButAtMostTwiceTheSlotsWaitForTheirOutcomesToBeWritten() async throws {
        let hook = ScriptedPresenter(name: "hook")
        let store = HeldSettleStore()
        let (dispatcher, intake) = handingOff(to: hook, maxConcurrency: 2, over: store)
        let run = Task { await dispatcher.run() }
        try await waitUntil { !dispatcher.handOffClaimKinds().isEmpty }
        let specs = try (0..<10).map { try AlertSpec.Builder().title("a\($0)").build().get() }
        let ids = try await intake.submit(specs).map(\.id)
        // With the store not writing outcomes, sending goes on in the slots
        // the first attempts freed, and stops at twice the slots: those a
        // crash now would send again.
        try await waitUntil { await hook.callCount == 4 }
        #expect(store.settleCalls.load(ordering: .relaxed) >= 1)
        try await Task.sleep(for: .milliseconds(200))
        #expect(await hook.callCount == 4)
        #expect(await dispatcher.inFlightCount == 4)
        try await releaseAndFinish(store, dispatcher, run, sentBy: hook, ids: ids, maxConcurrency: 2)
    }

    @Test func handOffsClaimedWithTheNextOutcomesHoldTheirSlotsWhileTheWriteWaits() async throws {
        // Slow enough that attempts are still running when the write ends.
        let hook = ScriptedPresenter(name: "hook", delay: .milliseconds(200))
        let store = HeldSettleStore()
        let (dispatcher, intake) = handingOff(to: hook, maxConcurrency: 2, over: store, claimAtIntake: false)
        let run = Task { await dispatcher.run() }
        let specs = try (0..<10).map { try AlertSpec.Builder().title("a\($0)").build().get() }
        let ids = try await intake.submit(specs).map(\.id)
        // The first two end while their outcomes cannot be written. The
        // hand-offs taken for their slots wait for that write to claim
        // them, holding the slots; a poll may claim others meanwhile, but
        // no more than twice the slots are sent before outcomes are written.
        try await waitUntil { await hook.callCount >= 2 && store.settleCalls.load(ordering: .relaxed) >= 1 }
        try await Task.sleep(for: .milliseconds(100))
        let whileHeld = await hook.calls.map(\.alert)
        #expect(whileHeld.count <= 4, "started while the write waited: \(whileHeld)")
        try await releaseAndFinish(store, dispatcher, run, sentBy: hook, ids: ids, maxConcurrency: 2)
    }

    /// A dispatcher gives the store its lease before it claims anything: a
    /// shared store keeps it for the other nodes to judge this one's claims
    /// by. At a quarter of a 60 s lease, a node just started was judged by
    /// the others' shorter lease for 15 s and its running deliveries sent again.
    @Test func theFirstLeaseCheckComesBeforeAnyClaim() async throws {
        let store = HeldSettleStore(held: false, shared: true)
        let hook = ScriptedPresenter(name: "hook")
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 1)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20), claimLease: .seconds(60))
        let started = ContinuousClock.now
        let run = Task { await dispatcher.run() }
        try await waitUntil(.seconds(3)) { store.leaseChecks.withLock { !$0.isEmpty } }
        #expect(store.leaseChecks.withLock { $0.first.map { $0.at - started < .seconds(3) } } == true)
        run.cancel()
        await run.value
    }

    /// While a shared store is out of reach no node renews its claims: once
    /// it is back, each gets a lease to renew before any claim is released.
    /// Released at once, other nodes' running deliveries were sent again.
    /// One node's own store releases at once: nobody else's claims to wait for.
    @Test(arguments: [true, false])
    func afterAFailedLeaseCheckASharedStoreReleasesNoClaimForALease(shared: Bool) async throws {
        let store = HeldSettleStore(held: false, shared: shared)
        let hook = ScriptedPresenter(name: "hook")
        let lease = Duration.milliseconds(800)
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 1)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20), claimLease: lease)
        let run = Task { await dispatcher.run() }
        try await waitUntil { store.leaseChecks.withLock { !$0.isEmpty } }
        // The normal check: claims older than a lease are stale.
        #expect(store.leaseChecks.withLock { $0.last!.claimedBefore.timeIntervalSinceNow > -2 })
        store.leaseChecksFail.withLock { $0 = true }
        try await waitUntil { store.leaseChecks.withLock { $0.contains(where: \.failed) } }
        store.leaseChecksFail.withLock { $0 = false }
        func lastFailure(_ checks: [(claimedBefore: Date, failed: Bool, at: ContinuousClock.Instant)]) -> Int { checks.lastIndex(where: \.failed)! }
        // Until a check releases again.
        try await waitUntil(.seconds(10)) {
            store.leaseChecks.withLock { checks in checks[(lastFailure(checks) + 1)...].contains { $0.claimedBefore > .distantPast } }
        }
        let checks = store.leaseChecks.withLock { $0 }
        let failed = checks[lastFailure(checks)]
        let after = checks[(lastFailure(checks) + 1)...]
        let releasing = after.first { $0.claimedBefore > .distantPast }!
        if shared {
            #expect(releasing.at - failed.at >= lease, "released claims \(releasing.at - failed.at) after the failure")
            #expect(after.allSatisfy { $0.at - failed.at >= lease || $0.claimedBefore == .distantPast })
        } else {
            #expect(after.first!.claimedBefore > .distantPast, "one node's own store waited after the failure")
        }
        run.cancel()
        await run.value
    }

    @Test func aPollLeavesAHandOffOnItsWayItsSlot() async throws {
        let store = InMemoryAlertStore()
        let hook = ScriptedPresenter(name: "hook")
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 1)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20))
        let run = Task { await dispatcher.run() }
        // What intake does around its store write: the row is committed
        // before the hand-off arrives, and a poll meanwhile (a wake-up asks
        // for one) must not take the slot the hand-off is coming for.
        let kinds = [DeliveryKind.presenter("hook"): 1]
        dispatcher.expectHandOffs(kinds)
        let alert = Alert(spec: try AlertSpec.Builder().title("coming").build().get())
        let submission = AlertSubmission(alert: alert, presenters: ["hook"])
        _ = try await store.submit([submission])
        dispatcher.wake()
        try await Task.sleep(for: .milliseconds(300))
        #expect(await hook.callCount == 0)
        #expect(await store.counts().pending == 1)
        dispatcher.accept(submission.deliveries)
        dispatcher.expectedHandOffsArrived(kinds)
        try await waitUntil { await store.record(id: alert.id)?.deliveries.first?.state == .delivered }
        #expect(await hook.callCount == 1)
        // With nothing on its way, a poll takes what is due again.
        let later = try await submit(store, presenters: ["hook"], title: "polled")
        dispatcher.wake()
        try await waitUntil { await store.record(id: later)?.deliveries.first?.state == .delivered }
        await dispatcher.shutdownGracefully()
        await run.value
    }

    @Test func aHandOffStoredClaimedStartsAsItIsUnlessASilenceWasSavedSince() async throws {
        let hook = ScriptedPresenter(name: "hook")
        let (store, dispatcher, intake) = handingOff(to: hook, maxConcurrency: 4)
        // Not before it has recovered what a crash left in flight.
        #expect(dispatcher.handOffClaimKinds().isEmpty)
        let run = Task { await dispatcher.run() }
        try await waitUntil { !dispatcher.handOffClaimKinds().isEmpty }
        #expect(dispatcher.handOffClaimKinds() == [.presenter("hook")])
        // Stored in flight, started with no claim of its own, delivered at its first attempt.
        let first = try await intake.submit([try AlertSpec.Builder().title("first").build().get()])[0].id
        try await waitUntil { await store.record(id: first)?.deliveries.first?.state == .delivered }
        #expect(await store.record(id: first)?.deliveries.first?.attempts == 1)
        // Stored claimed while the loop is wedged; a silence saved before it starts holds it.
        await dispatcher.setStalledForTesting(true)
        try await Task.sleep(for: .milliseconds(100))
        let second = try await intake.submit([try AlertSpec.Builder().title("second").label("team", "db").build().get()])[0].id
        #expect(await store.record(id: second)?.deliveries.first?.state == .inFlight)
        let now = Date()
        _ = await store.saveSilence(Silence(matchers: [try LabelMatcher(parsing: "team=db")], startsAt: now, endsAt: now.addingTimeInterval(3600),
                                            createdBy: "alice", comment: "db work"), replacing: nil, now: now)
        await dispatcher.setStalledForTesting(false)
        try await waitUntil { await store.record(id: second)?.deliveries.first?.silencedBy != nil }
        let held = try #require(await store.record(id: second)?.deliveries.first)
        #expect(held.state == .pending)
        #expect(held.attempts == 0)
        #expect(await hook.callCount == 1)
        await dispatcher.shutdownGracefully()
        await run.value
        #expect(dispatcher.handOffClaimKinds().isEmpty)
    }

    @Test func handOffsWaitingForASlotGoBackToTheStoreAtAGracefulStop() async throws {
        let slow = ScriptedPresenter(name: "slow", delay: .milliseconds(300))
        let (store, dispatcher, intake) = handingOff(to: slow, maxConcurrency: 1)
        let run = Task { await dispatcher.run() }
        try await waitUntil { !dispatcher.handOffClaimKinds().isEmpty }
        let ids = try await intake.submit(try (0..<3).map { try AlertSpec.Builder().title("a\($0)").build().get() }).map(\.id)
        try await waitUntil { await slow.callCount == 1 }
        // One running, two stored claimed and waiting here for its slot.
        #expect(await store.counts().inFlight == 3)
        await dispatcher.shutdownGracefully()
        await run.value
        var states: [String?] = []
        for id in ids { states.append(await store.record(id: id)?.deliveries.first.map { "\($0.state.rawValue)/\($0.attempts)" }) }
        #expect(states.filter { $0 == "delivered/1" }.count == 1)
        #expect(states.filter { $0 == "pending/0" }.count == 2)
    }

    @Test func theHandOffQueueIsBoundedAndTakesOldestFirstPerKind() throws {
        let hook = DeliveryKind.presenter("hook"), log = DeliveryKind.presenter("log"), gone = DeliveryKind.presenter("gone")
        let alert = Alert(spec: try AlertSpec.Builder().title("t").build().get())
        func d(_ i: Int, _ kind: DeliveryKind) -> AcceptedDelivery { AcceptedDelivery(id: .routed(alert.id, i), kind: kind, alert: alert) }
        var q = HandOffQueue(limit: 5)
        #expect(q.append([d(0, hook), d(1, log), d(2, hook), d(3, gone), d(4, hook), d(5, hook)]).map(\.id) == [.routed(alert.id, 5)])
        #expect(q.count == 5)
        #expect(q.ids == Set([0, 1, 2, 3, 4].map { DeliveryID.routed(alert.id, $0) }))
        // A kind with no slots entry has lost its presenter: dropped, left to the poll.
        let first = q.take([hook: 2, log: 0])
        #expect(first.taken.map(\.id) == [.routed(alert.id, 0), .routed(alert.id, 2)])
        #expect(first.dropped.map(\.id) == [.routed(alert.id, 3)])
        #expect(q.count == 2)
        #expect(q.ids == [.routed(alert.id, 4), .routed(alert.id, 1)])
        let rest = q.take([hook: 5, log: 5]).taken.map(\.id)
        #expect(Set(rest) == [.routed(alert.id, 4), .routed(alert.id, 1)])
        #expect(q.isEmpty)
        #expect(q.append([d(6, hook), d(7, log)]).isEmpty)
        #expect(Set(q.removeAll().map(\.id)) == [.routed(alert.id, 6), .routed(alert.id, 7)])
        #expect(q.isEmpty && q.ids.isEmpty)
    }

    /// Taken a few at a time past the point where the line drops its taken
    /// front, hand-offs still come out oldest first, each once.
    @Test func theHandOffQueueKeepsItsOrderAcrossDroppingItsFront() throws {
        let hook = DeliveryKind.presenter("hook"), log = DeliveryKind.presenter("log")
        let alert = Alert(spec: try AlertSpec.Builder().title("t").build().get())
        var q = HandOffQueue(limit: 8_192)
        let all = (0..<6_000).map { AcceptedDelivery(id: .routed(alert.id, $0), kind: $0 % 3 == 0 ? log : hook, alert: alert) }
        #expect(q.append(all).isEmpty)
        var taken: [AcceptedDelivery] = []
        while !q.isEmpty {
            let before = q.count
            let batch = q.take(3, of: hook) + q.take(1, of: log)
            #expect(q.count == before - batch.count)
            taken += batch
        }
        #expect(taken.filter { $0.kind == hook }.map(\.id) == all.filter { $0.kind == hook }.map(\.id))
        #expect(taken.filter { $0.kind == log }.map(\.id) == all.filter { $0.kind == log }.map(\.id))
        #expect(q.take(1, of: hook).isEmpty && q.ids.isEmpty)
    }

    @Test func deliveriesForAnUnconfiguredPresenterBecomeDead() async throws {
        let store = InMemoryAlertStore()
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([]), retry: fastRetry(), idleTick: .milliseconds(20))
        let id = try await submit(store, presenters: ["removed"])
        let run = Task { await dispatcher.run() }
        try await waitUntil { await store.record(id: id)?.deliveries.first?.state == .dead }
        #expect(await store.record(id: id)?.deliveries.first?.lastError == "presenter \"removed\" is not configured")
        // Replayed long after the sweep that followed the start, it is found by the sweep that runs every ten idle ticks.
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await store.replayDead(alert: id, now: Date()) == 1)
        dispatcher.wake()
        try await waitUntil { await store.record(id: id)?.deliveries.first?.state == .dead }
        await dispatcher.shutdownGracefully()
        await run.value
    }

    /// A retry waiting when a reload takes its presenter out is settled
    /// dead by the sweep after the reload, not when it comes due: the sweep
    /// found nothing due and stopped, and the retry stayed pending for good.
    @Test func aRetryWaitingForAPresenterAReloadRemovedBecomesDead() async throws {
        let store = InMemoryAlertStore()
        let hook = ScriptedPresenter(name: "hook", script: [.retryableFailure(reason: "down")])
        var retry = fastRetry()
        retry.initialDelay = .seconds(30)
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 1)]),
                                    retry: retry, idleTick: .milliseconds(20))
        let run = Task { await dispatcher.run() }
        let id = try await submit(store, presenters: ["hook"])
        dispatcher.wake()
        try await waitUntil { await store.record(id: id)?.deliveries.first.map { $0.state == .pending && $0.attempts == 1 } ?? false }
        await dispatcher.reconfigure(presenters: PresenterSet([]), retry: retry)
        try await waitUntil { await store.record(id: id)?.deliveries.first?.state == .dead }
        await dispatcher.shutdownGracefully()
        await run.value
        #expect(await store.record(id: id)?.deliveries.first?.lastError == "presenter \"hook\" is not configured")
    }

    /// An alert made `at`, in one group (route `r`, `alertname=A`, or
    /// `group`) told to `presenters` 30 s after it forms, changes a minute apart.
    func submitGrouped(_ store: any AlertStore, presenters: [String], at: Date, group: String = "A") async throws -> Alert {
        let membership = AlertGroupMembership(
            route: "r", labels: [AlertLabel(name: "alertname", value: group)],
            settings: AlertGroupSettings(presenters: presenters, wait: .seconds(30), interval: .seconds(60), repeatInterval: .seconds(3600)))
        let alert = Alert(spec: try AlertSpec.Builder().title("a").labels(["alertname": group]).build().get(), at: at)
        _ = try await store.submit([AlertSubmission(alert: alert, presenters: [], groups: [membership])])
        return alert
    }

    /// A group's `first` still queued when its `resolved` is (the
    /// destination was down): only the `resolved` goes out; the `first`,
    /// sent after it, would reopen what it closed. Under a rate limit with
    /// one token, the `first` spends none: else a group changing faster
    /// than the rate never gets what stands now out.
    @Test(arguments: [nil, RateLimit(perSecond: 0.01, burst: 1)])
    func aGroupNotificationWhoseNextIsQueuedIsNotSent(_ rateLimit: RateLimit?) async throws {
        let store = InMemoryAlertStore()
        let hook = ScriptedPresenter(name: "hook")
        let start = Date().addingTimeInterval(-100)
        let alert = try await submitGrouped(store, presenters: ["hook"], at: start)
        let first = try #require(try await store.flushDueGroups(now: start.addingTimeInterval(30), inhibitRules: [], limit: 10).first)
        _ = try await store.decide(alert.id, AlertDecision(outcome: .resolved, actor: "t", at: start.addingTimeInterval(40)))
        let resolved = try #require(try await store.flushDueGroups(now: start.addingTimeInterval(90), inhibitRules: [], limit: 10).first)
        #expect(resolved.reason == .resolved)

        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 4, rateLimit: rateLimit)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20))
        let run = Task { await dispatcher.run() }
        try await waitUntil {
            let states = await store.record(id: alert.id)?.deliveries.map(\.state) ?? []
            return states.count == 2 && !states.contains(.pending) && !states.contains(.inFlight)
        }
        await dispatcher.shutdownGracefully()
        await run.value
        #expect(await hook.calls.map(\.context.deliveryID) == [resolved.delivery])
        let overtaken = try #require(await store.record(id: alert.id)?.deliveries.first { $0.id == first.delivery })
        #expect(overtaken.state == .dead)
        #expect(overtaken.lastError?.hasPrefix("superseded: the group's next notification to this presenter") == true)
    }

    /// A group's `resolved` queued while its `first` is still being sent
    /// (a receiver slow to answer) waits for that attempt to end: sent at
    /// once, it could be read before the `first`, which would open again
    /// what it closed.
    /// A grouped alert's first notification sent to `hook` through a
    /// dispatcher, and its resolved one claimed while that attempt is under
    /// way; the dispatcher runs until `done` holds for the resolved one's
    /// id. The two notifications' delivery ids.
    func firstThenResolved(to hook: ScriptedPresenter, until done: @escaping (DeliveryID) async -> Bool) async throws
        -> (first: DeliveryID, resolved: DeliveryID) {
        let store = InMemoryAlertStore()
        let start = Date().addingTimeInterval(-100)
        let alert = try await submitGrouped(store, presenters: ["hook"], at: start)
        let first = try #require(try await store.flushDueGroups(now: start.addingTimeInterval(30), inhibitRules: [], limit: 10).first)
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 4)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20))
        let run = Task { await dispatcher.run() }
        try await waitUntil { await hook.callCount == 1 }
        _ = try await store.decide(alert.id, AlertDecision(outcome: .resolved, actor: "t", at: start.addingTimeInterval(40)))
        let resolved = try #require(try await store.flushDueGroups(now: start.addingTimeInterval(90), inhibitRules: [], limit: 10).first)
        dispatcher.wake()
        try await waitUntil { await done(resolved.delivery) }
        await dispatcher.shutdownGracefully()
        await run.value
        return (first.delivery, resolved.delivery)
    }

    /// A group notification's latency runs from when it was queued: from
    /// the group's first alert, every reminder counted the group's life.
    @Test func aGroupNotificationsLatencyRunsFromWhenItWasQueued() async throws {
        let store = InMemoryAlertStore()
        let hook = ScriptedPresenter(name: "hook")
        _ = try await submitGrouped(store, presenters: ["hook"], at: Date().addingTimeInterval(-100))
        _ = try #require(try await store.flushDueGroups(now: Date(), inhibitRules: [], limit: 10).first)
        let reports = Reports()
        let dispatcher = reporting(to: reports, over: store, sending: hook, retry: fastRetry())
        let run = Task { await dispatcher.run() }
        try await waitUntil { !reports.all.isEmpty }
        await dispatcher.shutdownGracefully()
        await run.value
        let since = try #require(reports.all.first?.sinceAccepted)
        #expect(since < .seconds(10), "\(since) since the notification was queued")
    }

    @Test func aGroupNotificationWaitsForTheOneBeforeStillBeingSent() async throws {
        let hook = ScriptedPresenter(name: "hook", delays: [.milliseconds(400)])
        let (first, resolved) = try await firstThenResolved(to: hook) { _ in await hook.answers.count == 2 }
        let calls = await hook.calls
        let answers = await hook.answers
        #expect(calls.map(\.context.deliveryID) == [first, resolved])
        #expect(answers.map(\.delivery) == [first, resolved])
        // Required, not expected: indexed past its end, a short list ended the whole test run.
        try #require(calls.count == 2 && !answers.isEmpty)
        #expect(calls[1].at >= answers[0].at)
        #expect(await hook.maxRunning == 1)
    }

    /// A group notification waiting for the one before it does not start
    /// when that one's answer pauses the presenter, but once the pause is over.
    @Test func aNotificationWaitingInLineWaitsOutAPause() async throws {
        let hook = ScriptedPresenter(name: "hook", script: [.retryableFailure(reason: "HTTP 429", retryAfter: .milliseconds(700))],
                                     delays: [.milliseconds(300)])
        let (_, resolved) = try await firstThenResolved(to: hook) { resolved in
            await hook.calls.contains { $0.context.deliveryID == resolved }
        }
        let paused = try #require(await hook.answers.first?.at)
        let next = try #require(await hook.calls.first { $0.context.deliveryID == resolved }?.at)
        #expect(next - paused >= .milliseconds(690), "started \(next - paused) after the 429")
    }

    /// Waiting for a slow attempt of its group, a notification holds no
    /// slot: another group's goes out meanwhile. And one claimed while it
    /// waits takes its place: only what stands now is sent after the slow one.
    @Test func aNotificationWaitingInLineHoldsNoSlotAndGivesWayToTheNext() async throws {
        let store = InMemoryAlertStore()
        let hook = ScriptedPresenter(name: "hook", delays: [.milliseconds(600)])
        let start = Date().addingTimeInterval(-1000)
        func flushed(_ offset: TimeInterval) async throws -> DeliveryID {
            try #require(try await store.flushDueGroups(now: start.addingTimeInterval(offset), inhibitRules: [], limit: 10).first).delivery
        }
        var members = [try await submitGrouped(store, presenters: ["hook"], at: start)]
        let first = try await flushed(30)
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 2)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20))
        let run = Task { await dispatcher.run() }
        try await waitUntil { await hook.callCount == 1 }
        members.append(try await submitGrouped(store, presenters: ["hook"], at: start.addingTimeInterval(40)))
        let second = try await flushed(90)
        dispatcher.wake()
        try await Task.sleep(for: .milliseconds(60))
        members.append(try await submitGrouped(store, presenters: ["hook"], at: start.addingTimeInterval(100)))
        let third = try await flushed(150)
        _ = try await submitGrouped(store, presenters: ["hook"], at: start.addingTimeInterval(200), group: "B")
        let other = try await flushed(230)
        dispatcher.wake()
        try await waitUntil { await hook.answers.count == 3 }
        await dispatcher.shutdownGracefully()
        await run.value
        #expect(await hook.calls.map(\.context.deliveryID) == [first, other, third])
        #expect(await hook.answers.map(\.delivery) == [other, first, third])
        var deliveries: [DeliveryRecord] = []
        for m in members { deliveries += await store.record(id: m.id)?.deliveries ?? [] }
        let overtaken = try #require(deliveries.first { $0.id == second })
        #expect(overtaken.state == .dead)
        #expect(overtaken.lastError?.hasPrefix("superseded: the group's next notification to this presenter") == true)
    }

    /// Queuing a group's next notification drops what the one before said.
    /// Should that next one be pruned (with its own alert, once it left the
    /// group) while the one before waits for a retry, the one before has
    /// nothing left to say: it ends dead, never sent as a lone alert.
    @Test func aGroupNotificationWithoutItsContentIsNotSentAsItsAlert() async throws {
        let store = InMemoryAlertStore()
        let hook = ScriptedPresenter(name: "hook")
        let start = Date().addingTimeInterval(-100)
        let first = try await submitGrouped(store, presenters: ["hook"], at: start)
        let told = try #require(try await store.flushDueGroups(now: start.addingTimeInterval(30), inhibitRules: [], limit: 10).first)
        let second = try await submitGrouped(store, presenters: ["hook"], at: start.addingTimeInterval(35))
        _ = try await store.decide(first.id, AlertDecision(outcome: .resolved, actor: "t", at: start.addingTimeInterval(40)))
        let changed = try #require(try await store.flushDueGroups(now: start.addingTimeInterval(90), inhibitRules: [], limit: 10).first)
        #expect(changed.reason == .changed)
        /// Claims what is due at `offset`, expecting `told` and `sent`: `told` fails again, to be retried at `retry`; `sent` is delivered.
        func attempt(at offset: TimeInterval, delivering sent: DeliveryID, retryAt retry: TimeInterval) async throws {
            let claimed = try await store.claimDueDeliveries(now: start.addingTimeInterval(offset), capacity: [.presenter("hook"): 4], orphanLimit: 0)
            #expect(Set(claimed.map(\.delivery.id)) == [told.delivery, sent])
            try await store.settle([DeliverySettlement(deliveryID: told.delivery, result: .retry(at: start.addingTimeInterval(retry), error: "503"),
                                                       at: start.addingTimeInterval(offset)),
                                    DeliverySettlement(deliveryID: sent, result: .delivered, at: start.addingTimeInterval(offset))])
        }
        // The first is retried later; the change (about `second` alone) is delivered.
        try await attempt(at: 90, delivering: changed.delivery, retryAt: 91)
        _ = try await store.decide(second.id, AlertDecision(outcome: .resolved, actor: "t", at: start.addingTimeInterval(95)))
        // A member is kept while its group may still have to tell of it: told, it leaves, and then goes.
        #expect(try await store.prune(closedBefore: Date(), limit: 10) == 0)
        let ended = try #require(try await store.flushDueGroups(now: start.addingTimeInterval(150), inhibitRules: [], limit: 10).first)
        #expect(ended.reason == .resolved)
        try await attempt(at: 150, delivering: ended.delivery, retryAt: 99)
        #expect(try await store.prune(closedBefore: Date(), limit: 10) == 1)
        #expect(try await store.record(id: second.id) == nil)

        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 4)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20))
        let run = Task { await dispatcher.run() }
        try await waitUntil { await store.record(id: first.id)?.deliveries.first?.state == .dead }
        await dispatcher.shutdownGracefully()
        await run.value
        #expect(await hook.calls.isEmpty)
        let dropped = try #require(await store.record(id: first.id)?.deliveries.first)
        #expect(dropped.id == told.delivery)
        #expect(dropped.lastError?.hasPrefix("superseded: a later notification of the group") == true)
    }

    /// A group still naming a presenter a reload took out queues its
    /// notification long after the sweep that follows the reload: told of
    /// it, the dispatcher settles it dead, not leaving it pending for good.
    @Test func aGroupNotificationForAPresenterNoLongerConfiguredBecomesDead() async throws {
        let store = InMemoryAlertStore()
        let hook = ScriptedPresenter(name: "hook")
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 1)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20))
        let run = Task { await dispatcher.run() }
        // Long enough for the first sweep for orphans to find none.
        try await Task.sleep(for: .milliseconds(200))
        let alert = try await submitGrouped(store, presenters: ["old"], at: Date().addingTimeInterval(-60))
        let notices = try await store.flushDueGroups(now: Date(), inhibitRules: [], limit: 10)
        #expect(notices.map(\.presenter) == ["old"])
        dispatcher.wake(queuedFor: notices.map(\.presenter))
        try await waitUntil { await store.record(id: alert.id)?.deliveries.first?.state == .dead }
        await dispatcher.shutdownGracefully()
        await run.value
        #expect(await store.record(id: alert.id)?.deliveries.first?.lastError == "presenter \"old\" is not configured")
    }

    @Test func aGracefulStopWaitsForDeliveriesInFlight() async throws {
        let store = InMemoryAlertStore()
        let slow = ScriptedPresenter(name: "slow", delay: .milliseconds(300))
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: slow, maxConcurrency: 1)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20))
        let id = try await submit(store, presenters: ["slow"])
        let run = Task { await dispatcher.run() }
        try await waitUntil { await slow.callCount == 1 }
        await dispatcher.shutdownGracefully()
        await run.value
        #expect(await store.record(id: id)?.deliveries.first?.state == .delivered)
        #expect(await dispatcher.isRunning == false)
    }

    @Test func cancellationCutsDeliveriesOffAndGivesThemBack() async throws {
        let store = InMemoryAlertStore()
        let hung = ScriptedPresenter(name: "hung", delay: .seconds(30))
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hung, maxConcurrency: 1)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20))
        let id = try await submit(store, presenters: ["hung"])
        let run = Task { await dispatcher.run() }
        try await waitUntil { await hung.callCount == 1 }
        await dispatcher.shutdownGracefully()
        try await Task.sleep(for: .milliseconds(100))
        let cut = ContinuousClock.now
        run.cancel()
        await run.value
        #expect(ContinuousClock.now - cut < .seconds(2))
        // Not settled but given back: pending, for another node now or this one after a restart.
        let delivery = await store.record(id: id)?.deliveries.first
        #expect(delivery?.state == .pending && delivery?.lastError == nil)
        #expect(await dispatcher.inFlightCount == 0)
    }

    @Test func retryAfterWinsOverBackoffAndMaxAgeEndsRetries() {
        var policy = RetryPolicy()
        policy.jitter = false
        let created = Date()
        let r = policy.settle(reason: "429", retryable: true, retryAfter: .seconds(7), attempt: 1, createdAt: created, now: created)
        #expect(r == .retry(at: created.addingTimeInterval(7), error: "429"))
        #expect(policy.backoff(afterAttempt: 1) == .seconds(1))
        #expect(policy.backoff(afterAttempt: 4) == .seconds(8))
        #expect(policy.backoff(afterAttempt: 30) == .seconds(600))
        let old = created.addingTimeInterval(-24 * 3600)
        if case .dead(let e) = policy.settle(reason: "500", retryable: true, retryAfter: nil, attempt: 3, createdAt: old, now: created) {
            #expect(e.contains("gave up"))
        } else {
            Issue.record("expected dead")
        }
        // Equal jitter draws from [backoff / 2, backoff].
        var jittered = RetryPolicy()
        jittered.jitter = true
        let j = jittered.settle(reason: "x", retryable: true, retryAfter: nil, attempt: 3, createdAt: created, now: created) { max in
            #expect(max == 2)
            return max / 2
        }
        #expect(j == .retry(at: created.addingTimeInterval(3), error: "x"))
        // With the real draw, never sooner than half the backoff.
        for _ in 0..<200 {
            guard case .retry(let at, _) = jittered.settle(reason: "x", retryable: true, retryAfter: nil, attempt: 1, createdAt: created, now: created)
            else { Issue.record("expected a retry"); break }
            #expect((0.5...1.0).contains(at.timeIntervalSince(created)))
        }
    }

    @Test func retryAfterZeroLeavesTheBackoffAndAWaitPastMaxAgeSaysSo() {
        var policy = RetryPolicy()
        policy.initialDelay = .seconds(2)
        policy.maxAge = .seconds(3600)
        policy.jitter = false
        let created = Date()
        // Retry-After: 0 (or no more than the first delay) says nothing: the backoff goes on, 2 s × 2⁴.
        // Taken as the first delay, it retried every 2 s for max_age.
        for wait in [Duration.zero, .seconds(2)] {
            #expect(policy.settle(reason: "429", retryable: true, retryAfter: wait, attempt: 5, createdAt: created, now: created)
                == .retry(at: created.addingTimeInterval(32), error: "429"), "\(wait)")
        }
        // One asking for more is the wait.
        #expect(policy.settle(reason: "429", retryable: true, retryAfter: .seconds(3), attempt: 5, createdAt: created, now: created)
            == .retry(at: created.addingTimeInterval(3), error: "429"))
        // A wait beyond max_age dead-letters, saying the receiver's wait is why.
        let far = policy.settle(reason: "429", retryable: true, retryAfter: .seconds(7200), attempt: 1, createdAt: created, now: created)
        guard case .dead(let why) = far else { Issue.record("expected dead: \(far)"); return }
        #expect(why == "429 (gave up: the receiver asked to retry after 2h, past retry.max_age of 1h)")
        // An old delivery says it is old.
        let old = policy.settle(reason: "500", retryable: true, retryAfter: nil, attempt: 9, createdAt: created.addingTimeInterval(-3599), now: created)
        guard case .dead(let oldWhy) = old else { Issue.record("expected dead: \(old)"); return }
        #expect(oldWhy.hasPrefix("500 (gave up: the next retry would fall past retry.max_age of 1h"))
        // A max_age of milliseconds is said as written, not cut to whole seconds ("2s").
        policy.maxAge = .milliseconds(2_500)
        let short = policy.settle(reason: "500", retryable: true, retryAfter: nil, attempt: 1, createdAt: created.addingTimeInterval(-2), now: created)
        guard case .dead(let shortWhy) = short else { Issue.record("expected dead: \(short)"); return }
        #expect(shortWhy.hasPrefix("500 (gave up: the next retry would fall past retry.max_age of 2.5s"), "\(shortWhy)")
    }

    /// A receiver's `Retry-After: 9223372036854775807` crashed the daemon
    /// where the give-up message rounded it to Int64, and again at every
    /// restart while the delivery stayed pending.
    @Test func aWaitOfAnyLengthIsSaidAndNotOverflowed() {
        var policy = RetryPolicy()
        policy.maxAge = .seconds(3600)
        let created = Date()
        for wait in [Duration.seconds(Int64.max), .seconds(Int64.max) + .milliseconds(500), Duration.century] {
            let r = policy.settle(reason: "503", retryable: true, retryAfter: wait, attempt: 1, createdAt: created, now: created)
            guard case .dead(let why) = r else { Issue.record("expected dead: \(r)"); return }
            #expect(why.hasPrefix("503 (gave up: the receiver asked to retry after "), "\(why)")
        }
        #expect((Duration.seconds(Int64.max) + .milliseconds(1)).wholeSecondsRoundedUp == Int64.max)
        #expect(Duration.milliseconds(1_001).wholeSecondsRoundedUp == 2)
    }

    /// What a peer writes is bounded when read: a century at most, never negative.
    @Test func aPeersHintIsBoundedWhenRead() {
        #expect(Duration.peerHint(seconds: 1.5) == .milliseconds(1_500))
        #expect(Duration.peerHint(milliseconds: 2_500) == .milliseconds(2_500))
        #expect(Duration.peerHint(seconds: -3) == .zero)
        #expect(Duration.peerHint(seconds: .nan) == nil)
        for huge in [1e300, Double.infinity, 9_223_372_036_854_775_807, Duration.century.seconds + 1] {
            #expect(Duration.peerHint(seconds: huge) == .century, "\(huge)")
            #expect(Duration.peerHint(milliseconds: huge * 1000) == .century, "\(huge)")
        }
        let now = Date(timeIntervalSince1970: 784_111_777)
        #expect((["Retry-After": "9223372036854775807"] as HTTPHeaders).retryAfter(relativeTo: now) == .century)
        #expect((["Retry-After": "99999999999999999999999999"] as HTTPHeaders).retryAfter(relativeTo: now) == .century)
        #expect((["Retry-After": "Fri, 31 Dec 9999 23:59:59 GMT"] as HTTPHeaders).retryAfter(relativeTo: now) == .century)
        #expect((["Retry-After": "120"] as HTTPHeaders).retryAfter(relativeTo: now) == .seconds(120))
    }

    @Test func routerTakesFirstMatchUnlessContinue() throws {
        let router = AlertRouter(
            routes: [
                RouteDefinition(labels: ["team": "db"], presenters: ["dba"], continueMatching: true),
                RouteDefinition(minSeverity: .error, presenters: ["pager"]),
                RouteDefinition(presenters: ["never"]),
            ],
            defaultRoute: RouteDefinition(presenters: ["log"]))
        func route(_ severity: Severity, _ labels: [String: String]) throws -> [String] {
            router.presenters(for: try AlertSpec.Builder().title("x").severity(severity).labels(labels).build().get())
        }
        #expect(try route(.critical, ["team": "db"]) == ["dba", "pager"])
        #expect(try route(.info, ["team": "db"]) == ["dba", "never"])
        #expect(try route(.error, [:]) == ["pager"])
        let onlyDefault = AlertRouter(routes: [RouteDefinition(labels: ["a": "b"], presenters: ["x"])], defaultRoute: RouteDefinition(presenters: ["log"]))
        #expect(onlyDefault.presenters(for: try AlertSpec.Builder().title("x").build().get()) == ["log"])
        // Values compare byte for byte, as silences do: `café` decomposed is not the route's composed one.
        let cafe = AlertRouter(routes: [RouteDefinition(labels: ["team": "caf\u{E9}"], presenters: ["x"])], defaultRoute: RouteDefinition(presenters: ["log"]))
        #expect(cafe.presenters(for: try AlertSpec.Builder().title("x").labels(["team": "caf\u{E9}"]).build().get()) == ["x"])
        #expect(cafe.presenters(for: try AlertSpec.Builder().title("x").labels(["team": "cafe\u{301}"]).build().get()) == ["log"])
    }
}

extension DispatcherTests {
    @Test func aFollowUpCarriesHowTheAlertClosedAndOneForAPresenterNoLongerTakingThemIsDead() async throws {
        let store = InMemoryAlertStore()
        let hook = ScriptedPresenter(name: "hook")
        let alert = Alert(spec: try AlertSpec.Builder().title("t").build().get())
        _ = try await store.submit([AlertSubmission(alert: alert, presenters: ["hook"], followUps: ["hook"])])
        let dispatcher = Dispatcher(store: store, presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 1, followUps: true)]),
                                    retry: fastRetry(), idleTick: .milliseconds(20))
        let run = Task { await dispatcher.run() }
        try await waitUntil { await hook.callCount == 1 }
        try await waitUntil { await store.record(id: alert.id)?.deliveries.first?.state == .delivered }
        _ = try await store.decide(alert.id, AlertDecision(outcome: .confirmed, actor: "uid:1000", comment: "ok"))
        dispatcher.wake()
        try await waitUntil { await hook.callCount == 2 }
        let context = try #require(await hook.calls.last?.context)
        #expect(context.deliveryID == .followUp(of: .routed(alert.id, 0)))
        #expect(context.followUp?.original == .routed(alert.id, 0))
        #expect(context.followUp?.decision.outcome == .confirmed)
        #expect(context.followUp?.decision.comment == "ok")
        #expect(context.actionLinks.isEmpty)

        // Reconfigured meanwhile to take none: a queued follow-up would reach a presenter that would show the alert again.
        let second = Alert(spec: try AlertSpec.Builder().title("u").build().get())
        _ = try await store.submit([AlertSubmission(alert: second, presenters: ["hook"], followUps: ["hook"])])
        dispatcher.wake()
        try await waitUntil { await store.record(id: second.id)?.deliveries.first?.state == .delivered }
        await dispatcher.reconfigure(presenters: PresenterSet([.init(presenter: hook, maxConcurrency: 1)]), retry: fastRetry())
        _ = try await store.decide(second.id, AlertDecision(outcome: .resolved, actor: "uid:1000"))
        dispatcher.wake()
        try await waitUntil { await store.record(id: second.id)?.deliveries.last?.state == .dead }
        await dispatcher.shutdownGracefully()
        await run.value
        #expect(await store.record(id: second.id)?.deliveries.last?.lastError == "presenter \"hook\" no longer sends follow-ups")
        #expect(await hook.callCount == 3)
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdStore
@testable import AlertdSQLiteStore

/// Silences, held to the same contract on every backend: how they are
/// stored and changed, and the one rule that a matching active silence holds
/// deliveries back.
extension StoreConformanceTests {
    func silence(_ matchers: String..., from start: Date = Date(), for seconds: TimeInterval = 3600) throws -> Silence {
        Silence(matchers: try matchers.map { try LabelMatcher(parsing: $0) }, startsAt: start,
                endsAt: start.addingTimeInterval(seconds), createdBy: "alice", comment: "maintenance")
    }

    /// An alert made `at` the test's own clock: with the suite run in
    /// parallel, a second of wall time can pass between reading the clock
    /// and submitting.
    func labelled(_ labels: [String: String], at: Date = Date()) throws -> Alert {
        Alert(spec: try spec("Disk full", labels: labels), at: at)
    }

    static let hook: [DeliveryKind: Int] = [.presenter("hook"): 8]

    /// Held deliveries leave the due set but took rows of the page read for
    /// the free slots: a claim with room left has still taken everything
    /// due (the dispatcher waits for the next due time after one). A
    /// thousand silenced alerts due first held the rest back a page a second.
    @Test(arguments: StoreBackend.allCases) func aClaimTakesWhatIsDuePastTheDeliveriesASilenceHolds(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let silenced = try (0..<40).map { _ in try labelled(["host": "db"]) }
        _ = try await store.submit(silenced.map { AlertSubmission(alert: $0, presenters: ["hook"]) })
        let shown = try (0..<5).map { _ in try labelled(["host": "web"]) }
        _ = try await store.submit(shown.map { AlertSubmission(alert: $0, presenters: ["hook"]) })
        let now = Date()
        _ = try await store.saveSilence(try silence(#"host="db""#, from: now.addingTimeInterval(-1)), replacing: nil, now: now)
        let claimed = try await store.claimDueDeliveries(now: now.addingTimeInterval(1), capacity: Self.hook, orphanLimit: 0)
        #expect(Set(claimed.map(\.alert.id)) == Set(shown.map(\.id)))
        let held = try await store.claimDueDeliveries(now: now.addingTimeInterval(2), capacity: Self.hook, orphanLimit: 0)
        #expect(held.isEmpty)
    }

    /// Every claim holds all silences in force against its alert: together,
    /// the regexes of those in force or ahead have a bound, as each has its
    /// own. An expired one counts no more, and neither does one replaced.
    @Test(arguments: StoreBackend.allCases) func theSilencesInForceHaveARegexBudgetTogether(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let now = Date()
        let costly = { (ahead: TimeInterval) in try self.silence(#"alertname="A""#, #"x=~"(?:a|b){1000}""#, from: now.addingTimeInterval(ahead)) }
        let fits = Silence.maxRegexStepsInForce / (try costly(0)).regexSteps
        var saved: [SilenceID] = []
        for i in 0..<fits {
            // Half of them still to start: those count too.
            guard case .saved(let s) = try await store.saveSilence(try costly(i % 2 == 0 ? 0 : 600), replacing: nil, now: now) else {
                Issue.record("silence \(i) of \(fits) refused"); return
            }
            saved.append(s.id)
        }
        guard case .tooCostly(let steps) = try await store.saveSilence(try costly(0), replacing: nil, now: now) else {
            Issue.record("one past the budget was saved"); return
        }
        #expect(steps > Silence.maxRegexStepsInForce)
        // Replacing one is no more costly than keeping it.
        guard case .saved(let replaced) = try await store.saveSilence(try costly(0), replacing: saved[0], now: now) else {
            Issue.record("a replacement was refused"); return
        }
        _ = try await store.expireSilence(id: replaced.id, now: now)
        guard case .saved = try await store.saveSilence(try costly(0), replacing: nil, now: now) else {
            Issue.record("an expired silence still counted"); return
        }
    }

    /// Saves a costly silence 20 s after `now`, when the ones saved at
    /// `now` have ended, then one at 5 s, when they have not: past the
    /// budget, whatever the store kept from the later save.
    func expectTheClockSetBackCounted(_ store: any AlertStore, costly: (Date) throws -> Silence, now: Date) async throws {
        let later = now.addingTimeInterval(20)
        guard case .saved = try await store.saveSilence(try costly(later), replacing: nil, now: later) else {
            Issue.record("refused once the others had ended"); return
        }
        let back = now.addingTimeInterval(5)
        guard case .tooCostly = try await store.saveSilence(try costly(back), replacing: nil, now: back) else {
            Issue.record("saved past the budget with the clock set back"); return
        }
    }

    /// The budget counts the silences not expired at the save's own time,
    /// even after saves at a later time (a clock set back): a store that
    /// keeps the budget and let go of the silences expired by then must not
    /// forget them.
    @Test(arguments: StoreBackend.allCases) func aClockSetBackCountsTheSilencesAgain(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let now = Date()
        let costly = { (at: Date) in try self.silence(#"alertname="A""#, #"x=~"(?:a|b){1000}""#, from: at, for: 10) }
        let fits = Silence.maxRegexStepsInForce / (try costly(now)).regexSteps
        for i in 0..<fits {
            guard case .saved = try await store.saveSilence(try costly(now), replacing: nil, now: now) else {
                Issue.record("silence \(i) of \(fits) refused"); return
            }
        }
        // Many more that end with them, so that a kept budget starts over once they have.
        for k in 0..<80 {
            _ = try await store.saveSilence(try silence(#"alertname="B\#(k)""#, from: now, for: 10), replacing: nil, now: now)
        }
        try await expectTheClockSetBackCounted(store, costly: costly, now: now)
    }

    /// Silences ending can file others anew under a key they now share,
    /// past the bound with nothing saved. A silence that adds nothing to
    /// what is in force is still taken then (every silence was refused, a
    /// plain one in an incident too); one that adds to it is not.
    @Test(arguments: StoreBackend.allCases) func pastTheBoundAfterOthersEndWhatAddsNothingIsTaken(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let now = Date()
        let k = 12
        func saved(_ matchers: String...) async throws -> SilenceID? {
            let s = Silence(matchers: try matchers.map { try LabelMatcher(parsing: $0) }, startsAt: now,
                            endsAt: now.addingTimeInterval(3600), createdBy: "alice", comment: "c")
            guard case .saved(let stored) = try await store.saveSilence(s, replacing: nil, now: now) else { return nil }
            return stored.id
        }
        // Each regex silence filed under its own `x`, which fewer share than `y`; together they cost one of them.
        for i in 0..<k { #expect(try await saved(#"a=~"(?:.*x){1000}""#, #"y="1""#, #"x="s\#(i)""#) != nil) }
        var plainY: [SilenceID] = []
        for j in 0..<2 { plainY.append(try #require(try await saved(#"y="1""#, #"t="\#(j)""#))) }
        for i in 0..<k { for j in 0..<k { _ = try await saved(#"x="s\#(i)""#, #"u="\#(j)""#) } }
        #expect(try await saved(#"probe="1""#) != nil)
        // The plain ones on `y` end: fewer share `y` now, and all twelve are filed under it, past the bound.
        for id in plainY { _ = try await store.expireSilence(id: id, now: now) }
        #expect(try await saved(#"alertname="DiskFull""#) != nil, "a plain silence was refused")
        #expect(try await saved(#"a=~"(?:.*x){1000}""#, #"y="1""#, #"x="s99""#) == nil, "one more past the bound was taken")
    }

    /// The same with the budget read from the table at the later time, as
    /// a restarted daemon reads it: the silences ended by then are not in
    /// what it read, and the earlier time must count them.
    @Test func aClockSetBackAfterARestartCountsTheSilencesAgain() async throws {
        let path = dir.path + "/budget.db"
        let now = Date()
        let costly = { (at: Date) in try self.silence(#"alertname="A""#, #"x=~"(?:a|b){1000}""#, from: at, for: 10) }
        do {
            let store = try SQLiteAlertStore(path: path)
            for _ in 0..<(Silence.maxRegexStepsInForce / (try costly(now)).regexSteps) {
                _ = try await store.saveSilence(try costly(now), replacing: nil, now: now)
            }
            store.close()
        }
        let store = try SQLiteAlertStore(path: path)
        try await expectTheClockSetBackCounted(store, costly: costly, now: now)
    }

    /// Regex silences that each start with their own text are held only
    /// against the alerts that have it: the budget counts what one alert
    /// costs, so 600 (the whole count refused the 543rd) are all saved,
    /// and each silences its own alert.
    @Test(arguments: StoreBackend.allCases) func regexSilencesFiledByTheirOwnStartFitTheBudget(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let now = Date()
        for k in 0..<600 {
            let s = try silence(#"instance=~"(web|db|cache|api)-\#(k)[0-9]*\.(prod|stage)\.example\.com:9100""#, #"alertname=~"(Disk|Cpu|Mem).*""#,
                                from: now.addingTimeInterval(-1))
            guard case .saved = try await store.saveSilence(s, replacing: nil, now: now) else {
                Issue.record("silence \(k) refused"); return
            }
        }
        let held = try labelled(["instance": "api-599.stage.example.com:9100", "alertname": "MemHigh"])
        let shown = try labelled(["instance": "api-600x.stage.example.com:9100", "alertname": "MemHigh"])
        _ = try await store.submit([AlertSubmission(alert: held, presenters: ["hook"]), AlertSubmission(alert: shown, presenters: ["hook"])])
        // Saving them took a while: the alerts are due from when they were made.
        let claimed = try await store.claimDueDeliveries(now: Date().addingTimeInterval(1), capacity: Self.hook, orphanLimit: 0)
        #expect(claimed.map(\.alert.id) == [shown.id])
    }

    @Test(arguments: StoreBackend.allCases) func silencesAreStoredListedChangedAndExpired(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let now = Date()
        let s = try silence(#"alertname="DiskFull""#, #"instance=~"db.*""#, from: now.addingTimeInterval(-60))
        guard case .saved(let saved) = try await store.saveSilence(s, replacing: nil, now: now) else { Issue.record("not saved"); return }
        // A start in the past is now.
        #expect(abs(saved.startsAt.timeIntervalSince(now)) < 0.01)
        #expect(saved.id == s.id)
        #expect(try await store.silence(id: s.id) == saved)
        #expect(try await store.silences().map(\.id) == [s.id])
        #expect(try await store.silence(id: SilenceID(rawValue: "nope")) == nil)

        // The same matchers: changed in place, an active one keeping its start.
        var longer = s
        longer.id = .generate()
        longer.endsAt = now.addingTimeInterval(7200)
        let later = now.addingTimeInterval(10)
        guard case .saved(let inPlace) = try await store.saveSilence(longer, replacing: s.id, now: later) else { Issue.record("not saved"); return }
        #expect(inPlace.id == s.id)
        #expect(abs(inPlace.startsAt.timeIntervalSince(now)) < 0.01)
        #expect(abs(inPlace.endsAt.timeIntervalSince(longer.endsAt)) < 0.01)

        // An active one asked to start later ends now, and a new one waits for its start
        // (`amtool silence update --start`): kept in place, it silenced from now on.
        var tomorrow = longer
        tomorrow.startsAt = now.addingTimeInterval(86_400)
        tomorrow.endsAt = now.addingTimeInterval(93_600)
        guard case .saved(let moved) = try await store.saveSilence(tomorrow, replacing: s.id, now: later) else { Issue.record("not saved"); return }
        #expect(moved.id != s.id)
        #expect(moved.state(at: later) == .pending)
        #expect(try await store.silence(id: s.id)?.state(at: later) == .expired)
        #expect(try await store.expireSilence(id: moved.id, now: later) != nil)

        // Other matchers: the old one expires and a new one takes over.
        let other = try silence(#"alertname="DiskFull""#, from: later)
        guard case .saved(let replaced) = try await store.saveSilence(other, replacing: s.id, now: later) else { Issue.record("not saved"); return }
        #expect(replaced.id != s.id)
        #expect(try await store.silence(id: s.id)?.state(at: later) == .expired)
        #expect(try await store.silences().count == 3)
        #expect(try await store.saveSilence(other, replacing: SilenceID(rawValue: "unknown"), now: later) == .notFound)

        // Expiring ends it now; expiring again changes nothing; unknown is nil.
        let expired = try #require(try await store.expireSilence(id: replaced.id, now: later.addingTimeInterval(5)))
        #expect(expired.state(at: later.addingTimeInterval(5)) == .expired)
        #expect(try await store.expireSilence(id: replaced.id, now: later.addingTimeInterval(50)) == expired)
        #expect(try await store.expireSilence(id: SilenceID(rawValue: "nope"), now: later) == nil)
        // A pending silence expired never starts.
        let window = try silence(#"alertname="DiskFull""#, from: now.addingTimeInterval(3600))
        _ = try await store.saveSilence(window, replacing: nil, now: now)
        let cancelled = try #require(try await store.expireSilence(id: window.id, now: now))
        #expect(cancelled.startsAt == cancelled.endsAt)
    }

    /// A silence's matchers are their values byte for byte, though Swift's
    /// `String` takes `café` composed and decomposed for one: changed from
    /// one to the other, a silence is a new one; read back, and saved again
    /// as it ends, it is what was sent; it holds only the alert it names.
    @Test(arguments: StoreBackend.allCases) func canonicallyEquivalentMatcherValuesAreTwoSilences(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        // Stored texts are decoded once per process: a run of its own keeps the texts new to it.
        let run = UUID().uuidString
        let (composedValue, decomposedValue) = ("caf\u{E9}", "cafe\u{301}")
        let composed = try labelled(["k": composedValue, "run": run])
        let decomposed = try labelled(["k": decomposedValue, "run": run])
        _ = try await store.submit([composed, decomposed].map { AlertSubmission(alert: $0, presenters: ["hook"]) })
        let now = Date()
        let on = { (value: String) throws in
            Silence(matchers: [try LabelMatcher(name: "k", .equal, value), try LabelMatcher(name: "run", .equal, run)],
                    startsAt: now.addingTimeInterval(-1), endsAt: now.addingTimeInterval(3600), createdBy: "alice", comment: "c")
        }
        let first = try on(composedValue)
        _ = try await store.saveSilence(first, replacing: nil, now: now)
        guard case .saved(let second) = try await store.saveSilence(try on(decomposedValue), replacing: first.id, now: now) else {
            Issue.record("not saved"); return
        }
        #expect(second.id != first.id, "other matchers: a new silence, the old one expired")
        let isDecomposed = { (s: Silence?) in s?.matchers.contains { $0.name == "k" && $0.value.utf8.elementsEqual(decomposedValue.utf8) } == true }
        #expect(isDecomposed(try await store.silence(id: second.id)))
        let claimed = try await store.claimDueDeliveries(now: now.addingTimeInterval(1), capacity: Self.hook, orphanLimit: 0)
        #expect(claimed.map(\.alert.id) == [composed.id])
        #expect(isDecomposed(try await store.expireSilence(id: second.id, now: now.addingTimeInterval(2))))
        #expect(isDecomposed(try await store.silence(id: second.id)))
    }

    @Test(arguments: StoreBackend.allCases) func anActiveSilenceHoldsMatchingDeliveriesUntilItEnds(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let now = Date()
        let s = try silence(#"alertname="DiskFull""#, from: now, for: 600)
        _ = try await store.saveSilence(s, replacing: nil, now: now)
        let silenced = try labelled(["alertname": "DiskFull", "instance": "db1"], at: now)
        let other = try labelled(["alertname": "CPUHot"], at: now)
        _ = try await store.submit([AlertSubmission(alert: silenced, presenters: ["hook"]), AlertSubmission(alert: other, presenters: ["hook"])])

        let claimed = try await store.claimDueDeliveries(now: now.addingTimeInterval(1), capacity: Self.hook, orphanLimit: 0)
        #expect(claimed.map(\.alert.id) == [other.id])
        let held = try #require(try await store.record(id: silenced.id)).deliveries[0]
        #expect(held.state == .pending)
        #expect(held.attempts == 0)
        #expect(held.silencedBy == s.id)
        #expect(held.nextAttemptAt.map { abs($0.timeIntervalSince(s.endsAt)) < 0.01 } == true)
        #expect(try await store.counts().silencedDeliveries == 1)
        let events = try await store.events(after: 0, limit: 100)
        let event = try #require(events.first { $0.kind == .deliverySilenced })
        #expect(event.alertID == silenced.id)
        #expect(event.data["silence_id"] == s.id.rawValue)
        #expect(event.data["until"] != nil)
        // Nothing is due until the silence ends.
        #expect(try await store.claimDueDeliveries(now: now.addingTimeInterval(300), capacity: Self.hook, orphanLimit: 0).isEmpty)
        let after = s.endsAt.addingTimeInterval(1)
        let released = try await store.claimDueDeliveries(now: after, capacity: Self.hook, orphanLimit: 0)
        #expect(released.map(\.alert.id) == [silenced.id])
        #expect(released.first?.delivery.attempts == 1)
        #expect(try await store.counts().silencedDeliveries == 1)
    }

    /// A delivery once held and then tried is held no more: its holder went
    /// with the claim. Kept, a failed retry looked held by the old silence,
    /// a recovered presenter's catch-up left it waiting out its backoff, and
    /// its alert closing withheld it for good, as if never tried.
    @Test(arguments: StoreBackend.allCases) func aDeliveryTriedAfterItsSilenceIsNoLongerHeldByIt(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let t = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let capacity: [DeliveryKind: Int] = [.presenter("hook"): 8]
        let silence = Silence(matchers: [try LabelMatcher(parsing: "team=\"x\"")], startsAt: t, endsAt: t.addingTimeInterval(600),
                              createdBy: "alice", comment: "maintenance")
        guard case .saved(let saved) = try await store.saveSilence(silence, replacing: nil, now: t) else { Issue.record("not saved"); return }
        let a = Alert(spec: try spec("a", labels: ["team": "x"]), at: t)
        _ = try await store.submit([AlertSubmission(alert: a, presenters: ["hook"])])
        #expect(try await store.claimDueDeliveries(now: t.addingTimeInterval(1), capacity: capacity, orphanLimit: 0).isEmpty)
        _ = try await store.expireSilence(id: saved.id, now: t.addingTimeInterval(2))
        let claimed = try await store.claimDueDeliveries(now: t.addingTimeInterval(3), capacity: capacity, orphanLimit: 0)
        let d = try #require(claimed.first?.delivery)
        #expect(d.silencedBy == nil)
        try await store.settle([DeliverySettlement(d, result: .retry(at: t.addingTimeInterval(3_600), error: "down"), at: t.addingTimeInterval(4))])
        #expect(try await store.record(id: a.id)?.deliveries.first?.silencedBy == nil)
        #expect(try await store.hastenRetries(of: .presenter("hook"), now: t.addingTimeInterval(5)) == 1)
        // Its alert closes: tried once, the retry goes out, not withheld.
        _ = try await store.decide(a.id, AlertDecision(outcome: .resolved, actor: "t", at: t.addingTimeInterval(6)))
        let retried = try await store.claimDueDeliveries(now: t.addingTimeInterval(7), capacity: capacity, orphanLimit: 0)
        #expect(retried.map(\.delivery.id) == [d.id])
    }

    @Test(arguments: StoreBackend.allCases) func expiringASilenceReleasesWhatItHeldAtOnce(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let now = Date()
        let s = try silence(#"instance=~"db[0-9]+""#, from: now)
        _ = try await store.saveSilence(s, replacing: nil, now: now)
        let a = try labelled(["instance": "db12"], at: now)
        _ = try await store.submit([AlertSubmission(alert: a, presenters: ["hook"])])
        #expect(try await store.claimDueDeliveries(now: now.addingTimeInterval(1), capacity: Self.hook, orphanLimit: 0).isEmpty)
        let expiredAt = now.addingTimeInterval(30)
        _ = try await store.expireSilence(id: s.id, now: expiredAt)
        #expect(try await store.nextDueTime().map { abs($0.timeIntervalSince(expiredAt)) < 0.01 } == true)
        #expect(try await store.claimDueDeliveries(now: expiredAt, capacity: Self.hook, orphanLimit: 0).map(\.alert.id) == [a.id])
    }

    @Test(arguments: StoreBackend.allCases) func aDeliveryHeldUntilItsAlertClosedIsNeverMade(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let now = Date()
        let s = try silence(#"alertname="DiskFull""#, from: now, for: 60)
        _ = try await store.saveSilence(s, replacing: nil, now: now)
        let a = try labelled(["alertname": "DiskFull"], at: now)
        _ = try await store.submit([AlertSubmission(alert: a, presenters: ["hook"])])
        #expect(try await store.claimDueDeliveries(now: now.addingTimeInterval(1), capacity: Self.hook, orphanLimit: 0).isEmpty)
        _ = try await store.decide(a.id, AlertDecision(outcome: .resolved, actor: "prometheus", at: now.addingTimeInterval(10)))
        // Withheld as the alert closes, not when the silence ends: until then
        // it read as pending, and counted in the backlog.
        let closed = try #require(try await store.record(id: a.id))
        #expect(closed.deliveries.map(\.state) == [.silenced])
        #expect(try await store.counts().pending == 0)
        let said = try await store.events(after: 0, limit: 100).filter { $0.kind == .deliverySilenced }
        #expect(said.count == 2, "held at the claim, withheld as it closed")
        #expect(try await store.claimDueDeliveries(now: s.endsAt.addingTimeInterval(1), capacity: Self.hook, orphanLimit: 0).isEmpty)
        let d = try #require(try await store.record(id: a.id)).deliveries[0]
        #expect(d.state == .silenced)
        #expect(d.silencedBy == s.id)
        #expect(try await store.counts().pending == 0)
        #expect(try await store.counts().silencedDeliveries == 1)
        #expect(try await store.nextDueTime() == nil)
        // Settled for good, so the alert can be pruned like any other.
        #expect(try await store.prune(closedBefore: Date().addingTimeInterval(3600), limit: 10) == 1)
    }

    @Test(arguments: StoreBackend.allCases) func aMaintenanceWindowHoldsNothingBeforeItStartsAndHandlerCallsAreNeverHeld(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let now = Date()
        let window = try silence(#"env!="dev""#, #"alertname=~"Disk.*""#, from: now.addingTimeInterval(600))
        _ = try await store.saveSilence(window, replacing: nil, now: now)
        let early = try labelled(["alertname": "DiskFull", "env": "prod"], at: now)
        _ = try await store.submit([AlertSubmission(alert: early, presenters: ["hook"])])
        #expect(try await store.claimDueDeliveries(now: now.addingTimeInterval(1), capacity: Self.hook, orphanLimit: 0).count == 1)

        let during = now.addingTimeInterval(700)
        let asking = Alert(spec: try AlertSpec.Builder().title("Deploy?").labels(["alertname": "DiskFull"])
            .confirm("Go", handler: "https://ci.example/go").build().get(), at: during)
        let dev = Alert(spec: try AlertSpec.Builder().title("dev").labels(["alertname": "DiskFull", "env": "dev"]).build().get(), at: during)
        _ = try await store.submit([AlertSubmission(alert: asking, presenters: ["hook"]), AlertSubmission(alert: dev, presenters: ["hook"])])
        let claimed = try await store.claimDueDeliveries(now: during, capacity: Self.hook.merging([.handler(.confirm): 1]) { a, _ in a }, orphanLimit: 0)
        #expect(claimed.map(\.alert.id) == [dev.id])
        _ = try await store.decide(asking.id, AlertDecision(outcome: .confirmed, actor: "uid:0", at: during))
        let calls = try await store.claimDueDeliveries(now: during, capacity: [.handler(.confirm): 1], orphanLimit: 0)
        #expect(calls.map(\.delivery.kind) == [.handler(.confirm)])
    }

    @Test(arguments: StoreBackend.allCases) func silencesThatEndedBeforeTheCutoffArePruned(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let now = Date()
        let old = try silence(#"alertname="A""#, from: now.addingTimeInterval(-100 * 86_400), for: 3600)
        let current = try silence(#"alertname="B""#, from: now)
        _ = try await store.saveSilence(old, replacing: nil, now: old.startsAt)
        _ = try await store.saveSilence(current, replacing: nil, now: now)
        _ = try await store.prune(closedBefore: now.addingTimeInterval(-30 * 86_400), limit: 10)
        #expect(try await store.silences().map(\.id) == [current.id])
    }
}

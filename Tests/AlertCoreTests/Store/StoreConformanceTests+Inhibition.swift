import Foundation
import Testing
@testable import AlertModel
@testable import AlertdStore
@testable import AlertdSQLiteStore

/// Inhibition on every backend: a delivery an open source inhibits is held
/// under the source as it is claimed; closing the source releases it in the
/// closing transaction; a target that closes while held is withheld.
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.allCases) func anOpenSourceHoldsItsTargetsAndClosingItReleasesThem(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let rule = InhibitRule(sourceMatchers: [try LabelMatcher(parsing: "alertname=\"NodeDown\"")],
                               targetMatchers: [try LabelMatcher(parsing: "alertname=\"DiskSlow\"")], equal: ["instance"])
        let capacity: [DeliveryKind: Int] = [.presenter("hook"): 8]
        let source = Alert(spec: try spec("node down", labels: ["alertname": "NodeDown", "instance": "a"]))
        let target = Alert(spec: try spec("disk slow", labels: ["alertname": "DiskSlow", "instance": "a"]))
        let elsewhere = Alert(spec: try spec("disk slow", labels: ["alertname": "DiskSlow", "instance": "b"]))
        let closesFirst = Alert(spec: try spec("disk slow too", labels: ["alertname": "DiskSlow", "instance": "a"]))
        _ = try await store.submit([source, target, elsewhere, closesFirst].map { AlertSubmission(alert: $0, presenters: ["hook"]) })

        let now = Date()
        let claimed = try await store.claimDueDeliveries(now: now, capacity: capacity, orphanLimit: 0, inhibitRules: [rule])
        #expect(Set(claimed.map(\.alert.id)) == [source.id, elsewhere.id])
        let held = try #require(try await store.record(id: target.id)?.deliveries.first)
        #expect(held.state == .pending)
        #expect(held.silencedBy == .inhibition(by: source.id))
        #expect((held.nextAttemptAt ?? now) > now)
        // Held, it is not due again while the source is open.
        #expect(try await store.claimDueDeliveries(now: now, capacity: capacity, orphanLimit: 0, inhibitRules: [rule]).isEmpty)

        _ = try await store.decide(closesFirst.id, AlertDecision(outcome: .resolved, actor: "t", at: now))
        _ = try await store.decide(source.id, AlertDecision(outcome: .resolved, actor: "t", at: now))
        let released = try await store.claimDueDeliveries(now: now.addingTimeInterval(0.01), capacity: capacity, orphanLimit: 0,
                                                          inhibitRules: [rule])
        #expect(released.map(\.alert.id) == [target.id])
        #expect(try await store.record(id: closesFirst.id)?.deliveries.first?.state == .silenced)
    }

    /// A source whose `resolves_at` has passed but is still open (maintenance
    /// late, or the grace after a restart for Prometheus to send again)
    /// holds its target past now, not until a moment already gone: SQLite
    /// read the held target again on every page of the claim, 16 events
    /// a poll, and never reached the delivery due after it.
    @Test(arguments: StoreBackend.allCases) func aSourcePastItsResolveTimeHoldsItsTargetWithoutStarvingTheQueue(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let rule = InhibitRule(sourceMatchers: [try LabelMatcher(parsing: "alertname=\"NodeDown\"")],
                               targetMatchers: [try LabelMatcher(parsing: "alertname=\"DiskSlow\"")], equal: ["instance"])
        let now = Date()
        let source = Alert(spec: try spec("node down", labels: ["alertname": "NodeDown", "instance": "a"]),
                           at: now.addingTimeInterval(-300), resolvesAt: now.addingTimeInterval(-60))
        let target = Alert(spec: try spec("disk slow", labels: ["alertname": "DiskSlow", "instance": "a"]), at: now.addingTimeInterval(-200))
        let other = Alert(spec: try spec("other", labels: ["alertname": "Other"]), at: now.addingTimeInterval(-10))
        _ = try await store.submit([AlertSubmission(alert: source, presenters: []), AlertSubmission(alert: target, presenters: ["hook"]),
                                    AlertSubmission(alert: other, presenters: ["hook"])])
        let claimed = try await store.claimDueDeliveries(now: now, capacity: [.presenter("hook"): 1], orphanLimit: 0, inhibitRules: [rule])
        #expect(claimed.map(\.alert.id) == [other.id], "the delivery due after the held one is claimed")
        let held = try #require(try await store.record(id: target.id)?.deliveries.first)
        #expect(held.silencedBy == .inhibition(by: source.id))
        #expect((held.nextAttemptAt ?? now) > now)
        let events = try await store.events(after: 0, limit: 1_000).filter { $0.kind == .deliverySilenced }
        #expect(events.count == 1, "one hold, one event")
    }

    /// Two alerts that each match both sides of a rule (a `critical` holds
    /// back a `critical`) do not hold each other back, as in Alertmanager;
    /// one that matches the source side only still holds them.
    @Test(arguments: StoreBackend.allCases) func alertsMatchingBothSidesDoNotHoldEachOtherBack(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let rule = InhibitRule(sourceMatchers: [try LabelMatcher(parsing: "severity=~\"critical|page\"")],
                               targetMatchers: [try LabelMatcher(parsing: "severity=~\"warning|critical\"")], equal: ["alertname"])
        let capacity: [DeliveryKind: Int] = [.presenter("hook"): 8]
        var now = Date()
        func alert(_ severity: String, _ name: String = "Disk") throws -> Alert {
            now = now.addingTimeInterval(0.01)
            return Alert(spec: try spec(severity, labels: ["alertname": name, "severity": severity]), at: now)
        }
        let x = try alert("critical"), y = try alert("critical"), warning = try alert("warning")
        _ = try await store.submit([x, y, warning].map { AlertSubmission(alert: $0, presenters: ["hook"]) })
        let claimed = try await store.claimDueDeliveries(now: now, capacity: capacity, orphanLimit: 0, inhibitRules: [rule])
        #expect(Set(claimed.map(\.alert.id)) == [x.id, y.id])
        #expect(try await store.record(id: warning.id)?.deliveries.first?.silencedBy == .inhibition(by: x.id))

        // A page matches the source side alone: it holds the criticals back.
        let page = try alert("page", "Net"), critical = try alert("critical", "Net")
        _ = try await store.submit([page, critical].map { AlertSubmission(alert: $0, presenters: ["hook"]) })
        let more = try await store.claimDueDeliveries(now: now, capacity: capacity, orphanLimit: 0, inhibitRules: [rule])
        #expect(more.map(\.alert.id) == [page.id])
        #expect(try await store.record(id: critical.id)?.deliveries.first?.silencedBy == .inhibition(by: page.id))
    }

    /// Sources found by each rule's `name="value"` labels (a store may
    /// read only those alerts): values that JSON escapes, two labels both
    /// required, and a rule whose sources only a regex names, for which
    /// every open alert may be one.
    @Test(arguments: StoreBackend.allCases) func sourcesAreFoundByEveryKindOfRule(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let plain = InhibitRule(sourceMatchers: [try LabelMatcher(parsing: #"alertname="Switch \"core\" é/1""#),
                                                 try LabelMatcher(parsing: #"env="prod""#)],
                                targetMatchers: [try LabelMatcher(parsing: #"alertname="NodeDown""#)], equal: ["rack"])
        let regex = InhibitRule(sourceMatchers: [try LabelMatcher(parsing: #"alertname=~"Power.*""#)],
                                targetMatchers: [try LabelMatcher(parsing: #"alertname="DiskSlow""#)], equal: ["rack"])
        let capacity: [DeliveryKind: Int] = [.presenter("hook"): 8]
        var now = Date()
        func alert(_ labels: [String: String]) throws -> Alert { Alert(spec: try spec("x", labels: labels), at: now) }
        func claim(_ alerts: [Alert], under rules: [InhibitRule]) async throws -> [AlertID] {
            _ = try await store.submit(alerts.map { AlertSubmission(alert: $0, presenters: ["hook"]) })
            now = now.addingTimeInterval(0.01)
            return try await store.claimDueDeliveries(now: now, capacity: capacity, orphanLimit: 0, inhibitRules: rules).map(\.alert.id)
        }
        // Labels alone name the sources.
        let switchDown = try alert(["alertname": #"Switch "core" é/1"#, "env": "prod", "rack": "7"])
        let notASource = try alert(["alertname": #"Switch "core" é/1"#, "env": "dev", "rack": "8"])
        #expect(try await claim([switchDown, notASource], under: [plain]).count == 2)
        let held = try alert(["alertname": "NodeDown", "rack": "7"])
        let free = try alert(["alertname": "NodeDown", "rack": "8"])
        #expect(try await claim([held, free], under: [plain]) == [free.id])
        #expect(try await store.record(id: held.id)?.deliveries.first?.silencedBy == .inhibition(by: switchDown.id))

        // A regex alone names them.
        let power = try alert(["alertname": "PowerLost", "rack": "9"])
        #expect(try await claim([power], under: [plain, regex]) == [power.id])
        let heldByRegex = try alert(["alertname": "DiskSlow", "rack": "9"])
        let alsoHeld = try alert(["alertname": "NodeDown", "rack": "7"])
        #expect(try await claim([heldByRegex, alsoHeld], under: [plain, regex]).isEmpty)
        #expect(try await store.record(id: heldByRegex.id)?.deliveries.first?.silencedBy == .inhibition(by: power.id))
        #expect(try await store.record(id: alsoHeld.id)?.deliveries.first?.silencedBy == .inhibition(by: switchDown.id))
    }

    /// A reload that changes the rules calls `releaseInhibited`: what an
    /// inhibition holds is due at once and screened by the rules in force
    /// at the next claim; what a silence holds stays held.
    @Test(arguments: StoreBackend.allCases) func releasingInhibitionsMakesOnlyTheirTargetsDue(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let rule = InhibitRule(sourceMatchers: [try LabelMatcher(parsing: "alertname=\"SwitchDown\"")],
                               targetMatchers: [try LabelMatcher(parsing: "alertname=\"NodeDown\"")], equal: ["rack"])
        let capacity: [DeliveryKind: Int] = [.presenter("hook"): 8]
        let silence = try silence(#"instance="quiet""#)
        guard case .saved = try await store.saveSilence(silence, replacing: nil, now: Date()) else { Issue.record("silence not saved"); return }
        let source = Alert(spec: try spec("switch down", labels: ["alertname": "SwitchDown", "rack": "7"]))
        let target = Alert(spec: try spec("node down", labels: ["alertname": "NodeDown", "rack": "7"]))
        let silenced = Alert(spec: try spec("quiet one", labels: ["alertname": "Other", "instance": "quiet"]))
        _ = try await store.submit([source, target, silenced].map { AlertSubmission(alert: $0, presenters: ["hook"]) })
        let now = Date().addingTimeInterval(0.01)
        let claimed = try await store.claimDueDeliveries(now: now, capacity: capacity, orphanLimit: 0, inhibitRules: [rule])
        #expect(claimed.map(\.alert.id) == [source.id])

        try await store.releaseInhibited(now: now.addingTimeInterval(0.01))
        // The rule is gone: the target goes out, the silenced one still waits.
        let released = try await store.claimDueDeliveries(now: now.addingTimeInterval(0.02), capacity: capacity, orphanLimit: 0,
                                                          inhibitRules: [])
        #expect(released.map(\.alert.id) == [target.id])
        #expect(try await store.record(id: silenced.id)?.deliveries.first?.silencedBy == silence.id)
    }

    /// Sources a store keeps between claims (the SQLite store's
    /// `InhibitionSources`) follow what opens, closes and is pruned after
    /// the first claim read them, and a hold lasts until the source's
    /// `resolves_at` as its latest re-send moved it.
    @Test(arguments: StoreBackend.allCases) func sourcesFollowWhatOpensClosesAndIsPrunedBetweenClaims(_ backend: StoreBackend) async throws {
        let store = try backend.make(in: dir)
        let rule = InhibitRule(sourceMatchers: [try LabelMatcher(parsing: "alertname=\"NodeDown\"")],
                               targetMatchers: [try LabelMatcher(parsing: "alertname=\"DiskSlow\"")], equal: ["instance"])
        let capacity: [DeliveryKind: Int] = [.presenter("hook"): 8]
        var now = Date()
        func claim() async throws -> Set<AlertID> {
            // Never behind the wall clock, which stamps the alerts (a parallel run can stall the test for a second).
            now = max(now.addingTimeInterval(0.01), Date())
            return Set(try await store.claimDueDeliveries(now: now, capacity: capacity, orphanLimit: 0, inhibitRules: [rule]).map(\.alert.id))
        }
        func submit(_ alerts: Alert...) async throws {
            _ = try await store.submit(alerts.map { AlertSubmission(alert: $0, presenters: ["hook"]) })
        }
        func heldBy(_ alert: Alert) async throws -> SilenceID? {
            try await store.record(id: alert.id)?.deliveries.first?.silencedBy
        }
        // The first claim that screens anything reads the sources: none yet.
        let unrelated = Alert(spec: try spec("unrelated", labels: ["alertname": "Other"]))
        try await submit(unrelated)
        #expect(try await claim() == [unrelated.id])

        // A source opened after it holds its target.
        let source = Alert(spec: try spec("node down", labels: ["alertname": "NodeDown", "instance": "a"]))
        try await submit(source)
        #expect(try await claim() == [source.id])
        let target = Alert(spec: try spec("disk slow", labels: ["alertname": "DiskSlow", "instance": "a"]))
        try await submit(target)
        #expect(try await claim().isEmpty)
        #expect(try await heldBy(target) == .inhibition(by: source.id))

        // Closed, it holds nothing more.
        _ = try await store.decide(source.id, AlertDecision(outcome: .resolved, actor: "t", at: now))
        #expect(try await claim() == [target.id])
        let later = Alert(spec: try spec("disk slow again", labels: ["alertname": "DiskSlow", "instance": "a"]))
        try await submit(later)
        #expect(try await claim() == [later.id])

        // The newest alert, seen by a claim, closed and pruned: SQLite may
        // give its rowid to the next.
        let marker = Alert(spec: try spec("marker", labels: ["alertname": "Other"]))
        try await submit(marker)
        let filler = Alert(spec: try spec("filler", labels: ["alertname": "Other"]))
        _ = try await store.submit([AlertSubmission(alert: filler, presenters: [])])
        #expect(try await claim() == [marker.id])
        _ = try await store.decide(filler.id, AlertDecision(outcome: .resolved, actor: "t", at: now))
        #expect(try await store.prune(closedBefore: now.addingTimeInterval(60), limit: 100) >= 1)
        let second = Alert(spec: try spec("node down", labels: ["alertname": "NodeDown", "instance": "b"]))
        try await submit(second)
        #expect(try await claim() == [second.id])
        let secondTarget = Alert(spec: try spec("disk slow", labels: ["alertname": "DiskSlow", "instance": "b"]))
        try await submit(secondTarget)
        #expect(try await claim().isEmpty)
        #expect(try await heldBy(secondTarget) == .inhibition(by: second.id))

        // A source that resolves by itself holds until its latest `resolves_at`.
        let first = Alert(spec: try spec("node down", dedup: "node-c", labels: ["alertname": "NodeDown", "instance": "c"]),
                          at: now, resolvesAt: now.addingTimeInterval(60))
        try await submit(first)
        #expect(try await claim() == [first.id])
        let resent = Alert(spec: try spec("node down", dedup: "node-c", labels: ["alertname": "NodeDown", "instance": "c"]),
                           at: now, resolvesAt: now.addingTimeInterval(600))
        try await submit(resent)
        let thirdTarget = Alert(spec: try spec("disk slow", labels: ["alertname": "DiskSlow", "instance": "c"]))
        try await submit(thirdTarget)
        #expect(try await claim().isEmpty)
        let held = try #require(try await store.record(id: thirdTarget.id)?.deliveries.first)
        #expect(held.silencedBy == .inhibition(by: first.id))
        #expect(held.nextAttemptAt.map { abs($0.timeIntervalSince(now.addingTimeInterval(600))) < 1 } == true)
    }
}

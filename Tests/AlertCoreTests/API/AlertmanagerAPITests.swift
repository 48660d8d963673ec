import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdStore
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdSQLiteStore

/// Alertmanager's API on alertd's router, over an in-memory store: what
/// Prometheus, amtool and an Alertmanager webhook get back.
@Suite struct AlertmanagerAPITests {
    let store = InMemoryAlertStore()
    let metrics = DaemonMetrics()
    var router: APIRouter { APIFixture.router(store: store, token: APIFixture.token, metrics: metrics) }

    func post(_ path: String, _ json: String, as caller: APIFixture.Caller = .socket) async -> HTTPResponse {
        await router.handle(APIFixture.request("POST", path, json: json, as: caller))
    }

    func get(_ target: String) async -> HTTPResponse {
        await router.handle(APIFixture.request("GET", target))
    }

    func openAlerts() async throws -> [Alert] {
        await store.alerts(matching: AlertQuery(state: .open, limit: 100)).alerts
    }

    /// A body that is one JSON string: Alertmanager's error shape.
    func message(_ r: HTTPResponse) -> String? {
        try? JSONDecoder().decode(String.self, from: APIFixture.body(r))
    }

    static let diskFull = """
        {"labels": {"alertname": "DiskFull", "instance": "db1", "severity": "page"},
         "annotations": {"summary": "Disk full on db1", "description": "/var is at 99%", "runbook_url": "https://wiki.example/disk"},
         "startsAt": "2026-05-05T12:00:00.123456789+02:00", "endsAt": "2099-01-01T00:00:00Z",
         "generatorURL": "http://prometheus:9090/graph?g0.expr=up"}
        """

    @Test func prometheusAlertsBecomeAlertdAlertsAndResendsFoldIntoThem() async throws {
        for _ in 0..<3 {
            let r = await post("/api/v2/alerts", "[\(Self.diskFull)]")
            #expect(r.status == 200)
        }
        let alerts = try await openAlerts()
        #expect(alerts.count == 1)
        let spec = try #require(alerts.first?.spec)
        #expect(spec.title == "Disk full on db1")
        #expect(spec.message == "/var is at 99%\n\nrunbook_url: https://wiki.example/disk")
        #expect(spec.severity == .critical)
        #expect(spec.dedupKey == "e82e2fac3af581ca")
        #expect(spec.labels == ["alertname": "DiskFull", "instance": "db1", "severity": "page",
                                "generator_url": "http://prometheus:9090/graph?g0.expr=up"])
        let text = metrics.render(counts: nil)
        #expect(text.contains(#"alertd_alerts_received_total{front_door="alertmanager_api"} 1"#))
        #expect(text.contains(#"alertd_alerts_deduplicated_total{front_door="alertmanager_api"} 2"#))
    }

    /// A label with an empty value is dropped, as Alertmanager drops it:
    /// the fingerprint is Alertmanager's own (e22a9d43307139ee, as a real
    /// Alertmanager 0.25 computed it for this alert).
    @Test func anEmptyLabelIsNoLabel() async throws {
        #expect(await post("/api/v2/alerts", #"[{"labels": {"alertname": "E1", "e": ""}}]"#).status == 200)
        let spec = try #require(try await openAlerts().first?.spec)
        #expect(spec.labels == ["alertname": "E1"])
        #expect(spec.dedupKey == "e22a9d43307139ee")
    }

    /// A sender cannot take a Prometheus alert's place with a native alert
    /// keyed by its fingerprint: the real one would fold into the decoy
    /// (routed by the decoy's labels and severity), or resolve a native alert.
    @Test func aNativeAlertCannotUseAPrometheusFingerprintAsItsKey() async throws {
        let decoy = await post("/v1/alerts", #"{"title": "harmless", "severity": "info", "dedup_key": "e82e2fac3af581ca"}"#)
        #expect(decoy.status == 422)
        #expect(String(decoding: APIFixture.body(decoy), as: UTF8.self).contains("reserved_dedup_key"))
        let fine = await post("/v1/alerts", #"{"title": "fine", "dedup_key": "E82E2FAC3AF581CA"}"#)
        #expect(fine.status == 202)
        #expect(await post("/api/v2/alerts", "[\(Self.diskFull)]").status == 200)
        let alerts = try await openAlerts()
        #expect(Set(alerts.compactMap(\.spec.dedupKey)) == ["e82e2fac3af581ca", "E82E2FAC3AF581CA"])
        #expect(alerts.first { $0.spec.dedupKey == "e82e2fac3af581ca" }?.spec.title == "Disk full on db1")
    }

    /// Native alerts are one by their dedup key or id, not their labels:
    /// those without labels all had the empty set's fingerprint, and the
    /// groups listing showed them as one alert's group.
    @Test func nativeAlertsWithTheSameLabelsHaveFingerprintsOfTheirOwn() async throws {
        for body in [#"{"title": "a"}"#, #"{"title": "b"}"#, #"{"title": "c", "labels": {"team": "db"}, "dedup_key": "c"}"#,
                     #"{"title": "d", "labels": {"team": "db"}, "dedup_key": "d"}"#] {
            #expect(await post("/v1/alerts", body).status == 202)
        }
        #expect(await post("/api/v2/alerts", "[\(Self.diskFull)]").status == 200)
        let listed = try #require(try JSONSerialization.jsonObject(with: APIFixture.body(await get("/api/v2/alerts"))) as? [[String: Any]])
        let fingerprints = listed.compactMap { $0["fingerprint"] as? String }
        #expect(fingerprints.count == 5)
        #expect(Set(fingerprints).count == 5, "\(fingerprints)")
        // Alertmanager's own alert keeps Alertmanager's fingerprint.
        #expect(fingerprints.contains("e82e2fac3af581ca"))
        let intake = AlertIntake(store: store, settings: .init(router: AlertRouter(routes: [], defaultRoute: RouteDefinition(presenters: ["log"])),
                                                               limits: .default), onAccepted: { _ in })
        let grouping = APIRouter.alertd(intake: intake, store: store, onReplay: {}, dispatcherRunning: { true }, links: nil,
                                        metrics: metrics, authenticator: APIAuthenticator(token: APIFixture.token))
        let groups = try #require(try JSONSerialization.jsonObject(
            with: APIFixture.body(await grouping.handle(APIFixture.request("GET", "/api/v2/alerts/groups")))) as? [[String: Any]])
        #expect(groups.map { ($0["alerts"] as? [Any])?.count ?? 0 } == [1, 1, 1, 1, 1])
        // The same alert keeps its fingerprint from one listing to the next.
        let again = try #require(try JSONSerialization.jsonObject(with: APIFixture.body(await get("/api/v2/alerts"))) as? [[String: Any]])
        #expect(Set(again.compactMap { $0["fingerprint"] as? String }) == Set(fingerprints))
    }

    @Test func aResolvedAlertResolvesTheOpenOneAndOpensNothing() async throws {
        _ = await post("/api/v2/alerts", "[\(Self.diskFull)]")
        // Ended after it started (Alertmanager refuses the other way round), and before now.
        let resolved = Self.diskFull.replacingOccurrences(of: "2099-01-01T00:00:00Z", with: "2026-05-06T00:00:00Z")
        #expect(await post("/api/v2/alerts", "[\(resolved)]").status == 200)
        #expect(try await openAlerts().isEmpty)
        let all = await store.alerts(matching: AlertQuery(limit: 10)).alerts
        #expect(all.map(\.state) == [.resolved])
        #expect(all.first?.decision?.actor == "alertmanager-api")
        // Resolving again, or something never seen, is nothing to do.
        #expect(await post("/api/v2/alerts", "[\(resolved)]").status == 200)
        #expect(await store.alerts(matching: AlertQuery(limit: 10)).alerts.count == 1)
    }

    /// Alertmanager's API has no `status`: a postable alert ends by its
    /// `endsAt` alone, and a `status` in it is ignored, as Alertmanager
    /// ignores it (its webhook's alerts carry one; that route reads it).
    @Test func aStatusOnThePostableAlertIsIgnored() async throws {
        _ = await post("/api/v2/alerts", "[\(Self.diskFull)]")
        let said = Self.diskFull.replacingOccurrences(of: "\"startsAt\"", with: "\"status\": \"resolved\", \"startsAt\"")
        #expect(said.contains("\"status\": \"resolved\""))
        #expect(await post("/api/v2/alerts", "[\(said)]").status == 200)
        #expect(try await openAlerts().count == 1)
        let bogus = Self.diskFull.replacingOccurrences(of: "\"startsAt\"", with: "\"status\": \"bogus\", \"startsAt\"")
        #expect(await post("/api/v2/alerts", "[\(bogus)]").status == 200)
        #expect(try await openAlerts().count == 1)
        // The webhook's alerts have one, and it is checked.
        let r = await post("/v1/ingest/alertmanager", #"{"version": "4", "alerts": [{"labels": {"a": "1"}, "status": "pending"}]}"#, as: .tcpWithToken)
        #expect(r.status == 400)
        #expect(String(decoding: APIFixture.body(r), as: UTF8.self).contains("alert 0 has `status` that is neither firing nor resolved"))
    }

    /// The same alert resolved and firing in one batch: the later says what
    /// stands, as in Alertmanager (resolves were taken after every firing one).
    @Test func inOneBatchTheLaterOfOneAlertsStatesStands() async throws {
        let resolved = Self.diskFull.replacingOccurrences(of: "2099-01-01T00:00:00Z", with: "2026-05-06T00:00:00Z")
        #expect(await post("/api/v2/alerts", "[\(resolved), \(Self.diskFull)]").status == 200)
        #expect(try await openAlerts().count == 1)
        #expect(await post("/api/v2/alerts", "[\(Self.diskFull), \(resolved)]").status == 200)
        #expect(try await openAlerts().isEmpty)
    }

    @Test func aFiringAlertsEndsAtIsWhenItResolvesAndEachResendMovesIt() async throws {
        let ends = Date().addingTimeInterval(240)
        let firing = Self.diskFull.replacingOccurrences(of: "2099-01-01T00:00:00Z", with: UTCTimestamp.iso8601(ends))
        #expect(await post("/api/v2/alerts", "[\(firing)]").status == 200)
        let first = try #require(try await openAlerts().first?.resolvesAt)
        #expect(abs(first.timeIntervalSince(ends)) < 0.01)
        let later = ends.addingTimeInterval(60)
        // Apart enough that the re-send's time is not the first post's.
        try await Task.sleep(for: .milliseconds(20))
        #expect(await post("/api/v2/alerts", "[\(Self.diskFull.replacingOccurrences(of: "2099-01-01T00:00:00Z", with: UTCTimestamp.iso8601(later)))]").status == 200)
        let moved = try #require(try await openAlerts().first?.resolvesAt)
        #expect(abs(moved.timeIntervalSince(later)) < 0.01)
        // Alertmanager's own view says the same, and its updatedAt is the re-send's, as Alertmanager's is.
        let listed = try #require(try JSONSerialization.jsonObject(with: APIFixture.body(await get("/api/v2/alerts"))) as? [[String: Any]])
        #expect(listed.first?["endsAt"] as? String == UTCTimestamp.iso8601(later))
        let seen = try #require(try await openAlerts().first?.repeats?.lastSeenAt)
        let updatedText = try #require(listed.first?["updatedAt"] as? String)
        let updated = try #require(RFC3339.parse(updatedText))
        #expect(abs(updated.timeIntervalSince(seen)) < 0.001, "\(updated) against \(seen)")
        #expect(try #require(try await openAlerts().first?.updatedAt).distance(to: seen) > 0.01)
        // Maintenance resolves it once that has passed.
        #expect(try await store.runMaintenance(now: later.addingTimeInterval(1)).resolved.count == 1)
        #expect(try await openAlerts().isEmpty)
    }

    /// `amtool alert add` without `--end`, or a script: no `endsAt`. As
    /// Alertmanager's `resolve_timeout` (5 minutes by default), it resolves
    /// that long after it was last sent; it stayed open for good.
    @Test func anAlertWithoutEndsAtResolvesFiveMinutesAfterItWasLastSent() async throws {
        let sent = Date()
        #expect(await post("/api/v2/alerts", #"[{"labels": {"alertname": "Added"}}]"#).status == 200)
        let ends = try #require(try await openAlerts().first?.resolvesAt)
        #expect(abs(ends.timeIntervalSince(sent.addingTimeInterval(300))) < 5, "\(ends)")
        #expect(try await store.runMaintenance(now: ends.addingTimeInterval(-1)).resolved.isEmpty)
        #expect(try await store.runMaintenance(now: ends.addingTimeInterval(1)).resolved.count == 1)
        #expect(try await openAlerts().isEmpty)
    }

    @Test func severitiesMapAndUnknownOnesFallBack() async throws {
        let cases: [(String?, Severity)] = [("critical", .critical), ("CRIT", .critical), ("error", .error), ("high", .error),
                                            ("warn", .warning), ("info", .info), ("none", .info), ("bogus", .warning), (nil, .warning)]
        for (label, expected) in cases {
            #expect(Severity(alertmanagerLabel: label) == expected, "\(label ?? "nil")")
        }
        _ = await post("/api/v2/alerts", #"[{"labels": {"alertname": "NoSummary"}}]"#)
        let alert = try #require(try await openAlerts().first)
        #expect(alert.spec.title == "NoSummary")
        #expect(alert.spec.severity == .warning)
        #expect(alert.spec.message == nil)
    }

    @Test func badAlertsAreRefusedInAlertmanagersShapeAndGoodOnesTaken() async throws {
        let r = await post("/api/v2/alerts", #"[{"labels": {"alertname": "Good"}}, {"labels": {}}, {"labels": {"bad-name": "x"}}, 3]"#)
        #expect(r.status == 400)
        let text = try #require(message(r))
        #expect(text.contains("3 of 4 alerts were refused"))
        #expect(text.contains("alert 1 has no labels"))
        #expect(text.contains("bad-name"))
        #expect(try await openAlerts().map(\.spec.title) == ["Good"])
        #expect(message(await post("/api/v2/alerts", "{}")) != nil)
        // None taken: it says so, not "the others were taken".
        let none = try #require(message(await post("/api/v2/alerts", #"[{"labels": {}}, 3]"#)))
        #expect(none.hasPrefix("All 2 alerts were refused: ") && !none.contains("others"), "\(none)")
        #expect(message(await post("/api/v2/alerts", "[3]"))?.hasPrefix("The alert was refused: ") == true)
        // The refused label set is quoted back with what would act on a terminal spelled out, in one sentence.
        let bidi = try #require(message(await post("/api/v2/alerts", #"[{"labels": {"alertname": "x", "v": "a\u202eb\u001b[2J"}}]"#)))
        #expect(bidi.contains(#"v="a<U+202E>b<U+001B>[2J""#), "\(bidi)")
        #expect(!bidi.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x1B })
        #expect(bidi.hasSuffix(").") && !bidi.hasSuffix(".."), "\(bidi)")
        // A huge refused label is quoted in part: it came back whole, 900 kB of it.
        let huge = try #require(message(await post("/api/v2/alerts", #"[{"labels": {"alertname": "x", "v": "\#(String(repeating: "y", count: 100_000))"}}]"#)))
        #expect(huge.count < 2_000 && huge.contains("…"), "\(huge.count)")
        let unauthorized = await post("/api/v2/alerts", "[]", as: .tcp())
        #expect(unauthorized.status == 401)
        #expect(message(unauthorized)?.contains("bearer token") == true)
        #expect(unauthorized.headers["WWW-Authenticate"] != nil)
        #expect(await post("/api/v2/alerts", "[]", as: .tcpWithToken).status == 200)
    }

    @Test func theAlertListShowsSilencedAlertsAsSuppressed() async throws {
        _ = await post("/api/v2/alerts", "[\(Self.diskFull), {\"labels\": {\"alertname\": \"CPUHot\"}}]")
        let created = await post("/api/v2/silences", """
            {"matchers": [{"name": "alertname", "value": "Disk.*", "isRegex": true, "isEqual": true}],
             "startsAt": "2020-01-01T00:00:00Z", "endsAt": "2099-01-01T00:00:00Z", "createdBy": "alice", "comment": "swap disk"}
            """)
        #expect(created.status == 200)
        let id = try #require(APIFixture.json(created)?["silenceID"] as? String)
        let all = try #require(try JSONSerialization.jsonObject(with: APIFixture.body(await get("/api/v2/alerts"))) as? [[String: Any]])
        #expect(all.count == 2)
        let disk = try #require(all.first { ($0["labels"] as? [String: String])?["alertname"] == "DiskFull" })
        #expect((disk["status"] as? [String: Any])?["state"] as? String == "suppressed")
        #expect((disk["status"] as? [String: Any])?["silencedBy"] as? [String] == [id])
        #expect(disk["fingerprint"] as? String == "e82e2fac3af581ca")
        #expect(disk["generatorURL"] as? String == "http://prometheus:9090/graph?g0.expr=up")
        #expect((disk["labels"] as? [String: String])?["generator_url"] == nil)
        #expect((disk["annotations"] as? [String: String])?["summary"] == "Disk full on db1")
        let active = try #require(try JSONSerialization.jsonObject(with: APIFixture.body(await get("/api/v2/alerts?silenced=false"))) as? [[String: Any]])
        #expect(active.compactMap { ($0["labels"] as? [String: String])?["alertname"] } == ["CPUHot"])
        let filtered = try #require(try JSONSerialization.jsonObject(
            with: APIFixture.body(await get("/api/v2/alerts?filter=\("instance=~\"db.*\"".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"))) as? [[String: Any]])
        #expect(filtered.count == 1)
        // As Alertmanager takes them: braces, and several matchers in one `filter`.
        for selector in [#"{instance=~"db.*"}"#, #"{alertname="DiskFull",instance=~"db.*"}"#] {
            let got = try #require(try JSONSerialization.jsonObject(
                with: APIFixture.body(await get("/api/v2/alerts?filter=\(selector.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"))) as? [[String: Any]])
            #expect(got.count == 1, "\(selector)")
        }
        let none = try #require(try JSONSerialization.jsonObject(with: APIFixture.body(await get(
            "/api/v2/alerts?filter=\(#"{alertname="CPUHot",instance=~"db.*"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"))) as? [[String: Any]])
        #expect(none.isEmpty)
        // alertd's own API says so too.
        let list = try #require(APIFixture.json(await get("/v1/alerts"))?["alerts"] as? [[String: Any]])
        #expect(list.first { ($0["spec"] as? [String: Any])?["title"] as? String == "Disk full on db1" }?["silenced_by"] as? [String] == [id])
        #expect(list.first { ($0["spec"] as? [String: Any])?["title"] as? String == "CPUHot" }?["silenced_by"] == nil)
        #expect(await get("/api/v2/alerts?active=maybe").status == 400)
        // Each filter is held against every alert: a request carries at most 32.
        let many = (0...32).map { "filter=a\($0)%3Dx" }.joined(separator: "&")
        #expect(await get("/api/v2/alerts?" + many).status == 400)
        #expect(await get("/api/v2/silences?" + many).status == 400)
        #expect(await get("/api/v2/alerts?" + many.split(separator: "&").dropFirst().joined(separator: "&")).status == 200)
    }

    /// After a start, an alert last sent before it resolves a window after
    /// the start, not at its sender's `endsAt`, which passed while alertd
    /// was down: that is the time shown, in `resolves_at` and in
    /// Alertmanager's `endsAt`. The past time was shown for the whole window.
    @Test func anAlertsEndIsShownAsTheClockWillResolveIt() async throws {
        let now = Date()
        let sent = now.addingTimeInterval(-300)
        let spec = try AlertSpec.Builder().title("Disk full").label("alertname", "DiskFull").build().get()
        _ = try await store.submit([AlertSubmission(alert: Alert(spec: spec, at: sent, resolvesAt: sent.addingTimeInterval(240)), presenters: [])])
        let started = now.addingTimeInterval(-10)
        let router = APIFixture.router(store: store, startedAt: started)
        let id = try #require(try await openAlerts().first?.id)
        // Its window, 240 s from when it was last sent, runs again from the start.
        let due = UTCTimestamp.iso8601(started.addingTimeInterval(240))
        let shown = await router.handle(APIFixture.request("GET", "/v1/alerts/\(id.rawValue)"))
        let detail = try #require(try JSONSerialization.jsonObject(with: APIFixture.body(shown)) as? [String: Any])
        #expect(detail["resolves_at"] as? String == due)
        let listed = await router.handle(APIFixture.request("GET", "/api/v2/alerts"))
        let alerts = try #require(try JSONSerialization.jsonObject(with: APIFixture.body(listed)) as? [[String: Any]])
        let endsText = try #require(alerts.first?["endsAt"] as? String)
        let endsAt = try #require(RFC3339.parse(endsText))
        #expect(abs(endsAt.timeIntervalSince(started.addingTimeInterval(240))) < 0.001, "\(endsAt)")
    }

    /// `group_by: ["..."]` groups by every label but the generator URL kept
    /// as one: two Prometheus replicas sending the same alert, each with
    /// its own URL, put it in two groups, whose last words disagreed.
    @Test func groupingByEveryLabelLeavesTheGeneratorURLOut() throws {
        let every = RouteGrouping(by: nil)
        func group(_ url: String) throws -> AlertGroupMembership {
            let spec = try AlertSpec.Builder().title("x")
                .label("alertname", "X1").label("instance", "a").label(AlertmanagerView.generatorURLLabel, url).build().get()
            return every.membership(of: spec, route: "r", presenters: ["hook"])
        }
        let one = try group("http://prom/graph"), other = try group("http://prom2/graph")
        #expect(one == other)
        #expect(one.labels.map(\.name) == ["alertname", "instance"])
    }

    /// Every open alert, as Alertmanager answers: the list was once cut at
    /// 20,000 without a word, and filters ran on what was left.
    /// karma and other dashboards read groups: a grouped route's alerts by
    /// its `group_by` values, per presenter; any other alert alone, as
    /// alertd sends it. Receivers are the presenters the routes name.
    @Test func groupsAndReceiversAreListedAsAlertmanagerDoes() async throws {
        var grouped = RouteDefinition(labels: ["team": "db"], presenters: ["chat", "pager"])
        grouped.grouping = RouteGrouping(by: ["alertname"])
        let intake = AlertIntake(
            store: store,
            settings: .init(router: AlertRouter(routes: [grouped], defaultRoute: RouteDefinition(presenters: ["log"])), limits: .default),
            onAccepted: { _ in })
        let router = APIRouter.alertd(intake: intake, store: store, onReplay: {}, dispatcherRunning: { true }, links: nil,
                                      metrics: metrics, authenticator: APIAuthenticator(token: APIFixture.token))
        let body = """
            [{"labels": {"alertname": "DiskFull", "team": "db", "instance": "db1"}},
             {"labels": {"alertname": "DiskFull", "team": "db", "instance": "db2"}},
             {"labels": {"alertname": "Slow", "team": "db", "instance": "db1"}},
             {"labels": {"alertname": "CPUHot", "instance": "web1"}}]
            """
        #expect(await router.handle(APIFixture.request("POST", "/api/v2/alerts", json: body)).status == 200)
        func groups(_ query: String = "") async throws -> [(receiver: String, labels: [String: String], instances: [String])] {
            let r = await router.handle(APIFixture.request("GET", "/api/v2/alerts/groups" + query))
            #expect(r.status == 200)
            let list = try #require(try JSONSerialization.jsonObject(with: APIFixture.body(r)) as? [[String: Any]])
            return list.map { g in
                ((g["receiver"] as? [String: Any])?["name"] as? String ?? "", g["labels"] as? [String: String] ?? [:],
                 (g["alerts"] as? [[String: Any]] ?? []).compactMap { ($0["labels"] as? [String: String])?["instance"] }.sorted())
            }
        }
        let all = try await groups()
        #expect(all.count == 5)
        for receiver in ["chat", "pager"] {
            #expect(all.contains { $0.receiver == receiver && $0.labels == ["alertname": "DiskFull"] && $0.instances == ["db1", "db2"] })
            #expect(all.contains { $0.receiver == receiver && $0.labels == ["alertname": "Slow"] && $0.instances == ["db1"] })
        }
        #expect(all.contains { $0.receiver == "log" && $0.labels == ["alertname": "CPUHot", "instance": "web1"] && $0.instances == ["web1"] })
        #expect(try await groups("?receiver=pager").map(\.receiver) == ["pager", "pager"])
        #expect(try await groups("?filter=instance%3D%22db2%22").map(\.instances) == [["db2"], ["db2"]])

        let receivers = await router.handle(APIFixture.request("GET", "/api/v2/receivers"))
        let names = (try JSONSerialization.jsonObject(with: APIFixture.body(receivers)) as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(names == ["chat", "pager", "log"])
    }

    /// Resolved alerts go to the store some at a time, so its group commit
    /// writes them together: one at a time, each waited for an fsync of
    /// its own (3,000 took 4,300).
    @Test func resolvedAlertsAreWrittenTogether() async throws {
        let dir = TemporaryDirectory()
        let commits = BatchCounter()
        let router = APIFixture.router(store: try SQLiteAlertStore(path: dir.path + "/alertd.db") { commits.add($0) }, token: APIFixture.token)
        func batch(_ endsAt: String) -> String {
            "[" + (0..<300).map { #"{"labels": {"alertname": "Load", "instance": "i\#($0)"}, "endsAt": "\#(endsAt)"}"# }.joined(separator: ",") + "]"
        }
        #expect(await router.handle(APIFixture.request("POST", "/api/v2/alerts", json: batch("2099-01-01T00:00:00Z"))).status == 200)
        let before = commits.totals.0
        #expect(await router.handle(APIFixture.request("POST", "/api/v2/alerts", json: batch("2020-01-01T00:00:00Z"))).status == 200)
        let resolving = commits.totals.0 - before
        #expect(resolving < 60, "\(resolving) commits for 300 resolves")
        let open = await router.handle(APIFixture.request("GET", "/api/v2/alerts"))
        #expect((try JSONSerialization.jsonObject(with: APIFixture.body(open)) as? [Any])?.isEmpty == true)
    }

    /// On SQLite, whose store takes the plain matchers itself.
    @Test func theAlertListHasEveryOpenAlertAndFiltersThemAll() async throws {
        let dir = TemporaryDirectory()
        let router = APIFixture.router(store: try SQLiteAlertStore(path: dir.path + "/alertd.db"), token: APIFixture.token)
        let count = 20_500
        for start in stride(from: 0, to: count, by: 1_000) {
            let batch = (start..<min(start + 1_000, count)).map { #"{"labels": {"alertname": "Load", "instance": "i\#($0)"}}"# }
            let r = await router.handle(APIFixture.request("POST", "/api/v2/alerts", json: "[" + batch.joined(separator: ",") + "]"))
            #expect(r.status == 200)
        }
        _ = await router.handle(APIFixture.request("POST", "/api/v2/alerts", json: "[\(Self.diskFull)]"))
        func list(_ query: String = "") async throws -> [[String: Any]] {
            let r = await router.handle(APIFixture.request("GET", "/api/v2/alerts" + query))
            return try #require(try JSONSerialization.jsonObject(with: APIFixture.body(r)) as? [[String: Any]])
        }
        func filter(_ matchers: String...) -> String {
            "?" + matchers.map { "filter=" + $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }.joined(separator: "&")
        }
        #expect(try await list().count == count + 1)
        // The oldest alert, past where the cut was.
        let oldest = try await list(filter(#"instance="i0""#))
        #expect(oldest.compactMap { ($0["labels"] as? [String: String])?["instance"] } == ["i0"])
        #expect(try await list(filter(#"alertname="Load""#, #"instance=~"i1[0-9]""#)).count == 10)
        #expect(try await list(filter(#"alertname!="Load""#)).count == 1)
        #expect(try await list(filter(#"instance="""#)).isEmpty)
        #expect(try await list(filter(#"generator_url="http://prometheus:9090/graph?g0.expr=up""#)).isEmpty)
    }

    /// `filter` regexes come from the client, and one listing's are
    /// counted in steps: past its limit the listing stops with 422
    /// `filter_too_costly`, while an ordinary regex over the same alerts
    /// is answered. 32 of `(?:.*){1000}` over 100 long labels held the
    /// cooperative pool for 25 s before.
    @Test func aListingsCostlyRegexFiltersAreRefused() async throws {
        let long = String(repeating: "a", count: 1_000)
        let batch = (0..<20).map { #"{"labels": {"alertname": "Long", "instance": "i\#($0)", "big": "\#(long)"}}"# }
        #expect(await post("/api/v2/alerts", "[" + batch.joined(separator: ",") + "]").status == 200)
        let intake = AlertIntake(store: store, settings: .init(router: AlertRouter(routes: [], defaultRoute: RouteDefinition(presenters: [])),
                                                               limits: .default), onAccepted: { _ in })
        var api = AlertmanagerAPI(intake: intake, store: store, metrics: metrics, dispatcherRunning: { true })
        api.filterStepLimit = 5_000_000
        func listing(_ matchers: [String]) -> HTTPRequest {
            let query = matchers.map { "filter=" + $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }.joined(separator: "&")
            return APIFixture.request("GET", "/api/v2/alerts?" + query)
        }
        // Some 100 live threads at each of 1,000 scalars, four filters, 20 alerts: 8 million steps.
        do {
            _ = try await api.getAlerts(listing(Array(repeating: #"big=~"(?:.*){100}""#, count: 4)))
            Issue.record("a listing past its steps was answered")
        } catch {
            #expect(error.status == 422)
            #expect(error.code == "filter_too_costly")
        }
        let plain = try await api.getAlerts(listing([#"big=~"a.*""#, #"instance=~"i1.*""#]))
        let listed = try #require(try JSONSerialization.jsonObject(with: APIFixture.body(plain)) as? [[String: Any]])
        #expect(listed.count == 11)
    }

    @Test func silencesAreAddedQueriedAndExpiredAsAmtoolDoes() async throws {
        let body = """
            {"matchers": [{"name": "alertname", "value": "DiskFull", "isRegex": false, "isEqual": true},
                          {"name": "env", "value": "dev", "isRegex": false, "isEqual": false}],
             "startsAt": "2020-01-01T00:00:00Z", "endsAt": "2099-01-01T00:00:00.000Z", "createdBy": "alice", "comment": "upgrade"}
            """
        let id = try #require(APIFixture.json(await post("/api/v2/silences", body))?["silenceID"] as? String)
        let one = try #require(APIFixture.json(await get("/api/v2/silence/\(id)")))
        #expect((one["status"] as? [String: Any])?["state"] as? String == "active")
        #expect(one["createdBy"] as? String == "alice")
        let matchers = try #require(one["matchers"] as? [[String: Any]])
        #expect(matchers.count == 2)
        #expect(matchers[1]["isEqual"] as? Bool == false)
        // A filter picks the silences that have it among their matchers, operator and value alike.
        for (filter, found) in [("alertname=DiskFull", 1), ("alertname=Other", 0), ("env!=dev", 1), ("env=dev", 0), ("env!=\"\"", 0),
                                ("alertname=~DiskFull", 0), ("alertname=\"\"", 0), ("zone=\"\"", 0)] {
            let query = "/api/v2/silences?filter=" + (filter.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            let listed = try JSONSerialization.jsonObject(with: APIFixture.body(await get(query))) as? [Any]
            #expect(listed?.count == found, "\(filter)")
        }

        #expect(await router.handle(APIFixture.request("DELETE", "/api/v2/silence/\(id)")).status == 200)
        let expired = try #require(APIFixture.json(await get("/api/v2/silence/\(id)")))
        #expect((expired["status"] as? [String: Any])?["state"] as? String == "expired")
        let gone = await router.handle(APIFixture.request("DELETE", "/api/v2/silence/nope"))
        #expect(gone.status == 404)
        #expect(message(gone)?.contains("not found") == true)
        // amtool's import posts with the exported id, and retries without it on "not found".
        let imported = await post("/api/v2/silences", body.replacingOccurrences(of: "{\"matchers\"", with: "{\"id\": \"abc\", \"matchers\""))
        #expect(imported.status == 404)
        #expect(message(imported)?.contains("not found") == true)
    }

    @Test func badSilencesAreRefusedWithTheRuleTheyBreak() async throws {
        func refusal(_ matchers: String, by: String = "alice", end: String = "2099-01-01T00:00:00Z") async -> (Int, String?) {
            let r = await post("/api/v2/silences", """
                {"matchers": [\(matchers)], "startsAt": "2020-01-01T00:00:00Z", "endsAt": "\(end)", "createdBy": "\(by)", "comment": "c"}
                """)
            return (r.status, message(r))
        }
        let lookahead = await refusal(#"{"name": "job", "value": "a(?=b)", "isRegex": true}"#)
        #expect(lookahead.0 == 400)
        #expect(lookahead.1?.contains("lookaround") == true)
        #expect(await refusal(#"{"name": "job", "value": ".*", "isRegex": true}"#).1?.contains("nearly everything") == true)
        #expect(await refusal(#"{"name": "job", "value": "x"}"#, by: "").0 == 400)
        #expect(await refusal(#"{"name": "job", "value": "x"}"#, end: "2020-01-01T00:00:01Z").1?.contains("past") == true)
        #expect(await refusal(#"{"name": "job-name", "value": "x"}"#).0 == 400)
        // An end past 9999 would be listed with a five-digit year, and amtool could list no silence.
        let late = await refusal(#"{"name": "job", "value": "x"}"#, end: "9999-12-31T23:59:59.9999999Z")
        #expect(late.0 == 400)
        #expect(late.1?.contains("`endsAt` must be an RFC 3339 time") == true, "\(late.1 ?? "")")
        // A flag of another type is refused, not taken for its default: `"isEqual": "false"` stored `a="x"`.
        for flag in [#""isEqual": "false""#, #""isEqual": 0"#, #""isRegex": "true""#, #""isRegex": 1"#, #""isEqual": []"#] {
            let wrong = await refusal(#"{"name": "alertname", "value": "Q"}, {"name": "a", "value": "x", "# + flag + "}")
            #expect(wrong.0 == 400 && wrong.1?.contains("must be true or false") == true, "\(flag): \(wrong)")
        }
        #expect(await refusal(#"{"name": "alertname", "value": "Q", "isRegex": null, "isEqual": null}"#).0 == 200)
        // Only that one was stored.
        let listed = try JSONSerialization.jsonObject(with: APIFixture.body(await get("/api/v2/silences"))) as? [Any]
        #expect(listed?.count == 1)
    }

    @Test func theWebhookReceiverOpensAndResolvesByFingerprint() async throws {
        func payload(_ status: String, summary: String = "Disk full") -> String {
            """
            {"version": "4", "groupKey": "{}:{alertname=\\"DiskFull\\"}", "truncatedAlerts": 0, "status": "\(status)", "receiver": "alertd",
             "groupLabels": {"alertname": "DiskFull"}, "commonLabels": {}, "commonAnnotations": {}, "externalURL": "http://am:9093",
             "alerts": [{"status": "\(status)", "labels": {"alertname": "DiskFull", "instance": "db1"}, "annotations": {"summary": "\(summary)"},
                         "startsAt": "2026-05-05T12:00:00Z", "endsAt": "\(status == "firing" ? "0001-01-01T00:00:00Z" : "2026-05-05T12:05:00Z")",
                         "generatorURL": "", "fingerprint": "353eae6a3b60c986"}]}
            """
        }
        let first = await post("/v1/ingest/alertmanager", payload("firing"))
        #expect(first.status == 200)
        #expect(APIFixture.json(first)?["created"] as? Int == 1)
        #expect(APIFixture.json(await post("/v1/ingest/alertmanager", payload("firing", summary: "Disk full, 99%")))?["deduplicated"] as? Int == 1)
        #expect(try await openAlerts().map(\.spec.dedupKey) == ["353eae6a3b60c986"])
        // A re-send's annotations are the newest, as Alertmanager keeps them (no endsAt: it is firing).
        #expect(try await openAlerts().map(\.spec.title) == ["Disk full, 99%"])
        #expect(APIFixture.json(await post("/v1/ingest/alertmanager", payload("resolved")))?["resolved"] as? Int == 1)
        #expect(try await openAlerts().isEmpty)
        let wrong = await post("/v1/ingest/alertmanager", #"{"version": "3", "alerts": []}"#)
        #expect(APIFixture.errorCode(wrong) == "unsupported_webhook_version")
        #expect(metrics.render(counts: nil).contains(#"alertd_alerts_received_total{front_door="alertmanager_webhook"} 1"#))
    }

    @Test func statusAndProbesAnswerAsAlertmanagers() async throws {
        let status = try #require(APIFixture.json(await get("/api/v2/status")))
        #expect((status["cluster"] as? [String: Any])?["status"] as? String == "disabled")
        #expect((status["versionInfo"] as? [String: Any])?["version"] as? String == AlertdVersion.current)
        #expect(status["uptime"] is String)
        let tcp = { (path: String) in APIFixture.request("GET", path, as: .tcp()) }
        #expect(await router.handle(tcp("/-/healthy")).status == 200)
        #expect(await router.handle(tcp("/-/ready")).status == 200)
        #expect(await router.handle(tcp("/api/v2/status")).status == 401)
    }

    /// Alerts are read from the body as it is parsed: each problem is still
    /// the first in field order, and a key given twice is still malformed.
    @Test func eachAlertsProblemIsNamedAsItWasReadFromTheBody() async throws {
        let cases = [
            (#"[{"labels": "x"}]"#, "alert 0 has `labels` that is not an object of strings"),
            (#"[{"labels": {"a": "1", "b": 2}}]"#, "alert 0 has `labels.b` that is not a string"),
            (#"[{"labels": null}]"#, "alert 0 has no labels"),
            (#"[{"labels": {"a": ""}}]"#, "alert 0 has no labels"),
            (#"[{"annotations": 1, "labels": {"a": "1"}}]"#, "alert 0 has `annotations` that is not an object of strings"),
            // Labels come first whatever the body's order.
            (#"[{"startsAt": "soon", "labels": {}}]"#, "alert 0 has no labels"),
            (#"[{"labels": {"a": "1"}, "endsAt": "soon", "startsAt": "later"}]"#, "alert 0 has `startsAt` that is not an RFC 3339 time"),
            (#"[{"labels": {"a": "1"}, "generatorURL": 5}]"#, "alert 0 has `generatorURL` that is not a string"),
            // As Alertmanager: "start time must be before end time".
            (#"[{"labels": {"a": "1"}, "startsAt": "2030-01-01T00:00:00Z", "endsAt": "2029-01-01T00:00:00Z"}]"#,
             "alert 0 has `endsAt` before `startsAt`: an alert cannot end before it starts"),
            (#"[{"labels": {"a": "1"}, "endsAt": "10000-01-01T00:00:00Z"}]"#, "alert 0 has `endsAt` that is not an RFC 3339 time"),
            (#"[{"labels": {"a": "1"}, "endsAt": "9999-12-31T23:59:59.9999999Z"}]"#, "alert 0 has `endsAt` that is not an RFC 3339 time"),
            (#"[{"labels": {"a": "1"}}, "x"]"#, "alert 1 is not an object"),
            // The label alertd keeps the generator URL in: taken, it would pass for it in every listing.
            (#"[{"labels": {"a": "2", "generator_url": "mine"}, "generatorURL": "http://gen/"}]"#, "rename this label"),
        ]
        for (body, expected) in cases {
            let r = await post("/api/v2/alerts", body)
            #expect(r.status == 400, "\(body)")
            #expect(message(r)?.contains(expected) == true, "\(body): \(message(r) ?? "")")
        }
        for body in [#"[{"labels": {"a": "1"}, "labels": {"a": "1"}}]"#, #"[{"labels": {"a": "1", "a": 2}}]"#,
                     #"[{"labels": {"a": 2, "a": "1"}}]"#, #"[{"labels": {"a": "1"}, "receiver": 1, "receiver": 2}]"#] {
            let text = message(await post("/api/v2/alerts", body)) ?? ""
            #expect(text.contains("Duplicate key"), "\(body): \(text)")
        }
        // Unknown keys and nulls are nothing. Of the refused batches only the
        // good alert beside the one that was not an object was taken.
        #expect(await post("/api/v2/alerts", #"[{"labels": {"alertname": "Kept"}, "receiver": {"x": [1]}, "endsAt": null, "status": null}]"#)
            .status == 200)
        let stored = try await openAlerts().map(\.spec.labels)
        #expect(stored.count == 2 && stored.contains(["a": "1"]) && stored.contains(["alertname": "Kept"]), "\(stored)")
    }

    /// Title and message are fitted, not refused: plain text as it came,
    /// anything else trimmed, cleaned and cut.
    @Test func titlesAndMessagesAreFittedPlainOrNot() async throws {
        let long = String(repeating: "x", count: 300)
        let body = """
            [{"labels": {"alertname": "A", "n": "1"}, "annotations": {"summary": "Disk full on db1", "description": "line one\\nline two\\ttabbed"}},
             {"labels": {"alertname": "B", "n": "2"}, "annotations": {"summary": "  padded\\u0007bell  ", "description": "\\u001b[31mred"}},
             {"labels": {"alertname": "C", "n": "3"}, "annotations": {"summary": "\(long)"}},
             {"labels": {"alertname": "D", "n": "4"}, "annotations": {"summary": " Zône\\u0085C1\\u202Eover ", "description": "Ünï\\tcode\\u0007"}},
             {"labels": {"alertname": "E", "n": "5"}, "annotations": {"summary": "  Zône 東京  ", "description": "東京\\nline"}}]
            """
        #expect(await post("/api/v2/alerts", body).status == 200)
        let byName = Dictionary(try await openAlerts().map { ($0.spec.labels["alertname"] ?? "", $0.spec) }, uniquingKeysWith: { a, _ in a })
        #expect(byName["A"]?.title == "Disk full on db1")
        #expect(byName["A"]?.message == "line one\nline two\ttabbed")
        #expect(byName["B"]?.title == "padded bell")
        #expect(byName["B"]?.message == "[31mred")
        let cut = try #require(byName["C"]?.title)
        #expect(cut.count == AlertSpecLimits().maxTitleLength && cut.hasSuffix("…"))
        // Other scripts: blanked, trimmed and kept alike.
        #expect(byName["D"]?.title == "Zône C1 over")
        #expect(byName["D"]?.message == "Ünï\tcode")
        #expect(byName["E"]?.title == "Zône 東京")
        #expect(byName["E"]?.message == "東京\nline")
    }

    /// What Prometheus sends is kept even when the text policy or the
    /// limits count it differently than characters look: invisible and
    /// bidirectional characters become U+FFFD, length is cut in scalars,
    /// and the generator URL gives way to a 64th label. Each was a 400,
    /// which Prometheus drops.
    @Test func prometheusTextIsFittedByTheRulesValidationUses() async throws {
        let hindi = String(repeating: "नमस्ते ", count: 30)
        let decomposed = String(repeating: "e\\u0301", count: 150)
        let labels64 = (0..<63).map { "\"l\($0)\": \"v\"" }.joined(separator: ", ")
        let body = """
            [{"labels": {"alertname": "Zw"}, "annotations": {"summary": "disk\\u200bfull", "description": "a\\u2066b\\u2069c\\nnext"}},
             {"labels": {"alertname": "Hi"}, "annotations": {"summary": "\(hindi)"}},
             {"labels": {"alertname": "Nfd"}, "annotations": {"summary": "\(decomposed)"}},
             {"labels": {"alertname": "Many", \(labels64)}, "generatorURL": "http://prometheus:9090/graph"},
             {"labels": {"alertname": "Url"}, "generatorURL": "http://prometheus:9090/graph?g0.expr=up"},
             {"labels": {"alertname": "Unseen"}, "annotations": {"summary": "\\u200b\\u3164"}},
             {"labels": {"alertname": "\\u2800", "blank": "name"}}]
            """
        let r = await post("/api/v2/alerts", body)
        #expect(r.status == 200, "\(String(decoding: APIFixture.body(r), as: UTF8.self))")
        let byName = Dictionary(try await openAlerts().map { ($0.spec.labels["alertname"] ?? "", $0.spec) }, uniquingKeysWith: { a, _ in a })
        #expect(byName.count == 7)
        // A summary that shows nothing is none: the alertname is the title; one that shows nothing, the fingerprint.
        #expect(byName["Unseen"]?.title == "Unseen")
        #expect(byName["\u{2800}"]?.title.hasPrefix("Alert ") == true)
        #expect(byName["Zw"]?.title == "disk\u{FFFD}full")
        #expect(byName["Zw"]?.message == "a\u{FFFD}b\u{FFFD}c\nnext")
        for name in ["Hi", "Nfd"] {
            let title = try #require(byName[name]?.title)
            #expect(title.unicodeScalars.count == AlertSpecLimits().maxTitleLength && title.hasSuffix("…"), "\(name)")
        }
        #expect(byName["Many"]?.labels.count == 64)
        #expect(byName["Many"]?.labels["generator_url"] == nil)
        #expect(byName["Url"]?.labels["generator_url"] == "http://prometheus:9090/graph?g0.expr=up")
    }

    @Test func theWebhookPayloadsVersionIsCheckedBeforeItsAlerts() async throws {
        let r = await post("/v1/ingest/alertmanager", #"{"alerts": [{"labels": {}}], "version": "3"}"#)
        #expect(APIFixture.errorCode(r) == "unsupported_webhook_version")
        let missing = await post("/v1/ingest/alertmanager", #"{"version": "4", "alerts": null}"#)
        #expect(APIFixture.errorCode(missing) == "invalid_body")
        let repeated = await post("/v1/ingest/alertmanager", #"{"version": "4", "version": "4", "alerts": []}"#)
        #expect(APIFixture.errorCode(repeated) == "malformed_json")
        #expect(try await openAlerts().isEmpty)
    }

    @Test func timesReadAsGoWritesThem() throws {
        #expect(RFC3339.parse("1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(RFC3339.parse("2026-05-05T12:00:00.5+02:00") == Date(timeIntervalSince1970: 1_777_975_200.5))
        #expect(RFC3339.parse("0001-01-01T00:00:00Z").map(RFC3339.isUnset) == true)
        #expect(RFC3339.parse("2028-02-29T23:59:59-23:59") != nil)
        // Days past the month's end and offsets past a day were read as other times.
        for bad in ["2026-05-05", "2026-05-05T12:00:00", "2026-13-05T12:00:00Z", "2026-05-05T12:00:00.Z", "x",
                    "2026-02-30T00:00:00Z", "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-05-05T12:00:00+99:99",
                    "2026-05-05T12:00:00+24:00", "2026-05-05T12:00:00-00:60"] {
            #expect(RFC3339.parse(bad) == nil, "\(bad)")
        }
        // Nothing past 9999: written back it would have a five-digit year, which amtool cannot read.
        #expect(RFC3339.parse("9999-12-31T23:59:59.999Z") != nil)
        for late in ["9999-12-31T23:59:59.9999Z", "9999-12-31T23:30:00-01:00", "9999-12-31T23:59:60Z"] {
            #expect(RFC3339.parse(late) == nil, "\(late)")
        }
        // Nor before year 0, which an offset reached.
        #expect(RFC3339.parse("0000-01-01T00:00:00Z").map(RFC3339.isUnset) == true)
        #expect(RFC3339.parse("0000-01-01T00:00:00+01:00") == nil)
        #expect(LabelFingerprint([:]).description == "cbf29ce484222325")
    }

    /// Names in Go's byte order: a shorter name first, capitals before small
    /// letters, and a decomposed "é" (an "e" and a combining accent) before
    /// "f", where Swift's own string order puts it after. The expected
    /// values were computed apart from alertd, by Prometheus's algorithm.
    @Test func fingerprintsSortNamesByTheirBytes() {
        #expect(LabelFingerprint(["f": "1", "e\u{301}": "2", "abc": "3", "ab": "4", "Z": "5", "a": "6"]).description == "056b675ec1716c20")
        let many = Dictionary(uniqueKeysWithValues: (0..<31).map { (String(format: "label_%02d", $0), "value-\($0)") })
        #expect(LabelFingerprint(many).description == "bd0ef171cbf8f4c8")
    }
}

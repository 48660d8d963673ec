import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdAPI
@testable import AlertdDelivery

#if canImport(Glibc)
import Glibc
#endif

/// alertd with the real programs: Prometheus sending to it as its
/// Alertmanager, amtool managing its silences, and an Alertmanager handing
/// it notifications through a webhook receiver. Each is configured with the
/// snippets of docs/PROMETHEUS.md, with this test's ports and paths put in.
/// One at a time: each starts servers of its own.
@Suite(.serialized) struct PrometheusIntegrationTests {
    static let token = "s3cret-token-0123456789"
    let dir = TemporaryDirectory()
    let docs: DocSnippets

    init() throws {
        docs = try DocSnippets("docs/PROMETHEUS.md")
        try writeSecretFile("\(Self.token)\n", to: tokenPath)
    }

    var tokenPath: String { dir.path + "/api-token" }

    /// The page's example address and token file, as this test has them.
    func replacements(_ d: TestDaemon) -> [String: String] {
        ["127.0.0.1:9190": "127.0.0.1:\(d.port)", "/etc/alertd/api-token": tokenPath, "/etc/prometheus/alertd-token": tokenPath]
    }

    /// alertd on TCP with the token, as the page configures it, delivering
    /// to the test presenter (told of closings with `followUps`) and, with
    /// `pager`, to a PagerDuty stand-in too.
    func daemon(followUps: Bool = false, pager: ServiceReceiver? = nil) async throws -> TestDaemon {
        var presenters: [String: Any] = ["sink": ["type": "test", "record": "presented.jsonl", "follow_ups": followUps]]
        if let pager {
            try writeSecretFile(PagerDutyPresenterTests.routingKey, to: dir.path + "/pagerduty-key")
            presenters["pager"] = ["type": "pagerduty", "routing_key_file": dir.path + "/pagerduty-key", "api_url": pager.base]
        }
        let d = try TestDaemon(config: ["presenters": presenters])
        let api = try docs.snippet("alertd-api", replacements(d))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(api.utf8)) as? [String: Any])
        try d.rewriteConfig(object.merging(["presenters": presenters]) { a, _ in a })
        try await d.start()
        return d
    }

    /// A stand-in for PagerDuty's Events API v2, held to its contract.
    func pagerDuty() throws -> ServiceReceiver {
        try ServiceReceiver(success: PagerDutyPresenterTests.accepted, contract: PagerDutyPresenterTests.contract)
    }

    /// What the PagerDuty stand-in got: each event's action and dedup key, and whether it broke the contract.
    func events(_ pager: ServiceReceiver) -> [(action: String?, key: String?, ok: Bool)] {
        pager.received.map { (J($0.json)["event_action"].string, J($0.json)["dedup_key"].string, $0.problems.isEmpty) }
    }

    func alerts(_ d: TestDaemon, _ query: String) async throws -> [[String: Any]] {
        let r = try await d.request("GET", "/v1/alerts?\(query)")
        return (try JSONSerialization.jsonObject(with: r.body) as? [String: Any])?["alerts"] as? [[String: Any]] ?? []
    }

    /// `up` of the scrape job `job` as Prometheus on `port` has it now, nil before its first scrape.
    func up(_ job: String, _ port: UInt16) async throws -> String? {
        let query = "up%7Bjob%3D%22\(job)%22%7D"
        let response = try await HTTPClient().send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/v1/query?query=\(query)"))
        let answer = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        let result = (answer?["data"] as? [String: Any])?["result"] as? [[String: Any]]
        return (result?.first?["value"] as? [Any])?.last as? String
    }

    func metric(_ d: TestDaemon, _ series: String) async throws -> Double? {
        let text = String(decoding: try await d.request("GET", "/metrics").body, as: UTF8.self)
        return text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last!) }
    }

    /// The test rule: it fires while Prometheus has a target in the
    /// `switch` job (itself, listed in `switchPath`), and stops once the
    /// test empties that file. No reload: Prometheus 2.42 forgets its
    /// Alertmanagers on every reload until discovery hands them back (up to
    /// 5 s; prometheus/prometheus#13064) and drops what it sends meanwhile,
    /// the first resolution included, so the clock could lapse the alert
    /// before a later re-send of the resolution got through.
    static let rules = """
        groups:
          - name: alertd-test
            rules:
              - alert: AlwaysFiring
                expr: vector(1) and on() count(up{job="switch"}) > 0
                labels:
                  severity: critical
                annotations:
                  summary: Always firing
                  description: The test rule fires while its expression is vector(1).

        """

    /// The `switch` job's file_sd file: Prometheus while the rule fires, nothing once it stops.
    var switchPath: String { dir.path + "/switch.json" }

    func setSwitch(_ port: UInt16?) throws {
        try (port.map { #"[{"targets": ["127.0.0.1:\#($0)"]}]"# } ?? "[]").write(toFile: switchPath, atomically: true, encoding: .utf8)
    }

    /// Prometheus scraping itself with the firing rule, and alertd's
    /// `/metrics` by the page's scrape job, alertd as its Alertmanager by the
    /// page's snippet, re-sending every `resendDelay` seconds instead of
    /// every minute so a test sees several; and its rule file. `port` is
    /// Prometheus's own.
    func startPrometheus(_ d: TestDaemon, resendDelay: Int = 1, port: UInt16? = nil) async throws -> ExternalProgram {
        let port = try port ?? TestDaemon.freePort()
        // The page's job, under this configuration's own `scrape_configs:`.
        let scrapeJob = try docs.snippet("prometheus-scrape", replacements(d)).split(separator: "\n").dropFirst().joined(separator: "\n")
        let rulesPath = dir.path + "/rules.yml"
        try Self.rules.write(toFile: rulesPath, atomically: true, encoding: .utf8)
        try setSwitch(port)
        let config = """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            scrape_configs:
              - job_name: prometheus
                static_configs:
                  - targets: ["127.0.0.1:\(port)"]
              - job_name: switch
                file_sd_configs:
                  - files: [\(switchPath)]
            \(scrapeJob)
            rule_files:
              - \(rulesPath)

            """ + (try docs.snippet("prometheus-alerting", replacements(d)))
        return try await launchPrometheus(config, port: port, name: "prometheus", resendDelay: resendDelay)
    }

    /// Prometheus on `port` with `config`, its files named `name` in the
    /// test's directory, re-sending every `resendDelay` seconds; once it is ready.
    func launchPrometheus(_ config: String, port: UInt16, name: String, resendDelay: Int = 1) async throws -> ExternalProgram {
        try config.write(toFile: dir.path + "/\(name).yml", atomically: true, encoding: .utf8)
        let prometheus = try ExternalProgram("prometheus", [
            "--config.file=\(dir.path)/\(name).yml", "--storage.tsdb.path=\(dir.path)/\(name)-data",
            "--web.listen-address=127.0.0.1:\(port)", "--rules.alert.resend-delay=\(resendDelay)s",
        ], logPath: dir.path + "/\(name).log")
        do {
            try await prometheus.waitUntilReady("http://127.0.0.1:\(port)/-/ready")
        } catch {
            prometheus.signal(SIGKILL)
            throw error
        }
        return prometheus
    }

    @Test func prometheusSendsOneAlertWhateverItsResendsAndResolvesItWhenTheRuleStops() async throws {
        let pager = try pagerDuty()
        let d = try await daemon(pager: pager)
        let sink = TestPresenterLog(d)
        // Each re-send says the alert ends 4 × 2 s on: Prometheus's resolution
        // must arrive before then, or the clock resolves it first.
        let prometheusPort = try TestDaemon.freePort()
        let prometheus = try await startPrometheus(d, resendDelay: 2, port: prometheusPort)
        defer { prometheus.signal(SIGKILL) }

        #expect(await sink.wait(timeout: .seconds(30)) { $0.count >= 1 }, "no delivery; prometheus log:\n\(prometheus.log)\nalertd log:\n\(d.log)")
        let firing = try await alerts(d, "label=alertname=AlwaysFiring")
        #expect(firing.count == 1)
        let spec = try #require(firing.first?["spec"] as? [String: Any])
        #expect(spec["title"] as? String == "Always firing")
        #expect(spec["severity"] as? String == "critical")
        #expect(spec["message"] as? String == "The test rule fires while its expression is vector(1).")
        let labels = try #require(spec["labels"] as? [String: String])
        #expect(labels["generator_url"]?.contains("/graph?g0.expr=vector%281%29") == true)
        #expect(spec["dedup_key"] as? String == LabelFingerprint(["alertname": "AlwaysFiring", "severity": "critical"]).description)

        // Several evaluations and re-sends later: still one alert, one delivery.
        let resent = try await eventually(.seconds(30)) {
            try await metric(d, #"alertd_alerts_deduplicated_total{front_door="alertmanager_api"}"#) ?? 0 >= 3
        }
        #expect(resent, "Prometheus did not re-send; its log:\n\(prometheus.log)")
        #expect(try await alerts(d, "label=alertname=AlwaysFiring").count == 1)
        #expect(sink.entries.count == 1)
        #expect(try await metric(d, #"alertd_alerts_received_total{front_door="alertmanager_api"}"#) == 1)
        // The page's scrape job, with the token, reaches `/metrics`.
        let scraped = try await eventually(.seconds(15), every: .milliseconds(200)) { try await self.up("alertd", prometheusPort) == "1" }
        let lastUp = try await up("alertd", prometheusPort)
        #expect(scraped, "Prometheus did not scrape alertd; up is \(lastUp ?? "absent"); its log:\n\(prometheus.log)")

        // The rule stops firing (its switch target is gone; Prometheus
        // re-reads file_sd files by itself): Prometheus sends it resolved.
        // It re-sent the alert while it fired, so the resolution comes
        // before the last re-send's endsAt, 4 × 2 s on.
        try setSwitch(nil)
        let resolved = try await eventually(.seconds(30)) {
            try await alerts(d, "label=alertname=AlwaysFiring").first?["state"] as? String == "resolved"
        }
        #expect(resolved, "not resolved; prometheus log:\n\(prometheus.log)")
        let decision = try await alerts(d, "label=alertname=AlwaysFiring").first?["decision"] as? [String: Any]
        #expect(decision?["actor"] as? String == "alertmanager-api", "prometheus log:\n\(prometheus.log)\nalertd log:\n\(d.log)")
        #expect(sink.entries.count == 1, "the sink takes no follow-ups")
        // PagerDuty was told: one trigger, then a resolve with the same dedup key, the alert's id.
        let id = try #require(firing.first?["id"] as? String)
        #expect(await pager.wait(for: 2))
        #expect(events(pager).map(\.action) == ["trigger", "resolve"])
        #expect(events(pager).allSatisfy { $0.key == id && $0.ok })
        await prometheus.stop()
    }

    @Test func anAlertPrometheusStopsSendingResolvesWhenItsEndsAtPassesAndPresentersAreTold() async throws {
        let pager = try pagerDuty()
        let d = try await daemon(followUps: true, pager: pager)
        let sink = TestPresenterLog(d)
        // Re-sent every second, each saying it ends 4 s on (4 × the larger of resend delay and evaluation interval).
        let prometheus = try await startPrometheus(d)
        defer { prometheus.signal(SIGKILL) }
        #expect(await sink.wait(timeout: .seconds(30)) { $0.count >= 1 }, "no delivery; prometheus log:\n\(prometheus.log)\nalertd log:\n\(d.log)")
        let first = try #require(try await alerts(d, "label=alertname=AlwaysFiring").first)
        let id = try #require(first["id"] as? String)
        let firstEnd = try #require((first["resolves_at"] as? String).flatMap { RFC3339.parse($0) })
        #expect(firstEnd > Date() && firstEnd < Date().addingTimeInterval(10), "endsAt is a few evaluation intervals on")

        // Each re-send moves the time on.
        let moved = try await eventually(.seconds(15)) {
            let end = try await alerts(d, "label=alertname=AlwaysFiring").first?["resolves_at"] as? String
            return end.flatMap { RFC3339.parse($0) }.map { $0 > firstEnd } ?? false
        }
        #expect(moved, "resolves_at did not move; prometheus log:\n\(prometheus.log)")
        #expect(try await alerts(d, "label=alertname=AlwaysFiring").first?["state"] as? String == "open")

        // Prometheus dies without a word: the alert resolves once its last endsAt has passed.
        prometheus.signal(SIGKILL)
        let killedAt = Date()
        let resolved = try await eventually(.seconds(20)) {
            try await alerts(d, "label=alertname=AlwaysFiring").first?["state"] as? String == "resolved"
        }
        #expect(resolved, "alertd log:\n\(d.log)")
        let detail = try await d.show(id)
        #expect((detail["decision"] as? [String: Any])?["actor"] as? String == "alertd")
        #expect(detail["resolves_at"] == nil, "a closed alert resolves no more")
        let closedAt = try #require(((detail["decision"] as? [String: Any])?["at"] as? String).flatMap { RFC3339.parse($0) })
        #expect(closedAt.timeIntervalSince(killedAt) < 8, "resolved within a few evaluation intervals of the last re-send")

        // The follow-ups: the sink records one, PagerDuty gets a resolve for the same dedup key.
        #expect(await sink.wait(timeout: .seconds(10)) { $0.count == 2 })
        #expect(await pager.wait(for: 2))
        #expect(events(pager).map(\.action) == ["trigger", "resolve"])
        #expect(events(pager).allSatisfy { $0.key == id && $0.ok })
        // Recorded once the presenters have answered.
        let settled = try await eventually(.seconds(10)) {
            let deliveries = try await d.show(id)["deliveries"] as? [[String: Any]] ?? []
            let followUps = deliveries.filter { $0["follow_up_of"] != nil }
            return Set(followUps.compactMap { $0["presenter"] as? String }) == ["sink", "pager"]
                && followUps.allSatisfy { $0["state"] as? String == "delivered" }
        }
        #expect(settled, "alertd log:\n\(d.log)")
        #expect(try await eventually(.seconds(5)) {
            try await metric(d, #"alertd_follow_ups_total{outcome="delivered",presenter="pager"}"#) == 1
        })
        #expect(try await metric(d, #"alertd_deliveries_total{outcome="delivered",presenter="pager"}"#) == 1)
    }

    /// Runs one line of the page's amtool snippet through the shell, in the
    /// test's directory, with amtool's config in a home of its own.
    func amtool(_ line: String, home: String, environment: [String: String] = [:]) async throws -> TestBinaries.Result {
        let r = try await TestBinaries.run("/bin/sh", ["-c", "cd '\(dir.path)' && \(line)"],
                                           environment: ["HOME": home].merging(environment) { $1 })
        #expect(r.exitCode == 0, "\(line): \(r.stderr)")
        return r
    }

    @Test func amtoolSilencesHoldDeliveriesUntilExpired() async throws {
        _ = try ExternalProgram.path(of: "amtool")
        let d = try await daemon()
        let sink = TestPresenterLog(d)
        let home = dir.path + "/home"
        try FileManager.default.createDirectory(atPath: home + "/.config/prometheus", withIntermediateDirectories: true)
        var paths = replacements(d)
        paths["/etc/alertd/amtool-http.yml"] = dir.path + "/amtool-http.yml"
        try docs.snippet("amtool.yml", paths).write(toFile: home + "/.config/prometheus/amtool.yml", atomically: true, encoding: .utf8)
        try docs.snippet("amtool-http.yml", paths).write(toFile: dir.path + "/amtool-http.yml", atomically: true, encoding: .utf8)
        let lines = try docs.snippet("amtool-commands").split(separator: "\n").map(String.init)
        func line(_ prefix: String) throws -> String { try #require(lines.first { $0.hasPrefix(prefix) }, "no `\(prefix)` line") }

        let silenceID = try await amtool(line("amtool silence add"), home: home).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!silenceID.isEmpty)
        let query = try await amtool(try #require(lines.first { $0 == "amtool silence query" }), home: home).stdout
        #expect(query.contains(silenceID))
        #expect(query.contains(#"instance=~"db[0-9]+""#))
        // amtool's version check reads /api/v2/status.
        _ = try await amtool("amtool --version-check silence query", home: home)

        func post(_ instance: String) async throws {
            let r = try await d.request("POST", "/api/v2/alerts", json: [["labels": ["alertname": "DiskFull", "instance": instance],
                                                                        "annotations": ["summary": "Disk full on \(instance)"]]])
            #expect(r.status == 200)
        }
        try await post("db1")
        try await post("web1")
        // The alert the silence does not match goes out; the other is stored and held.
        #expect(await sink.wait(timeout: .seconds(10)) { $0.contains { $0.title == "Disk full on web1" } })
        try await Task.sleep(for: .seconds(1))
        #expect(!sink.entries.contains { $0.title == "Disk full on db1" })
        let held = try #require(try await alerts(d, "label=instance=db1").first)
        #expect(held["silenced_by"] as? [String] == [silenceID])
        let alertQuery = try await amtool(line("amtool alert query"), home: home).stdout
        #expect(alertQuery.contains("DiskFull"))

        _ = try await amtool(line("amtool silence query -o json"), home: home)
        _ = try await amtool(line("amtool silence expire"), home: home, environment: ["SILENCE_ID": silenceID])
        #expect(await sink.wait(timeout: .seconds(10)) { $0.contains { $0.title == "Disk full on db1" } }, "alertd log:\n\(d.log)")
        #expect(sink.entries.count == 2)
        #expect(try await metric(d, "alertd_deliveries_silenced_total") == 1)

        // The exported silence comes back as a new one (its original expired), and holds again.
        _ = try await amtool(line("amtool silence import"), home: home)
        let afterImport = try await amtool("amtool silence query -q", home: home).stdout
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(afterImport.count == 1)
        #expect(afterImport.first != silenceID)
        try await post("db2")
        try await Task.sleep(for: .seconds(1))
        #expect(!sink.entries.contains { $0.title == "Disk full on db2" })
        #expect(try await alerts(d, "label=instance=db2").first?["silenced_by"] as? [String] == afterImport)
    }

    /// A real Alertmanager with `config`, on a port of its own, ready; and its base URL.
    func startAlertmanager(_ config: String) async throws -> (ExternalProgram, String) {
        let port = try TestDaemon.freePort()
        try config.write(toFile: dir.path + "/alertmanager.yml", atomically: true, encoding: .utf8)
        let alertmanager = try ExternalProgram("prometheus-alertmanager", [
            "--config.file=\(dir.path)/alertmanager.yml", "--storage.path=\(dir.path)/am",
            "--web.listen-address=127.0.0.1:\(port)", "--cluster.listen-address=",
        ], logPath: dir.path + "/alertmanager.log")
        let am = "http://127.0.0.1:\(port)"
        do {
            try await alertmanager.waitUntilReady(am + "/-/ready")
        } catch {
            alertmanager.signal(SIGKILL)
            throw error
        }
        return (alertmanager, am)
    }

    /// `GET /api/v2/silences?filter=` picks the same silences from alertd as
    /// from Alertmanager given the same ones: those that have the filter
    /// among their own matchers (what `amtool silence query` shows).
    @Test func silenceFiltersPickWhatAlertmanagersPick() async throws {
        let d = try await daemon()
        let (alertmanager, am) = try await startAlertmanager("route:\n  receiver: none\nreceivers:\n  - name: none\n")
        defer { alertmanager.signal(SIGKILL) }
        let silences: [[[String: Any]]] = [
            [["name": "alertname", "value": "QQ", "isRegex": false, "isEqual": true], ["name": "a", "value": "b|c", "isRegex": true, "isEqual": true]],
            [["name": "alertname", "value": "QQ", "isRegex": false, "isEqual": true], ["name": "a", "value": "x", "isRegex": false, "isEqual": false]],
        ]
        let formatter = ISO8601DateFormatter()
        for matchers in silences {
            let silence: [String: Any] = ["matchers": matchers, "startsAt": formatter.string(from: Date()),
                                          "endsAt": formatter.string(from: Date().addingTimeInterval(3600)), "createdBy": "t", "comment": "c"]
            let body = String(decoding: try JSONSerialization.data(withJSONObject: silence), as: UTF8.self)
            #expect(try await ExternalProgram.send("POST", am + "/api/v2/silences", json: body).status == 200)
            #expect(try await d.request("POST", "/api/v2/silences", json: silence).status == 200)
        }
        for filter in [#"a=~"b|c""#, #"a="b|c""#, #"a=~"b.*""#, #"a!="x""#, #"a="x""#, #"a=~".+""#, #"zz="""#, #"alertname="QQ""#,
                       #"alertname=~"Q+""#] {
            let query = "/api/v2/silences?filter=" + (filter.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            let theirs = try await ExternalProgram.send("GET", am + query, json: nil)
            let ours = try await d.request("GET", query)
            let count = { (data: Data) in (try? JSONSerialization.jsonObject(with: data) as? [Any])?.count }
            #expect(theirs.status == 200 && ours.status == 200, "\(filter)")
            #expect(count(ours.body) == count(theirs.body), "\(filter): alertd \(String(decoding: ours.body, as: UTF8.self))")
        }
    }

    @Test func anAlertmanagerWebhookReceiverOpensAndResolvesAlerts() async throws {
        let pager = try pagerDuty()
        let d = try await daemon(pager: pager)
        let sink = TestPresenterLog(d)
        let config = """
            route:
              receiver: alertd
              group_by: [alertname]
              group_wait: 1s
              group_interval: 1s
              repeat_interval: 1h

            """ + (try docs.snippet("alertmanager-receiver", replacements(d)))
        let (alertmanager, am) = try await startAlertmanager(config)
        defer { alertmanager.signal(SIGKILL) }

        let alert = #"{"labels": {"alertname": "DiskFull", "instance": "db1", "severity": "error"}, "annotations": {"summary": "Disk full on db1"}"#
        #expect(try await ExternalProgram.send("POST", am + "/api/v2/alerts", json: "[\(alert)}]").status == 200)
        #expect(await sink.wait(timeout: .seconds(30)) { $0.count == 1 }, "alertmanager log:\n\(alertmanager.log)\nalertd log:\n\(d.log)")
        let open = try #require(try await alerts(d, "label=alertname=DiskFull").first)
        let spec = try #require(open["spec"] as? [String: Any])
        #expect(spec["title"] as? String == "Disk full on db1")
        #expect(spec["severity"] as? String == "error")
        // alertd's fingerprint is Alertmanager's own.
        let amAlerts = try JSONSerialization.jsonObject(with: try await ExternalProgram.send("GET", am + "/api/v2/alerts").body) as? [[String: Any]]
        #expect(spec["dedup_key"] as? String == amAlerts?.first?["fingerprint"] as? String)

        let ended = UTCTimestamp.iso8601(Date())
        #expect(try await ExternalProgram.send("POST", am + "/api/v2/alerts", json: "[\(alert), \"endsAt\": \"\(ended)\"}]").status == 200)
        let resolved = try await eventually(.seconds(30)) {
            try await alerts(d, "label=alertname=DiskFull").first?["state"] as? String == "resolved"
        }
        #expect(resolved, "alertmanager log:\n\(alertmanager.log)")
        #expect(try await alerts(d, "label=alertname=DiskFull").first?["decision"].flatMap { ($0 as? [String: Any])?["actor"] as? String } == "alertmanager-webhook")
        #expect(sink.entries.count == 1)
        #expect(try await metric(d, #"alertd_alerts_received_total{front_door="alertmanager_webhook"}"#) == 1)
        // The resolved notification became a PagerDuty resolve for the alert it triggered.
        #expect(await pager.wait(for: 2))
        #expect(events(pager).map(\.action) == ["trigger", "resolve"])
        #expect(events(pager).allSatisfy { $0.key == open["id"] as? String && $0.ok })
        await alertmanager.stop()
    }

    /// A delivery in Alertmanager's format still failing when its alert
    /// resolves says `firing` on every attempt, as Alertmanager's retries
    /// repeat their first word, and its follow-up says `resolved`, once: a
    /// retry made after the resolve had said `resolved` itself, and the
    /// follow-up said it again under another id, which receivers written for
    /// Alertmanager do not drop as a repeat.
    @Test func aDeliveryRetriedPastItsAlertsResolveStillSaysFiringAndOnlyItsFollowUpSaysResolved() async throws {
        let receiver = try ServiceReceiver(script: [HTTPResponse(status: 503), HTTPResponse(status: 503)]) { _ in [] }
        let d = try TestDaemon(config: [
            "presenters": ["bridge": ["type": "webhook", "url": receiver.base + "/hook", "format": "alertmanager"]],
            "default_route": ["presenters": ["bridge"]],
            "retry": ["initial_delay": "300ms", "factor": 2, "max_delay": "600ms", "jitter": false],
        ])
        try await d.start()
        func post(_ endsAt: String?) async throws {
            let ends = endsAt.map { #", "endsAt": "\#($0)""# } ?? ""
            let body = #"[{"labels": {"alertname": "BridgeDown", "instance": "db1"}\#(ends)}]"#
            #expect(try await d.request("POST", "/api/v2/alerts", body: Data(body.utf8), headers: ["Content-Type": "application/json"]).status == 200)
        }
        try await post(nil)
        #expect(await receiver.wait(for: 1))
        try await post(ISO8601DateFormatter().string(from: Date().addingTimeInterval(-1)))
        // Two refused, the delivery accepted, its follow-up.
        #expect(await receiver.wait(for: 4, timeout: .seconds(20)))
        try await Task.sleep(for: .milliseconds(500))
        let got = receiver.received.map { (id: $0.request.headers["webhook-id"] ?? "", status: J($0.json)["status"].string ?? "") }
        let original = got.filter { !$0.id.hasSuffix(".closed") }
        #expect(original.count == 3 && original.allSatisfy { $0.status == "firing" }, "\(got)")
        #expect(got.filter { $0.id.hasSuffix(".closed") }.map(\.status) == ["resolved"], "\(got)")
    }

    /// A webhook in Alertmanager's format sends what Alertmanager's own
    /// webhook sends for the same alert, grouped alike: both to one
    /// receiver, held side by side, key for key, firing and then resolved.
    @Test func aWebhookInAlertmanagersFormatSendsWhatAlertmanagerSends() async throws {
        let receiver = try ServiceReceiver { _ in [] }
        let d = try TestDaemon(config: [
            "presenters": ["bridge": ["type": "webhook", "url": receiver.base + "/alertd", "format": "alertmanager",
                                      "external_url": "https://alertd.example"]],
            // `rack` is one the alert lacks: no group label, on both sides.
            "routes": [["name": "team", "match": ["labels": ["team": "db"]], "presenters": ["bridge"], "group_by": ["alertname", "rack"],
                        "group_wait": "1s", "group_interval": "1s"]],
            "default_route": ["presenters": [String]()],
        ])
        try await d.start()
        let (alertmanager, am) = try await startAlertmanager("""
            route:
              receiver: bridge
              group_by: [alertname, rack]
              group_wait: 1s
              group_interval: 1s
              repeat_interval: 1h
            receivers:
              - name: bridge
                webhook_configs:
                  - url: \(receiver.base)/am
            """)
        defer { alertmanager.signal(SIGKILL) }

        let alert = #"{"labels": {"alertname": "DiskFull", "instance": "db1", "team": "db"}, "annotations": {"summary": "Disk full on db1", "description": "/var is at 99%"}, "generatorURL": "http://prometheus.example/graph?g0.expr=up""#
        func send(_ body: String) async throws {
            #expect(try await ExternalProgram.send("POST", am + "/api/v2/alerts", json: body).status == 200)
            #expect(try await d.request("POST", "/api/v2/alerts", body: Data(body.utf8), headers: ["Content-Type": "application/json"]).status == 200)
        }
        // Equal as JSON, whatever the order of keys.
        func same(_ a: Any?, _ b: Any?) -> Bool {
            func text(_ v: Any?) -> Data? { try? JSONSerialization.data(withJSONObject: [v ?? NSNull()], options: .sortedKeys) }
            return text(a) != nil && text(a) == text(b)
        }
        func bodies(_ path: String) -> [[String: Any]] { receiver.received.filter { $0.request.path == path }.map(\.json) }
        func compare(_ status: String) throws {
            let (theirs, ours) = (try #require(bodies("/am").last), try #require(bodies("/alertd").last))
            #expect(Set(ours.keys) == Set(theirs.keys), "\(ours.keys.sorted()) against \(theirs.keys.sorted())")
            for key in ["version", "status", "receiver", "groupLabels", "commonLabels", "commonAnnotations", "truncatedAlerts"] {
                #expect(same(ours[key], theirs[key]), "\(key): \(ours[key] ?? "nil") against \(theirs[key] ?? "nil")")
            }
            #expect(ours["status"] as? String == status)
            // The route is in alertd's key; the group's labels close both.
            #expect((ours["groupKey"] as? String)?.hasSuffix(#":{alertname="DiskFull"}"#) == true, "\(ours["groupKey"] ?? "")")
            #expect((theirs["groupKey"] as? String)?.hasSuffix(#":{alertname="DiskFull"}"#) == true, "\(theirs["groupKey"] ?? "")")
            #expect(ours["externalURL"] as? String == "https://alertd.example")
            let (their, our) = (try #require((theirs["alerts"] as? [[String: Any]])?.first), try #require((ours["alerts"] as? [[String: Any]])?.first))
            #expect(Set(our.keys) == Set(their.keys), "\(our.keys.sorted()) against \(their.keys.sorted())")
            for key in ["status", "labels", "annotations", "generatorURL", "fingerprint"] {
                #expect(same(our[key], their[key]), "alerts[0].\(key): \(our[key] ?? "nil") against \(their[key] ?? "nil")")
            }
            for key in ["startsAt", "endsAt"] { #expect((our[key] as? String).flatMap(RFC3339.parse) != nil, "\(key): \(our[key] ?? "nil")") }
        }

        try await send("[\(alert)}]")
        #expect(await receiver.wait(for: 2, timeout: .seconds(30)), "alertmanager log:\n\(alertmanager.log)\nalertd log:\n\(d.log)")
        try compare("firing")
        try await send("[\(alert), \"endsAt\": \"\(UTCTimestamp.iso8601(Date()))\"}]")
        #expect(await receiver.wait(for: 4, timeout: .seconds(30)), "alertmanager log:\n\(alertmanager.log)\nalertd log:\n\(d.log)")
        try compare("resolved")
        #expect(bodies("/am").count == 2 && bodies("/alertd").count == 2)
        await alertmanager.stop()
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP

#if canImport(Glibc)
import Glibc
#endif

/// The real Prometheus firing 200 alerts from one rule into a grouped route.
extension PrometheusIntegrationTests {
    /// Prometheus with 200 scrape targets that all fail (a port nobody
    /// listens on, told apart by a `shard` label), so `up == 0` is 200
    /// series at once: one rule, 200 alerts.
    func startStormingPrometheus(_ d: TestDaemon) async throws -> ExternalProgram {
        let port = try TestDaemon.freePort()
        let dead = try TestDaemon.freePort()
        let rulesPath = dir.path + "/storm-rules.yml"
        try """
            groups:
              - name: storm
                rules:
                  - alert: ShardDown
                    expr: up{job="shards"} == 0
                    labels:
                      severity: critical
                    annotations:
                      summary: Shard {{ $labels.shard }} is down

            """.write(toFile: rulesPath, atomically: true, encoding: .utf8)
        let targets = (0..<200).map { "      - targets: [\"127.0.0.1:\(dead)\"]\n        labels: {shard: \"s\($0)\"}" }.joined(separator: "\n")
        let config = """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            scrape_configs:
              - job_name: shards
                scrape_timeout: 500ms
                static_configs:
            \(targets)
            rule_files:
              - \(rulesPath)

            """ + (try docs.snippet("prometheus-alerting", replacements(d)))
        return try await launchPrometheus(config, port: port, name: "prometheus-storm")
    }

    @Test func twoHundredAlertsFromOneRuleLandAsOneGroupedNotification() async throws {
        let presenters: [String: Any] = ["sink": ["type": "test", "record": "presented.jsonl"]]
        let d = try TestDaemon(config: ["presenters": presenters])
        let api = try docs.snippet("alertd-api", replacements(d))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(api.utf8)) as? [String: Any])
        try d.rewriteConfig(object.merging([
            "presenters": presenters,
            "default_route": ["name": "prometheus", "presenters": ["sink"], "group_by": ["alertname"],
                              "group_wait": "4s", "group_interval": "1m", "repeat_interval": "1h"],
        ]) { _, new in new })
        try await d.start()
        let sink = TestPresenterLog(d)
        let prometheus = try await startStormingPrometheus(d)
        defer { prometheus.signal(SIGKILL) }

        let arrived = try await eventually(.seconds(30)) { try await alerts(d, "label=alertname=ShardDown&limit=1000").count == 200 }
        #expect(arrived, "prometheus log:\n\(prometheus.log)\nalertd log:\n\(d.log)")
        #expect(await sink.wait(timeout: .seconds(15)) { !$0.isEmpty }, "alertd log:\n\(d.log)")
        try await Task.sleep(for: .seconds(2))
        let entries = sink.entries
        #expect(entries.count == 1, "\(entries.map(\.title))")
        #expect(entries.first?.title == "[FIRING:200] alertname=ShardDown")
        #expect(entries.first?.deliveryID.hasPrefix("group:") == true)
        await prometheus.stop()
    }
}

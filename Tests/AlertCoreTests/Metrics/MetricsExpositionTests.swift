import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdCommandLine
@testable import AlertdStore
@testable import AlertdSQLiteStore
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

/// A strict reader of the Prometheus text format (0.0.4): what a scraper
/// would reject, this rejects too.
struct ExpositionParser {
    struct Sample: Equatable {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    struct Family {
        var help: String?
        var type: String?
        var samples: [Sample] = []
    }

    enum Failure: Error, CustomStringConvertible {
        case line(Int, String)
        var description: String { if case .line(let n, let m) = self { return "line \(n): \(m)" }; return "" }
    }

    static func isName(_ s: String) -> Bool { MetricsRegistry.isValidName(s) && !s.isEmpty }

    static func isLabelName(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic || first == "_" else { return false }
        return s.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }

    static func parse(_ text: String) throws -> [String: Family] {
        guard text.hasSuffix("\n") else { throw Failure.line(0, "the text must end with a newline") }
        var families: [String: Family] = [:]
        var current: String?
        var seen = Set<String>()
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().enumerated() {
            let line = String(raw)
            let n = i + 1
            if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ", maxSplits: 3).map(String.init)
                guard parts.count >= 3, isName(parts[2]) else { throw Failure.line(n, "bad metric name in \(line)") }
                let metric = parts[2]
                if parts[1] == "HELP" {
                    guard families[metric]?.help == nil else { throw Failure.line(n, "second HELP for \(metric)") }
                    families[metric, default: Family()].help = parts.count > 3 ? parts[3] : ""
                } else {
                    guard parts.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3]) else {
                        throw Failure.line(n, "bad TYPE line \(line)")
                    }
                    guard families[metric]?.samples.isEmpty ?? true, families[metric]?.type == nil else {
                        throw Failure.line(n, "TYPE for \(metric) after its samples or twice")
                    }
                    families[metric, default: Family()].type = parts[3]
                }
                current = metric
                continue
            }
            guard !line.hasPrefix("#"), !line.isEmpty else { continue }
            let sample = try parseSample(line, n)
            var family = sample.name
            if let c = current, families[c]?.type == "histogram",
               [c + "_bucket", c + "_sum", c + "_count"].contains(sample.name) { family = c }
            guard family == current, families[family]?.type != nil else {
                throw Failure.line(n, "sample \(sample.name) is not under its own HELP/TYPE")
            }
            let key = sample.name + MetricsRegistry.key(sample.labels)
            guard seen.insert(key).inserted else { throw Failure.line(n, "duplicate series \(key)") }
            families[family]!.samples.append(sample)
        }
        return families
    }

    static func parseSample(_ line: String, _ n: Int) throws -> Sample {
        var rest = Substring(line)
        let nameEnd = rest.firstIndex { $0 == "{" || $0 == " " } ?? rest.endIndex
        let name = String(rest[..<nameEnd])
        guard isName(name) else { throw Failure.line(n, "bad sample name \(name)") }
        rest = rest[nameEnd...]
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                guard let eq = rest.firstIndex(of: "=") else { throw Failure.line(n, "label without =") }
                let label = String(rest[..<eq])
                guard isLabelName(label) else { throw Failure.line(n, "bad label name \(label)") }
                rest = rest[rest.index(after: eq)...]
                guard rest.first == "\"" else { throw Failure.line(n, "label value not quoted") }
                rest = rest.dropFirst()
                var value = ""
                while true {
                    guard let c = rest.first else { throw Failure.line(n, "unterminated label value") }
                    rest = rest.dropFirst()
                    if c == "\"" { break }
                    if c == "\\" {
                        guard let e = rest.first else { throw Failure.line(n, "dangling escape") }
                        rest = rest.dropFirst()
                        switch e {
                        case "\\": value.append("\\")
                        case "\"": value.append("\"")
                        case "n": value.append("\n")
                        default: throw Failure.line(n, "bad escape \\\(e)")
                        }
                    } else if c == "\n" {
                        throw Failure.line(n, "raw newline in label value")
                    } else {
                        value.append(c)
                    }
                }
                guard labels.updateValue(value, forKey: label) == nil else { throw Failure.line(n, "label \(label) twice") }
                if rest.first == "," { rest = rest.dropFirst() } else if rest.first != "}" { throw Failure.line(n, "expected , or }") }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { throw Failure.line(n, "no space before the value") }
        let valueText = rest.dropFirst().split(separator: " ").first.map(String.init) ?? ""
        let value: Double
        switch valueText {
        case "+Inf": value = .infinity
        case "-Inf": value = -.infinity
        case "NaN": value = .nan
        default:
            guard let v = Double(valueText) else { throw Failure.line(n, "bad value \(valueText)") }
            value = v
        }
        return Sample(name: name, labels: labels, value: value)
    }

    /// Histograms: cumulative buckets ending in +Inf equal to _count.
    static func checkHistograms(_ families: [String: Family]) throws {
        for (name, f) in families where f.type == "histogram" {
            let groups = Dictionary(grouping: f.samples.filter { $0.name == name + "_bucket" }) { $0.labels.filter { $0.key != "le" } }
            for (labels, buckets) in groups {
                let values = buckets.map(\.value)
                guard values == values.sorted(), buckets.last?.labels["le"] == "+Inf" else {
                    throw Failure.line(0, "\(name)\(labels): buckets not cumulative or no +Inf")
                }
                let count = f.samples.first { $0.name == name + "_count" && $0.labels == labels }?.value
                guard count == values.last else { throw Failure.line(0, "\(name)\(labels): +Inf bucket differs from _count") }
            }
        }
    }
}

@Suite struct MetricsExpositionTests {
    @Test func theRegistryWritesStrictlyValidText() throws {
        let r = MetricsRegistry()
        r.register("demo_requests_total", .counter, help: "Requests, with a \\ backslash\nand a newline.")
        r.register("demo_latency_seconds", .histogram, help: "Latency.", buckets: [0.1, 1])
        r.increment("demo_requests_total", ["path": "/v1/\"quoted\"\\and\nnewline"])
        r.observe("demo_latency_seconds", ["p": "a"], 0.05)
        r.observe("demo_latency_seconds", ["p": "a"], 5)
        let text = r.render()
        let families = try ExpositionParser.parse(text)
        try ExpositionParser.checkHistograms(families)
        #expect(families["demo_requests_total"]?.samples.first?.labels["path"] == "/v1/\"quoted\"\\and\nnewline")
        #expect(text.contains(#"demo_latency_seconds_bucket{le="+Inf",p="a"} 2"#))
        #expect(text.contains(#"# HELP demo_requests_total Requests, with a \\ backslash\nand a newline."#))
        #expect(families["demo_latency_seconds"]?.samples.first { $0.name == "demo_latency_seconds_sum" }?.value == 5.05)
    }

    @Test(arguments: [
        ("alertd_alerts_total", true), ("_x", true), (":ns:rule", true), ("a9_Z", true),
        ("", false), ("9lives", false), ("has-dash", false), ("has space", false), ("ünïcode", false), ("ª", false),
    ])
    func metricNamesFollowPrometheusRule(_ name: String, _ valid: Bool) {
        #expect(MetricsRegistry.isValidName(name) == valid)
    }

    @Test func theDaemonsMetricsParseAndCountWhatHappened() async throws {
        let d = try TestDaemon(config: ["presenters": ["hook": ["type": "test", "record": "presented.jsonl", "outcomes": ["retry", "delivered"]]]])
        let sink = TestPresenterLog(d)
        try await d.start()
        let id = try await d.send(["title": "one", "dedup_key": "k"])
        _ = try await d.send(["title": "two", "dedup_key": "k"])
        _ = try await d.request("POST", "/v1/alerts", json: ["title": ""])
        _ = try await d.request("POST", "/v1/alerts", body: Data("{".utf8), headers: ["Content-Type": "application/json"])
        #expect(await sink.wait { $0.count >= 2 })
        try await Task.sleep(for: .milliseconds(200))
        let r = try await d.request("GET", "/metrics")
        #expect(r.status == 200)
        #expect(r.headers["Content-Type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let families = try ExpositionParser.parse(String(decoding: r.body, as: UTF8.self))
        try ExpositionParser.checkHistograms(families)
        func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            families.values.flatMap(\.samples).first { $0.name == name && $0.labels == labels }?.value
        }
        #expect(value("alertd_alerts_received_total", ["front_door": "api"]) == 1)
        #expect(value("alertd_alerts_deduplicated_total", ["front_door": "api"]) == 1)
        #expect(value("alertd_alerts_received_total", ["front_door": "alertmanager_api"]) == 0)
        #expect(value("alertd_deliveries_silenced_total") == 0)
        #expect(value("alertd_alerts_rejected_total", ["reason": "invalid_alert"]) == 1)
        #expect(value("alertd_alerts_rejected_total", ["reason": "malformed_json"]) == 1)
        #expect(value("alertd_deliveries_total", ["presenter": "hook", "outcome": "retry"]) == 1)
        #expect(value("alertd_deliveries_total", ["presenter": "hook", "outcome": "delivered"]) == 1)
        #expect(value("alertd_delivery_latency_seconds_count", ["presenter": "hook"]) == 1)
        #expect(value("alertd_open_alerts") == 1)
        #expect(value("alertd_deliveries", ["state": "dead"]) == 0)
        #expect(value("alertd_build_info", ["version": AlertdVersion.current]) == 1)
        #expect((value("alertd_store_commit_batch_size_count") ?? 0) >= 1)
        #expect(value("alertd_config_last_reload_successful") == 1)
        _ = id
    }

    /// Every refused submission is counted, under the code it was answered
    /// with: those the server refuses before any route runs (a body too
    /// large), the router's (a TCP POST without the JSON type), each item
    /// of a batch by its own code, and each alert of a partly refused
    /// Alertmanager batch once.
    /// Series whose labels are known show at 0 before their first event,
    /// the presenters' from the start and from the reload that adds one:
    /// `rate()` over a series that appears at its first increment misses it.
    @Test func knownSeriesShowAtZeroBeforeTheirFirstEvent() async throws {
        let grouped: [String: Any] = ["presenters": ["team"], "group_by": ["alertname"]]
        let d = try TestDaemon(config: ["presenters": ["hook": ["type": "test"], "team": ["type": "test", "follow_ups": true]],
                                        "routes": [grouped], "default_route": ["presenters": ["hook"]]])
        try await d.start()
        func sample(_ families: [String: ExpositionParser.Family], _ name: String, _ labels: [String: String]) -> Double? {
            families[name]?.samples.first { $0.labels == labels }?.value
        }
        func families() async throws -> [String: ExpositionParser.Family] {
            try ExpositionParser.parse(String(decoding: try await d.request("GET", "/metrics").body, as: UTF8.self))
        }
        var f = try await families()
        for outcome in ["confirmed", "cancelled", "expired", "resolved"] {
            #expect(sample(f, "alertd_decisions_total", ["outcome": outcome]) == 0)
        }
        #expect(sample(f, "alertd_decisions_total", ["outcome": "open"]) == nil)
        for action in ["confirm", "cancel"] {
            for outcome in ["delivered", "retry", "dead"] {
                #expect(sample(f, "alertd_handler_calls_total", ["action": action, "outcome": outcome]) == 0)
            }
        }
        for presenter in ["hook", "team"] {
            #expect(sample(f, "alertd_deliveries_total", ["presenter": presenter, "outcome": "delivered"]) == 0)
            #expect(sample(f, "alertd_deliveries_total", ["presenter": presenter, "outcome": "dead"]) == 0)
        }
        #expect(sample(f, "alertd_follow_ups_total", ["presenter": "team", "outcome": "delivered"]) == 0)
        #expect(sample(f, "alertd_follow_ups_total", ["presenter": "hook", "outcome": "delivered"]) == nil)
        #expect(sample(f, "alertd_group_notifications_total", ["presenter": "team", "reason": "first"]) == 0)
        #expect(sample(f, "alertd_group_notifications_total", ["presenter": "hook", "reason": "first"]) == nil)

        try await d.reload(["presenters": ["hook": ["type": "test"], "pager": ["type": "test"]], "default_route": ["presenters": ["hook", "pager"]]])
        f = try await families()
        #expect(sample(f, "alertd_deliveries_total", ["presenter": "pager", "outcome": "retry"]) == 0)
        // A counter keeps its series when its presenter goes.
        #expect(sample(f, "alertd_deliveries_total", ["presenter": "team", "outcome": "delivered"]) == 0)
    }

    @Test func everyRefusedSubmissionIsCountedUnderItsCode() async throws {
        let d = try TestDaemon(config: ["limits": ["max_body_bytes": 4_096]])
        try await d.start()
        let big = ["title": "t", "message": String(repeating: "m", count: 5_000)]
        #expect(try await d.request("POST", "/v1/alerts", json: big).status == 413)
        #expect(try await d.request("POST", "/api/v2/alerts", json: [["labels": ["alertname": String(repeating: "a", count: 5_000)]]]).status == 413)
        #expect(try await d.request("POST", "/v1/alerts", body: Data("{}".utf8), tcp: true).status == 415)
        #expect(try await d.request("POST", "/v1/alerts", json: [["title": "ok"], 5, "x"]).status == 202)
        let bad = { (name: String) in ["labels": ["alertname": name, "v": "a\nb"]] }
        #expect(try await d.request("POST", "/api/v2/alerts", json: [bad("A"), bad("B"), ["labels": ["alertname": "C"]]]).status == 400)
        let families = try ExpositionParser.parse(String(decoding: try await d.request("GET", "/metrics").body, as: UTF8.self))
        func rejected(_ reason: String) -> Double? {
            families["alertd_alerts_rejected_total"]?.samples.first { $0.labels == ["reason": reason] }?.value
        }
        #expect(rejected("body_too_large") == 2)
        #expect(rejected("unsupported_media_type") == 1)
        #expect(rejected("invalid_body") == 2)
        #expect(rejected("invalid_alert") == 2, "two alerts refused, not three")
    }
}

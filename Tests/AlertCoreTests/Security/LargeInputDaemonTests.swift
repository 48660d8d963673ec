import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl

/// Bodies with tens of thousands of keys cost time in proportion to their
/// size, and the answer lists the first problems with a count of the rest.
/// Reading them used to take time in the square of their size (the
/// builder copied its labels for every label added): 40,000 labels took
/// 19 s, and two such requests stalled `/v1/health` for as long.
@Suite(.serialized) struct LargeInputDaemonTests {
    /// Written by hand: JSONSerialization would take longer than the daemon to read it.
    static func alert(labels count: Int) -> Data {
        Data((#"{"title":"many labels","labels":{"# + (0..<count).map { "\"l\($0)\":\"v\"" }.joined(separator: ",") + "}}").utf8)
    }

    static func alert(unknownFields count: Int) -> Data {
        Data((#"{"title":"many fields","# + (0..<count).map { "\"f\($0)\":\"v\"" }.joined(separator: ",") + "}").utf8)
    }

    func submit(_ d: TestDaemon, _ body: Data) async throws -> (HTTPClientResponse, Duration) {
        let start = ContinuousClock.now
        let response = try await d.request("POST", "/v1/alerts", body: body, headers: ["Content-Type": "application/json"], tcp: true)
        return (response, ContinuousClock.now - start)
    }

    func error(_ r: HTTPClientResponse) -> [String: Any] {
        ((try? JSONSerialization.jsonObject(with: r.body)) as? [String: Any])?["error"] as? [String: Any] ?? [:]
    }

    @Test func hugeBodiesAreRefusedQuicklyWithACappedListWhileHealthStaysFast() async throws {
        let d = try TestDaemon()
        try await d.start()
        // A probe on TCP for the whole test; it reports the slowest answer.
        let probe = Task { () -> Duration in
            var slowest: Duration = .zero
            while !Task.isCancelled {
                let start = ContinuousClock.now
                let ok = (try? await d.request("GET", "/v1/health", tcp: true))?.status == 200
                // A request the test's own cancel cut off says nothing of the daemon.
                if Task.isCancelled { break }
                slowest = max(slowest, ok ? ContinuousClock.now - start : .seconds(999))
                try? await Task.sleep(for: .milliseconds(20))
            }
            return slowest
        }

        let labels = Self.alert(labels: 40_000)
        #expect(labels.count < 1 << 20)
        let (tooMany, labelsTime) = try await submit(d, labels)
        #expect(tooMany.status == 422)
        #expect(labelsTime < .seconds(1), "40,000 labels took \(labelsTime)")
        // Past the label-count limit the labels are not checked one by one: one problem.
        let labelDetails = try #require(error(tooMany)["details"] as? [[String: Any]])
        #expect(labelDetails.map { $0["code"] as? String } == ["too_many_labels"])

        let (unknown, unknownTime) = try await submit(d, Self.alert(unknownFields: 20_000))
        #expect(unknown.status == 422)
        #expect(unknownTime < .seconds(1), "20,000 unknown fields took \(unknownTime)")
        let body = error(unknown)
        #expect(body["code"] as? String == "invalid_alert")
        #expect((body["details"] as? [Any])?.count == AlertSpecErrors.listLimit)
        #expect(body["details_omitted"] as? Int == 20_000 - AlertSpecErrors.listLimit)
        #expect(body["message"] as? String == "The alert is invalid: 20000 problems found; details lists the first 100.")
        // It was 3.5 MB.
        #expect(unknown.body.count < 32 * 1024)

        // Two at once, as in the report; the probe kept running throughout.
        async let first = submit(d, Self.alert(labels: 30_000))
        async let second = submit(d, Self.alert(labels: 30_000))
        let both = try await [first, second]
        #expect(both.allSatisfy { $0.0.status == 422 && $0.1 < .seconds(1) }, "\(both.map(\.1))")

        // A batch of small bad items: the answer stays smaller than the body.
        let items = (0..<1_000).map { i in "{" + (0..<60).map { "\"x\($0)\":\(i)" }.joined(separator: ",") + "}" }
        let batch = Data(("[" + items.joined(separator: ",") + "]").utf8)
        let (refused, batchTime) = try await submit(d, batch)
        #expect(refused.status == 422)
        #expect(batchTime < .seconds(2), "the batch took \(batchTime)")
        #expect(refused.body.count < batch.count, "\(refused.body.count) bytes answered \(batch.count)")
        let results = try #require((try JSONSerialization.jsonObject(with: refused.body) as? [String: Any])?["results"] as? [[String: Any]])
        let errors = results.compactMap { $0["error"] as? [String: Any] }
        let listed = errors.map { ($0["details"] as? [Any])?.count ?? 0 }.reduce(0, +)
        let omitted = errors.map { $0["details_omitted"] as? Int ?? 0 }.reduce(0, +)
        #expect(listed + omitted == 1_000 * 61)  // 60 unknown keys and the missing title each
        #expect(listed <= 10 * AlertSpecErrors.listLimit + 1_000)

        probe.cancel()
        let slowest = await probe.value
        #expect(slowest < .seconds(1), "/v1/health took \(slowest) at worst")
    }
}

import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdDelivery
@testable import AlertdDaemon

/// Per-presenter rate limits on the real daemon, against a real receiver.
@Suite(.serialized) struct RateLimitDaemonTests {
    /// The value of `alertd_delivery_backlog{presenter="<name>"}`, 0 when absent.
    static func backlog(_ d: TestDaemon, _ presenter: String) async throws -> Int {
        let text = String(decoding: try await d.request("GET", "/metrics").body, as: UTF8.self)
        let prefix = "alertd_delivery_backlog{presenter=\"\(presenter)\"} "
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return 0 }
        return Int(Double(line.dropFirst(prefix.count)) ?? -1)
    }

    @Test func aRateLimitedPresenterGetsEverythingAtItsRateAndNothingIsLost() async throws {
        let receiver = try WebhookReceiver()
        // 10 a second with a burst of 2: 24 alerts take at least 2.2 s.
        let d = try TestDaemon(config: ["presenters": [
            "hook": ["type": "webhook", "url": receiver.url, "rate": "600/m", "burst": 2],
            "free": ["type": "test", "record": "presented.jsonl"],
        ]])
        try await d.start()
        let batch = (0..<24).map { ["title": "storm \($0)", "dedup_key": "storm-\($0)"] as [String: Any] }
        let r = try await d.request("POST", "/v1/alerts", json: batch)
        #expect(r.status == 202)
        let results = (try JSONSerialization.jsonObject(with: r.body) as? [String: Any])?["results"] as? [[String: Any]] ?? []
        let sent = Set(results.compactMap { $0["id"] as? String })
        #expect(sent.count == 24)
        // The backlog waits in the queue and /metrics shows it.
        #expect(try await Self.backlog(d, "hook") >= 10)
        // A presenter without a limit is not held back by another's.
        let free = TestPresenterLog(d)
        #expect(await free.wait(timeout: .seconds(5)) { $0.count == 24 })

        #expect(await receiver.wait(timeout: .seconds(15)) { $0.count >= 24 })
        try await Task.sleep(for: .milliseconds(300))  // nothing more arrives: no duplicates
        let got = receiver.received
        #expect(got.count == 24)
        #expect(Set(got.compactMap(\.alertID)) == sent)
        // Never faster than the bucket allows: in any stretch, at most burst
        // + rate × its length go out, so the n-th arrival (0-based) comes no
        // sooner than (n - burst) / rate after the second. Measured from the
        // second, not the first: the first also waits for curl to connect,
        // which would make later ones look early.
        let first = try #require(got.first?.at)
        let second = try #require(got.dropFirst().first?.at)
        for (n, arrival) in got.enumerated() where n >= 3 {
            let floor = Duration.milliseconds(Int64((n - 2) * 100) - 60)
            #expect(arrival.at - second >= floor, "arrival \(n) came \(arrival.at - second) after the second")
        }
        // And not much slower either: the queue drains at the rate.
        let span = try #require(got.last?.at) - first
        #expect(span < .milliseconds(2_200 + 2_500), "24 deliveries took \(span)")
        #expect(try await Self.backlog(d, "hook") == 0)
        await receiver.stop()
    }

    @Test func theBacklogOverTheLimitSurvivesARestart() async throws {
        let receiver = try WebhookReceiver()
        let d = try TestDaemon(config: ["presenters": [
            "hook": ["type": "webhook", "url": receiver.url, "rate": 2, "burst": 1],
        ]])
        try await d.start()
        let batch = (0..<8).map { ["title": "held \($0)"] as [String: Any] }
        let r = try await d.request("POST", "/v1/alerts", json: batch)
        let results = (try JSONSerialization.jsonObject(with: r.body) as? [String: Any])?["results"] as? [[String: Any]] ?? []
        let sent = Set(results.compactMap { $0["id"] as? String })
        #expect(sent.count == 8)
        #expect(await receiver.wait(timeout: .seconds(5)) { $0.count >= 1 })
        d.signal(SIGTERM)
        #expect(await d.waitForExit() == 0)
        let before = receiver.received.count
        #expect(before < 8, "the limit should have left a backlog, yet \(before) were delivered")

        try await d.start()
        #expect(await receiver.wait(timeout: .seconds(15)) { $0.count >= 8 })
        try await Task.sleep(for: .milliseconds(700))
        #expect(receiver.received.count == 8)
        #expect(Set(receiver.received.compactMap(\.alertID)) == sent)
        await receiver.stop()
    }

    @Test func aBadRateIsAClearConfigurationError() async throws {
        let d = try TestDaemon(config: ["presenters": [
            "hook": ["type": "webhook", "url": "http://127.0.0.1:9/", "rate": "ten a minute", "burst": 0],
        ]])
        let result = try await d.checkConfig()
        #expect(result.exitCode != 0)
        #expect(result.stderr.contains("presenters.hook.rate"))
        #expect(result.stderr.contains("presenters.hook.burst"))
    }
}

@Suite struct RateLimitParsingTests {
    @Test func ratesReadPerSecondMinuteOrHour() {
        #expect(RateLimit.parse(5) == 5)
        #expect(RateLimit.parse(0.5) == 0.5)
        #expect(RateLimit.parse("30/m") == 0.5)
        #expect(RateLimit.parse("7200/h") == 2)
        #expect(RateLimit.parse(" 4 / s") == 4)
        for bad: Any in [0, -1, "0/m", "5/d", "5", "fast", true] { #expect(RateLimit.parse(bad) == nil, "\(bad)") }
    }

    @Test func theBucketSpendsItsBurstThenRefillsAtTheRate() {
        let start = ContinuousClock.now
        var bucket = TokenBucket(RateLimit(perSecond: 4, burst: 3), now: start)
        #expect(bucket.available(at: start) == 3)
        bucket.take(3, at: start)
        #expect(bucket.available(at: start) == 0)
        #expect(bucket.untilNextToken(at: start) == .milliseconds(250))
        #expect(bucket.available(at: start + .milliseconds(500)) == 2)
        #expect(bucket.available(at: start + .seconds(60)) == 3)  // never more than the burst
        // A rate too small for its wait in milliseconds trapped the dispatcher: the wait is at most a week.
        var slow = TokenBucket(RateLimit(perSecond: 1e-17, burst: 1), now: start)
        slow.take(1, at: start)
        #expect(slow.untilNextToken(at: start) == .seconds(604_800))
    }

    /// A rate at either extreme is a configuration problem, not a trap:
    /// 1e300/s trapped reading the default burst, 1e-17/s the dispatcher.
    @Test func ratesOutsideAWeekToAMillionASecondAreProblems() {
        func problems(_ rate: String) -> [String] {
            let reader = JSONConfigReader()
            _ = RateLimit.read(["rate": try! StrictJSON.parse(rate)], at: "presenters.x", reader)
            return reader.problems
        }
        for bad in ["1e300", "9.3e18", "\"1e19/s\"", "1e-17", "\"1e-16/s\"", "\"0.001/h\""] {
            #expect(problems(bad).first?.contains("from 1 a week") == true, "\(bad): \(problems(bad))")
        }
        for good in ["1000000", "\"0.006/h\"", "\"1/h\"", "0.5"] { #expect(problems(good).isEmpty, "\(good)") }
        let reader = JSONConfigReader()
        #expect(RateLimit.read(["rate": 1_000_000.0], at: "x", reader)?.burst == 100_000)
    }
}

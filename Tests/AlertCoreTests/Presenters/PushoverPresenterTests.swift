import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdDelivery

/// The `pushover` presenter against a stand-in for Pushover's messages API
/// (https://pushover.net/api).
@Suite struct PushoverPresenterTests {
    static let token = "azGDORePK8gMaC0QOYAMyEEuzJnyUi"
    static let user = "uQiRzpo4DXghDmr9QzzfQu27cmVRsG"

    static func contract(_ request: HTTPRequest) -> [String] {
        ServiceFixtures.jsonContract(request, path: "/1/messages.json") { json in
            let body = J(json)
            var problems: [String] = []
            if body["token"].string != token { problems.append("application token") }
            if body["user"].string != user { problems.append("user key") }
            let message = body["message"].string ?? ""
            if message.isEmpty || message.count > 1_024 { problems.append("message length \(message.count)") }
            if (body["title"].string?.count ?? 0) > 250 { problems.append("title longer than 250") }
            if (body["url"].string?.count ?? 0) > 512 { problems.append("url longer than 512") }
            if (body["url_title"].string?.count ?? 0) > 100 { problems.append("url_title longer than 100") }
            if let p = body["priority"].int, !(-2...2).contains(p) { problems.append("priority \(p)") }
            if body["priority"].int == 2 && (!body["retry"].exists || !body["expire"].exists) { problems.append("emergency needs retry and expire") }
            return problems
        }
    }

    static let accepted = ServiceFixtures.json(200, #"{"status": 1, "request": "647d2300-702c-4b38-8b2f-d56326ae460b"}"#)

    func presenter(_ receiver: ServiceReceiver) throws -> any AlertPresenter {
        let dir = TemporaryDirectory()
        try writeSecretFile(Self.token, to: dir.path + "/token")
        try writeSecretFile((Self.user + "\n"), to: dir.path + "/user")
        return try ServiceFixtures.presenter(PushoverPresenterConfiguration.self, [
            "token_file": dir.path + "/token", "user_file": dir.path + "/user", "api_url": receiver.base,
        ])
    }

    @Test func sendsWithKeysFromFilesPriorityAndTheConfirmLink() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let p = try presenter(receiver)
        for (severity, priority) in [(Severity.info, -1), (.warning, 0), (.error, 1), (.critical, 1)] {
            #expect(await p.present(try ServiceFixtures.alert(severity: severity), delivery: ServiceFixtures.delivery) == .delivered)
            #expect(J(receiver.received.last?.json)["priority"].int == priority)
        }
        #expect(receiver.received.allSatisfy { $0.problems.isEmpty })
        let body = J(try #require(receiver.received.first).json)
        #expect(body["url"].string == ServiceFixtures.confirmLink)
        #expect(body["url_title"].string == "Expand")
        #expect(body["html"].int == 1)
        let message = try #require(body["message"].string)
        #expect(message.hasPrefix("/var is at 98% &lt;b&gt;now&lt;/b&gt; &amp; rising\n\n<b>env</b>: prod\n<b>host</b>: db1"))
        #expect(message.contains(">Ignore</a>"))
    }

    @Test func aLongMessageKeepsItsLinks() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        #expect(try await presenter(receiver).present(try ServiceFixtures.alert(message: String(repeating: "x", count: 5_000)),
                                                      delivery: ServiceFixtures.delivery) == .delivered)
        let got = try #require(receiver.received.first)
        #expect(got.problems.isEmpty, "\(got.problems)")
        #expect(J(got.json)["message"].string?.contains(">Ignore</a>") == true)
    }

    /// Long labels are left out whole, never cut inside a tag or a link:
    /// both links arrive, and every tag that opens closes.
    @Test func longLabelsLeaveTheLinksAndTheHTMLWhole() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let p = try presenter(receiver)
        for (message, size) in [(nil, 400), ("short", 460), (String(repeating: "m&", count: 900), 900)] as [(String?, Int)] {
            let labels = ["host": "db1", "zlong": String(repeating: "v<", count: size / 2), "zz": String(repeating: "w", count: 300)]
            #expect(await p.present(try ServiceFixtures.alert(message: message, labels: labels), delivery: ServiceFixtures.delivery) == .delivered)
            let got = try #require(receiver.received.last)
            #expect(got.problems.isEmpty, "\(got.problems)")
            let text = try #require(J(got.json)["message"].string)
            #expect(text.contains(">Expand</a>") && text.contains(">Ignore</a>"), "\(text)")
            #expect(text.contains("<b>host</b>: db1"))
            for tag in ["b", "a"] {
                #expect(text.components(separatedBy: "<\(tag)>").count + text.components(separatedBy: "<\(tag) ").count - 2
                            == text.components(separatedBy: "</\(tag)>").count - 1, "\(text)")
            }
            // Never cut inside an escape: every & starts one.
            #expect(text.components(separatedBy: "&").dropFirst().allSatisfy { $0.hasPrefix("lt;") || $0.hasPrefix("gt;") || $0.hasPrefix("amp;") || $0.hasPrefix("quot;") || $0.hasPrefix("#") })
        }
    }

    @Test func answersAreJudgedWithPushoversErrors() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let target = "pushover (\(receiver.base))"
        // The quota resets in three days, as Pushover says in X-Limit-App-Reset.
        let reset = Int(Date().timeIntervalSince1970) + 3 * 86_400
        let quotaSpent = #"{"errors": ["application has exceeded its monthly message limit"], "status": 0}"#
        let outcomes = try await ServiceFixtures.outcomes(try presenter(receiver), receiver, [
            ServiceFixtures.json(400, #"{"user": "invalid", "errors": ["user identifier is not a valid user, group, or subscribed user key"], "status": 0}"#),
            ServiceFixtures.json(429, quotaSpent),
            ServiceFixtures.json(429, quotaSpent, headers: ["X-Limit-App-Limit": "10000", "X-Limit-App-Remaining": "0", "X-Limit-App-Reset": "\(reset)"]),
            .text(status: 500, "oops"),
        ])
        #expect(outcomes.count == 4)
        #expect(outcomes[0] == .permanentFailure(reason: "HTTP 400 from \(target): user identifier is not a valid user, group, or subscribed user key"))
        // No wait named: the backoff, over the 5 s floor the presenter declares (noAnswerWaitsTheFiveSecondsPushoverAsks).
        #expect(outcomes[1] == .retryableFailure(reason: "HTTP 429 from \(target): application has exceeded its monthly message limit"))
        #expect(outcomes[3] == .retryableFailure(reason: "HTTP 500 from \(target): oops"))
        // The spent quota: the wait runs to its reset.
        guard case .retryableFailure(_, let untilReset?) = outcomes[2] else { Issue.record("\(outcomes[2])"); return }
        #expect(abs(untilReset.seconds - Double(3 * 86_400)) < 5, "\(untilReset)")
    }

    /// No answer at all (nothing listens), or a 5xx: retried no sooner than
    /// 5 s, as Pushover asks, and later further apart as the backoff grows.
    @Test func noAnswerWaitsTheFiveSecondsPushoverAsks() async throws {
        let dir = TemporaryDirectory()
        try writeSecretFile(Self.token, to: dir.path + "/token")
        try writeSecretFile(Self.user, to: dir.path + "/user")
        let port = try TestDaemon.freePort()
        let presenter = try ServiceFixtures.presenter(PushoverPresenterConfiguration.self, [
            "token_file": dir.path + "/token", "user_file": dir.path + "/user", "api_url": "http://127.0.0.1:\(port)",
        ])
        let outcome = await presenter.present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery)
        guard case .retryableFailure(let reason, let wait) = outcome else { Issue.record("\(outcome)"); return }
        // Pushover asked for nothing: no receiver's wait, which would pause the presenter.
        #expect(wait == nil, "\(reason)")
        #expect(presenter.minimumRetryDelay == .seconds(5))

        var policy = RetryPolicy()
        policy.minimumDelay = try #require(presenter.minimumRetryDelay)
        let now = Date()
        for attempt in 1...3 {
            guard case .retry(let at, _) = policy.settle(reason: reason, retryable: true, retryAfter: wait, attempt: attempt, createdAt: now, now: now)
            else { Issue.record("expected a retry"); return }
            #expect(at.timeIntervalSince(now) == 5, "attempt \(attempt)")
        }
        policy.jitter = false
        guard case .retry(let later, _) = policy.settle(reason: reason, retryable: true, retryAfter: nil, attempt: 6, createdAt: now, now: now)
        else { Issue.record("expected a retry"); return }
        #expect(later.timeIntervalSince(now) == 32, "the backoff grows past the floor")
    }

    @Test func bothKeysAreRequired() {
        #expect(ServiceFixtures.read(PushoverPresenterConfiguration.self, ["token": "t"]).1
            == ["presenters.p.user: is required (or user_file): the user or group key"])
    }
}

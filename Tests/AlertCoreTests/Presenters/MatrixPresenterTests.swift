import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdDelivery

/// The `matrix` presenter against a stand-in for a homeserver's
/// `PUT /_matrix/client/v3/rooms/{roomId}/send/{eventType}/{txnId}`.
@Suite struct MatrixPresenterTests {
    static func contract(_ request: HTTPRequest) -> [String] {
        var problems: [String] = []
        if request.headers["Authorization"] != "Bearer syt_SECRET" { problems.append("Authorization") }
        if request.body.count > 65_536 { problems.append("event larger than 64 KiB") }
        let path = request.path.removingPercentEncoding ?? request.path
        let prefix = "/_matrix/client/v3/rooms/!ops:example.org/send/m.room.message/"
        guard path.hasPrefix(prefix), path.count > prefix.count else { return problems + ["path \(request.path)"] }
        var forContract = request
        forContract.path = "/txn"
        return problems + ServiceFixtures.jsonContract(forContract, method: "PUT", path: "/txn") { json in
            let body = J(json)
            var problems: [String] = []
            if !["m.text", "m.notice"].contains(body["msgtype"].string ?? "") { problems.append("msgtype") }
            if (body["body"].string ?? "").isEmpty { problems.append("body is required") }
            if body["formatted_body"].exists && body["format"].string != "org.matrix.custom.html" { problems.append("format") }
            // Alert text is not someone pinging: no one is mentioned, and the
            // legacy rules (`@room`, display names) stay off.
            if !body["m.mentions"].exists || !body["m.mentions"].object.isEmpty { problems.append("m.mentions must be present and empty") }
            return problems
        }
    }

    static let accepted = ServiceFixtures.json(200, #"{"event_id": "$abc"}"#)

    func presenter(_ receiver: ServiceReceiver, notice: Bool = false) throws -> any AlertPresenter {
        try ServiceFixtures.presenter(MatrixPresenterConfiguration.self, [
            "url": receiver.base + "/", "room": "!ops:example.org", "token": "syt_SECRET", "notice": notice,
        ])
    }

    @Test func sendsPlainAndHTMLBodiesWithTheDeliveryIDAsTransaction() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let p = try presenter(receiver)
        for attempt in 1...2 {
            let delivery = DeliveryContext(deliveryID: "dlv-1.0", attempt: attempt, actionLinks: ServiceFixtures.delivery.actionLinks)
            #expect(await p.present(try ServiceFixtures.alert(), delivery: delivery) == .delivered)
        }
        #expect(receiver.received.allSatisfy { $0.problems.isEmpty })
        // A retry is the same transaction: the homeserver keeps one event.
        let paths = Set(receiver.received.map { $0.request.path.removingPercentEncoding ?? "" })
        #expect(paths == ["/_matrix/client/v3/rooms/!ops:example.org/send/m.room.message/dlv-1.0"])
        let body = J(try #require(receiver.received.first).json)
        #expect(body["msgtype"].string == "m.text")
        #expect(body["body"].string?.hasPrefix("🚨 [CRITICAL] Disk <full> & db1\n\n/var is at 98% <b>now</b> & rising\n\nenv: prod\nhost: db1") == true)
        let html = try #require(body["formatted_body"].string)
        #expect(html.contains("Disk &lt;full&gt; &amp; db1"))
        // A line break written CRLF ("\r\n" is one Character) is a break too.
        let crlf = try ServiceFixtures.alert(message: "first line\r\nsecond line\nthird line")
        #expect(await p.present(crlf, delivery: ServiceFixtures.delivery) == .delivered)
        let last = try #require(receiver.received.last)
        let crlfHTML = try #require(J(last.json)["formatted_body"].string)
        #expect(crlfHTML.contains("first line<br>second line<br>third line"), "\(crlfHTML)")
        #expect(html.contains("<a href=\"\(ServiceFixtures.confirmLink.replacingOccurrences(of: "&", with: "&amp;"))\">Expand</a>"))
    }

    /// Text within alertd's own limits but made of what escaping grows
    /// (quotes are `&quot;` in the HTML, backslashes doubled in the JSON)
    /// still makes an event the homeserver takes.
    @Test func anEventStaysWithinTheHomeserversLimit() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        var labels: [String: String] = [:]
        for i in 0..<64 { labels["label\(i)"] = String(repeating: "\\", count: 1_024) }
        // A title as long as `limits.max_title_length` may be raised to.
        let alert = try ServiceFixtures.alert(title: String(repeating: "\"", count: 10_000), message: String(repeating: "\"", count: 8_192),
                                              labels: labels)
        #expect(try await presenter(receiver).present(alert, delivery: ServiceFixtures.delivery) == .delivered)
        let got = try #require(receiver.received.first)
        #expect(got.problems == [])
        #expect((J(got.json)["body"].string ?? "").contains(" more\n"))
    }

    @Test func signedLinksNameTheRoom() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let alert = try ServiceFixtures.alert()
        let delivery = ServiceFixtures.signedDelivery(alert)
        #expect(try await presenter(receiver).present(alert, delivery: delivery) == .delivered)
        let got = try #require(receiver.received.first)
        let text = try #require(J(got.json)["body"].string)
        let confirm = try #require(delivery.addressed(to: "matrix:!ops:example.org").actionLinks[.confirm])
        #expect(text.contains("Expand: \(confirm)"), "\(text)")
        #expect(text.contains("&to=matrix%3A%21ops%3Aexample.org&token="))
    }

    @Test func rateLimitsWaitForRetryAfterMilliseconds() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let target = "matrix (\(receiver.base))"
        let outcomes = try await ServiceFixtures.outcomes(try presenter(receiver, notice: true), receiver, [
            ServiceFixtures.json(429, #"{"errcode": "M_LIMIT_EXCEEDED", "error": "Too many requests", "retry_after_ms": 2500}"#),
            ServiceFixtures.json(403, #"{"errcode": "M_FORBIDDEN", "error": "User @bot:example.org not in room"}"#),
            ServiceFixtures.json(401, #"{"errcode": "M_UNKNOWN_TOKEN"}"#),
            // A server that quotes the token it refused: the reason is shown in `last_error` and the log.
            ServiceFixtures.json(401, #"{"errcode": "M_UNKNOWN_TOKEN", "error": "Invalid access token passed: syt_SECRET"}"#),
        ])
        #expect(outcomes == [
            .retryableFailure(reason: "HTTP 429 from \(target): Too many requests", retryAfter: .milliseconds(2_500)),
            .permanentFailure(reason: "HTTP 403 from \(target): User @bot:example.org not in room"),
            .permanentFailure(reason: "HTTP 401 from \(target): M_UNKNOWN_TOKEN"),
            .permanentFailure(reason: "HTTP 401 from \(target): Invalid access token passed: ***"),
        ])
        #expect(J(receiver.received.first?.json)["msgtype"].string == "m.notice")
    }

    /// `{"retry_after_ms": 1e300}` crashed the daemon converting it to a duration.
    @Test func anEndlessWaitIsACenturyNotACrash() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let target = "matrix (\(receiver.base))"
        let outcomes = try await ServiceFixtures.outcomes(try presenter(receiver), receiver, [
            ServiceFixtures.json(429, #"{"errcode": "M_LIMIT_EXCEEDED", "error": "Too many requests", "retry_after_ms": 1e300}"#),
        ])
        #expect(outcomes == [.retryableFailure(reason: "HTTP 429 from \(target): Too many requests", retryAfter: .century)])
    }

    @Test func settingsAreChecked() {
        let read = { (s: [String: Any]) in ServiceFixtures.read(MatrixPresenterConfiguration.self, s).1 }
        #expect(read(["url": "https://m.example", "room": "!a:m.example", "token": "t"]).isEmpty)
        #expect(read(["url": "https://m.example", "room": "#ops:m.example", "token": "t"])
            == ["presenters.p.room: must be a room id such as \"!abcdef:example.org\" (in a client: room settings, Advanced)"])
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdDelivery

/// The `teams` presenter against a stand-in for a Teams Workflows webhook
/// that takes an Adaptive Card in a message.
@Suite struct TeamsPresenterTests {
    static let path = "/workflows/abc/triggers/manual/paths/invoke"

    static func contract(_ request: HTTPRequest) -> [String] {
        var problems: [String] = []
        if request.queryValue("sig") != "SECRETSIG" { problems.append("the sig parameter is missing") }
        if request.body.count > 28 * 1024 { problems.append("message larger than 28 KB") }
        return problems + ServiceFixtures.jsonContract(request, path: path) { json in
            var problems: [String] = []
            let body = J(json)
            if body["type"].string != "message" { problems.append("type must be message") }
            let attachment = body["attachments"][0]
            if attachment["contentType"].string != "application/vnd.microsoft.card.adaptive" { problems.append("contentType") }
            let card = attachment["content"]
            if card["type"].string != "AdaptiveCard" { problems.append("not an AdaptiveCard") }
            if card["version"].string == nil { problems.append("version") }
            let elements = card["body"].array.map(J.init)
            if elements.isEmpty { problems.append("empty body") }
            for element in elements where !["TextBlock", "FactSet"].contains(element["type"].string ?? "") { problems.append("element type") }
            for element in elements where element["type"].string == "TextBlock" && (element["text"].string ?? "").isEmpty {
                problems.append("empty TextBlock")
            }
            for action in card["actions"].array.map(J.init) {
                if action["type"].string != "Action.OpenUrl" || !(action["url"].string ?? "").hasPrefix("https://") || action["title"].string == nil {
                    problems.append("not an Action.OpenUrl with a title and url")
                }
            }
            return problems
        }
    }

    func presenter(_ receiver: ServiceReceiver) throws -> any AlertPresenter {
        try ServiceFixtures.presenter(TeamsPresenterConfiguration.self, ["url": receiver.base + Self.path + "?api-version=2016-06-01&sig=SECRETSIG"])
    }

    @Test func postsAnAdaptiveCardWithFactsAndOpenURLActions() async throws {
        let receiver = try ServiceReceiver(success: HTTPResponse(status: 202), contract: Self.contract)
        #expect(try await presenter(receiver).present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery) == .delivered)
        let got = try #require(receiver.received.first)
        #expect(got.problems.isEmpty, "\(got.problems)")
        let card = J(got.json)["attachments"][0]["content"]
        #expect(card["body"][0]["color"].string == "attention")
        #expect(card["body"][1]["text"].string == #"Disk \<full\> & db1"#)
        #expect(card["body"][3]["facts"].array.map { J($0)["title"].string } == ["env", "host"])
        #expect(card["actions"].array.map { J($0)["url"].string } == [ServiceFixtures.confirmLink, ServiceFixtures.cancelLink])
    }

    /// The card's text is Markdown: a sender's link or emphasis is shown as
    /// typed, so no planted "Confirm" link stands beside the real buttons.
    @Test func theAlertsOwnTextMakesNoLinks() async throws {
        let receiver = try ServiceReceiver(success: HTTPResponse(status: 202), contract: Self.contract)
        let alert = try ServiceFixtures.alert(message: "Use the button below or [Confirm](https://evil.example/confirm)",
                                              labels: ["runbook": "*[here](https://evil.example)*"])
        #expect(try await presenter(receiver).present(alert, delivery: ServiceFixtures.delivery) == .delivered)
        let card = J(try #require(receiver.received.first).json)["attachments"][0]["content"]
        #expect(card["body"][2]["text"].string == #"Use the button below or \[Confirm\](https://evil.example/confirm)"#)
        let facts = card["body"][3]["facts"].array.map(J.init)
        #expect(facts.first { $0["title"].string == "runbook" }?["value"].string == #"\*\[here\](https://evil.example)\*"#)
    }

    @Test func aHugeAlertStaysUnderTheMessageSize() async throws {
        let receiver = try ServiceReceiver(success: HTTPResponse(status: 202), contract: Self.contract)
        var labels: [String: String] = [:]
        for i in 0..<64 { labels["label\(i)"] = String(repeating: "v", count: 1_000) }
        let alert = try ServiceFixtures.alert(message: String(repeating: "ü", count: 50_000), labels: labels)
        #expect(try await presenter(receiver).present(alert, delivery: ServiceFixtures.delivery) == .delivered)
        #expect(receiver.received.first?.problems == [])
        // A backslash is escaped for the card, and each of the two is escaped again in the JSON.
        let backslashes = try ServiceFixtures.alert(message: String(repeating: "\\", count: 50_000),
                                                    labels: labels.mapValues { _ in String(repeating: "\\", count: 1_000) })
        #expect(try await presenter(receiver).present(backslashes, delivery: ServiceFixtures.delivery) == .delivered)
        #expect(receiver.received.last?.problems == [])
    }

    @Test func answersAreJudged() async throws {
        let receiver = try ServiceReceiver(success: HTTPResponse(status: 202), contract: Self.contract)
        let target = "teams (\(receiver.base))"
        let outcomes = try await ServiceFixtures.outcomes(try presenter(receiver), receiver, [
            ServiceFixtures.json(429, #"{"error": {"code": "TooManyRequests", "message": "Rate limit is exceeded."}}"#, headers: ["Retry-After": "5"]),
            ServiceFixtures.json(400, #"{"error": {"code": "InvalidRequestContent", "message": "The input body for trigger is not valid."}}"#),
            .text(status: 500, ""),
        ])
        #expect(outcomes == [
            .retryableFailure(reason: "HTTP 429 from \(target): Rate limit is exceeded.", retryAfter: .seconds(5)),
            .permanentFailure(reason: "HTTP 400 from \(target): The input body for trigger is not valid."),
            .retryableFailure(reason: "HTTP 500 from \(target)"),
        ])
    }
}

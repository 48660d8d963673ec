import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdDelivery

/// The `gotify` presenter against a stand-in for Gotify's `POST /message`.
@Suite struct GotifyPresenterTests {
    static func contract(_ request: HTTPRequest) -> [String] {
        var problems: [String] = []
        if request.headers["X-Gotify-Key"] != "AppTokenSECRET" { problems.append("X-Gotify-Key") }
        return problems + ServiceFixtures.jsonContract(request, path: "/gotify/message") { json in
            let body = J(json)
            var problems: [String] = []
            if (body["message"].string ?? "").isEmpty { problems.append("message is required") }
            if body["priority"].int == nil { problems.append("priority must be a number") }
            if body["extras"]["client::display"]["contentType"].string != "text/markdown" { problems.append("markdown extras") }
            return problems
        }
    }

    func presenter(_ receiver: ServiceReceiver) throws -> any AlertPresenter {
        try ServiceFixtures.presenter(GotifyPresenterConfiguration.self, ["url": receiver.base + "/gotify", "token": "AppTokenSECRET",
                                                                          "click": "https://grafana.example/"])
    }

    @Test func sendsMarkdownWithPriorityAndLinks() async throws {
        let receiver = try ServiceReceiver(success: ServiceFixtures.json(200, #"{"id": 1}"#), contract: Self.contract)
        #expect(try await presenter(receiver).present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery) == .delivered)
        let got = try #require(receiver.received.first)
        #expect(got.problems.isEmpty, "\(got.problems)")
        let body = J(got.json)
        #expect(body["title"].string == "🚨 Disk <full> & db1")
        #expect(body["priority"].int == 9)
        #expect(body["message"].string == #"/var is at 98% \<b\>now\</b\> & rising"# + "\n\n**env**: prod  \n**host**: db1  \n\n"
            + "[Expand](\(ServiceFixtures.confirmLink)) · [Ignore](\(ServiceFixtures.cancelLink))")
        #expect(body["extras"]["client::notification"]["click"]["url"].string == "https://grafana.example/")
    }

    /// Web addresses stay whole, as links (escaped, `http://127\.0\.0\.1`
    /// became a link to `http://127`); each line break is one; what would
    /// make a heading or a list at a line's start shows as typed; and the
    /// labels have a budget.
    @Test func linksLinesAndLabelsShowAsSent() async throws {
        let receiver = try ServiceReceiver(success: ServiceFixtures.json(200, #"{"id": 1}"#), contract: Self.contract)
        var labels = ["url": "https://x.example/a_b"]
        for i in 0..<64 { labels["z\(i)"] = String(repeating: "v", count: 1_024) }
        let alert = try ServiceFixtures.alert(
            message: "See https://ok.example/path_with_underscores?a=1&b=2.\n- not a list\n# not a heading\n1. not a list either", labels: labels)
        #expect(try await presenter(receiver).present(alert, delivery: ServiceFixtures.delivery) == .delivered)
        let got = try #require(receiver.received.first)
        let message = try #require(J(got.json)["message"].string)
        #expect(message.hasPrefix("See <https://ok.example/path_with_underscores?a=1&b=2>.  \n\\- not a list  \n\\# not a heading  \n1\\. not a list either\n\n"))
        #expect(message.contains("**url**: <https://x.example/a_b>  \n"))
        #expect(message.utf8.count < 4_000 + 1_000)
        #expect(message.contains(" more\n\n"))
    }

    @Test func markdownEscapingLeavesAddressesAndPlainTextAlone() {
        let md = { MarkupEscaping.markdown($0) }
        #expect(md("[Confirm](https://evil.example) *now*") == #"\[Confirm\](<https://evil.example>) \*now\*"#)
        #expect(md("(see https://x.example/a_(b)), then http://127.0.0.1:8080/x.") == "(see <https://x.example/a_(b)>), then <http://127.0.0.1:8080/x>.")
        #expect(md("a & b &amp; &#60; 3.5 - x # y") == #"a & b \&amp; \&#60; 3.5 - x # y"#)
        #expect(md("  > quoted\n+ item\n===") == "  \\> quoted\n\\+ item\n\\===")
        #expect(md("xhttps://no.example") == "xhttps://no.example")
        #expect(MarkupEscaping.markdown("a\nb", hardBreaks: true) == "a  \nb")
        // Windows line ends are line ends.
        #expect(MarkupEscaping.markdown("foo\r\n# Heading\r\n- item\r\n1. one", hardBreaks: true) == "foo  \n\\# Heading  \n\\- item  \n1\\. one")
        // A run of brackets after an address costs its length, not its square.
        let start = ContinuousClock.now
        #expect(md("http://a" + String(repeating: ")", count: 20_000)).hasPrefix("<http://a>))"))
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    @Test func answersAreJudged() async throws {
        let receiver = try ServiceReceiver(success: ServiceFixtures.json(200, #"{"id": 1}"#), contract: Self.contract)
        let target = "gotify (\(receiver.base))"
        let outcomes = try await ServiceFixtures.outcomes(try presenter(receiver), receiver, [
            ServiceFixtures.json(401, #"{"error": "Unauthorized", "errorCode": 401, "errorDescription": "you need to provide a valid access token"}"#),
            ServiceFixtures.json(500, #"{"error": "Internal Server Error", "errorCode": 500}"#),
            // A word of the API's path (`/message`) is no key: it stays in the service's words.
            ServiceFixtures.json(400, #"{"error": "Bad Request", "errorCode": 400, "errorDescription": "Field 'message' is required"}"#),
        ])
        #expect(outcomes == [
            .permanentFailure(reason: "HTTP 401 from \(target): you need to provide a valid access token"),
            .retryableFailure(reason: "HTTP 500 from \(target): Internal Server Error"),
            .permanentFailure(reason: "HTTP 400 from \(target): Field 'message' is required"),
        ])
    }
}

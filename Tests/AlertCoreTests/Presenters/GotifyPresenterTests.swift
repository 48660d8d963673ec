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

    @Test func answersAreJudged() async throws {
        let receiver = try ServiceReceiver(success: ServiceFixtures.json(200, #"{"id": 1}"#), contract: Self.contract)
        let target = "gotify (\(receiver.base))"
        let outcomes = try await ServiceFixtures.outcomes(try presenter(receiver), receiver, [
            ServiceFixtures.json(401, #"{"error": "Unauthorized", "errorCode": 401, "errorDescription": "you need to provide a valid access token"}"#),
            ServiceFixtures.json(500, #"{"error": "Internal Server Error", "errorCode": 500}"#),
        ])
        #expect(outcomes == [
            .permanentFailure(reason: "HTTP 401 from \(target): you need to provide a valid access token"),
            .retryableFailure(reason: "HTTP 500 from \(target): Internal Server Error"),
        ])
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdDelivery

/// The `slack` presenter against a stand-in for Slack's incoming webhooks,
/// which holds each message to Block Kit's documented shape and limits.
@Suite struct SlackPresenterTests {
    static let path = "/services/T0000/B0000/SECRETTOKEN"

    /// What Slack checks (https://api.slack.com/reference/block-kit/blocks).
    static func contract(_ request: HTTPRequest) -> [String] {
        ServiceFixtures.jsonContract(request, path: path, blockKit)
    }

    /// A message's text, attachment and blocks against Block Kit's rules.
    static func blockKit(_ json: [String: Any]) -> [String] {
        var problems: [String] = []
        let body = J(json)
        guard let text = body["text"].string, !text.isEmpty else { return ["`text` is required with blocks"] }
        if text.utf16.count > 40_000 { problems.append("text longer than 40000") }
        let attachment = body["attachments"][0]
        if attachment["color"].string?.range(of: "^#[0-9A-F]{6}$", options: .regularExpression) == nil {
            problems.append("attachment colour \(attachment["color"].value ?? "none") is not #RRGGBB")
        }
        let blocks = attachment["blocks"].array
        if blocks.isEmpty || blocks.count > 50 { problems.append("\(blocks.count) blocks") }
        for block in blocks.map(J.init) {
            // Text objects: `verbatim` is for mrkdwn only, `emoji` for plain_text only.
            for object in [block["text"]] + (block["fields"].array + block["elements"].array).map(J.init) where object["type"].string != "button" {
                if object["verbatim"].exists && object["type"].string != "mrkdwn" { problems.append("verbatim on \(object["type"].value ?? "none")") }
                if object["emoji"].exists && object["type"].string != "plain_text" { problems.append("emoji on \(object["type"].value ?? "none")") }
            }
            switch block["type"].string {
            case "header":
                if block["text"]["type"].string != "plain_text" { problems.append("header text must be plain_text") }
                if (block["text"]["text"].string?.utf16.count ?? 0) > 150 { problems.append("header longer than 150") }
            case "section":
                if let t = block["text"]["text"].string, t.utf16.count > 3_000 { problems.append("section text longer than 3000") }
                let fields = block["fields"].array
                if fields.count > 10 { problems.append("\(fields.count) fields, at most 10") }
                for field in fields.map(J.init) where (field["text"].string?.utf16.count ?? 0) > 2_000 {
                    problems.append("field longer than 2000")
                }
                if !block["text"].exists && fields.isEmpty { problems.append("a section needs text or fields") }
            case "context":
                if block["elements"].array.isEmpty || block["elements"].array.count > 10 { problems.append("\(block["elements"].array.count) context elements") }
            case "actions":
                let elements = block["elements"].array.map(J.init)
                if elements.isEmpty || elements.count > 25 { problems.append("\(elements.count) action elements") }
                for button in elements {
                    if button["type"].string != "button" { problems.append("not a button") }
                    if (button["text"]["text"].string?.utf16.count ?? 99) > 75 { problems.append("button text longer than 75") }
                    if (button["url"].string?.utf16.count ?? 0) > 3_000 { problems.append("button url longer than 3000") }
                    if let style = button["style"].string, !["primary", "danger"].contains(style) { problems.append("style \(style)") }
                }
                if Set(elements.compactMap { $0["action_id"].string }).count != elements.count { problems.append("action_ids not unique") }
            default:
                problems.append("unexpected block type \(block["type"].value ?? "none")")
            }
        }
        return problems
    }

    func presenter(_ receiver: ServiceReceiver) throws -> any AlertPresenter {
        try ServiceFixtures.presenter(SlackPresenterConfiguration.self, ["url": receiver.base + Self.path])
    }

    @Test func postsABlockKitMessageWithColourFieldsAndLinkButtons() async throws {
        let receiver = try ServiceReceiver(contract: Self.contract)
        let outcome = try await presenter(receiver).present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery)
        #expect(outcome == .delivered)
        let got = try #require(receiver.received.first)
        #expect(got.problems.isEmpty, "\(got.problems)")
        let body = J(got.json)
        #expect(body["text"].string == "🚨 [CRITICAL] Disk &lt;full&gt; &amp; db1")
        #expect(body["attachments"][0]["color"].string == "#D0021B")
        let blocks = body["attachments"][0]["blocks"]
        #expect(blocks[0]["text"]["text"].string == "🚨 Disk <full> & db1")
        // mrkdwn: the three characters Slack reserves are escaped, nothing else.
        #expect(blocks[1]["text"]["text"].string == "/var is at 98% &lt;b&gt;now&lt;/b&gt; &amp; rising")
        // Verbatim, so "#general" or "@here" in an alert's text is not made a link or a mention.
        #expect(blocks[1]["text"]["verbatim"].bool == true)
        #expect(blocks[2]["fields"].array.allSatisfy { J($0)["verbatim"].bool == true })
        #expect(blocks[2]["fields"].array.map { J($0)["text"].string } == ["*env*\nprod", "*host*\ndb1"])
        let buttons = blocks[4]["elements"]
        #expect(buttons[0]["url"].string == ServiceFixtures.confirmLink)
        #expect(buttons[0]["text"]["text"].string == "Expand")
        #expect(buttons[0]["style"].string == "primary")
        #expect(buttons[1]["url"].string == ServiceFixtures.cancelLink)
        #expect(got.request.headers["User-Agent"] == "alertd/\(AlertdVersion.current)")
    }

    @Test func withoutLinksTheMessageSaysHowToDecide() async throws {
        let receiver = try ServiceReceiver(contract: Self.contract)
        let alert = try ServiceFixtures.alert(message: nil, severity: .info, labels: [:])
        #expect(try await presenter(receiver).present(alert, delivery: DeliveryContext(deliveryID: "d1")) == .delivered)
        let got = try #require(receiver.received.first)
        #expect(got.problems.isEmpty, "\(got.problems)")
        let blocks = J(got.json)["attachments"][0]["blocks"].array.map(J.init)
        #expect(!blocks.contains { $0["type"].string == "actions" })
        #expect(blocks.last?["elements"][0]["text"].string?.contains("`alertctl confirm \(alert.id)` to Expand") == true)
        #expect(J(got.json)["attachments"][0]["color"].string == "#2E86DE")
    }

    @Test func longTextIsCutToSlacksLimitsWithAMarker() async throws {
        let receiver = try ServiceReceiver(contract: Self.contract)
        var labels: [String: String] = [:]
        for i in 0..<15 { labels["label\(String(format: "%02d", i))"] = String(repeating: "v&", count: 700) }
        let alert = try ServiceFixtures.alert(title: String(repeating: "T", count: 400), message: String(repeating: "m&", count: 4_000), labels: labels)
        #expect(try await presenter(receiver).present(alert, delivery: ServiceFixtures.delivery) == .delivered)
        let got = try #require(receiver.received.first)
        #expect(got.problems.isEmpty, "\(got.problems)")
        let blocks = J(got.json)["attachments"][0]["blocks"]
        #expect(blocks[0]["text"]["text"].string?.hasSuffix("T…") == true)
        let section = try #require(blocks[1]["text"]["text"].string)
        #expect(section.hasSuffix(TextLimit.bodyMarker))
        let cut = section.dropLast(TextLimit.bodyMarker.count)
        #expect(cut.hasSuffix("m") || cut.hasSuffix("&amp;"), "cut whole, never inside an escape")
        let fields = blocks[2]["fields"].array.map(J.init)
        #expect(fields.count == 10)
        #expect(fields.last?["text"].string?.hasPrefix("*+6 more*\nlabel09=") == true)
    }

    @Test func rateLimitingHonoursRetryAfter() async throws {
        let receiver = try ServiceReceiver(contract: Self.contract)
        receiver.script([HTTPResponse(status: 429, headers: ["Retry-After": "30"], body: Data("rate_limited".utf8))])
        let outcome = try await presenter(receiver).present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery)
        #expect(outcome == .retryableFailure(reason: "HTTP 429 from slack (\(receiver.base)): rate_limited", retryAfter: .seconds(30)))
    }

    @Test func clientErrorsArePermanentAndServerErrorsRetriedWithoutNamingTheSecretPath() async throws {
        let receiver = try ServiceReceiver(contract: Self.contract)
        receiver.script([.text(status: 404, "no_service"), .text(status: 500, "rollup_error"), .text(status: 410, "channel_is_archived")])
        let p = try presenter(receiver)
        let alert = try ServiceFixtures.alert()
        #expect(await p.present(alert, delivery: ServiceFixtures.delivery) == .permanentFailure(reason: "HTTP 404 from slack (\(receiver.base)): no_service"))
        #expect(await p.present(alert, delivery: ServiceFixtures.delivery) == .retryableFailure(reason: "HTTP 500 from slack (\(receiver.base)): rollup_error"))
        let archived = await p.present(alert, delivery: ServiceFixtures.delivery)
        #expect(archived == .permanentFailure(reason: "HTTP 410 from slack (\(receiver.base)): channel_is_archived"))
        let closed = try ClosedPort()
        let refused = try await ServiceFixtures.presenter(SlackPresenterConfiguration.self, ["url": "http://127.0.0.1:\(closed.port)" + Self.path])
            .present(alert, delivery: ServiceFixtures.delivery)
        #expect(refused == .retryableFailure(reason: "slack: connection refused by 127.0.0.1:\(closed.port)"))
        for outcome in [archived, refused] { #expect(outcome.reason?.contains("SECRETTOKEN") == false) }
    }

    @Test func settingsAreCheckedAndTheURLMayComeFromAFile() throws {
        #expect(ServiceFixtures.read(SlackPresenterConfiguration.self, ["url": "https://hooks.slack.com/services/T/B/X"]).1.isEmpty)
        #expect(ServiceFixtures.read(SlackPresenterConfiguration.self, [:]).1
            == ["presenters.p.url: is required (or url_file): the incoming webhook URL Slack gave (or token and channel for a bot)"])
        #expect(ServiceFixtures.read(SlackPresenterConfiguration.self, ["url": "hooks.slack.com/x"]).1
            == ["presenters.p.url: must be a http:// or https:// URL with a host"])
        #expect(ServiceFixtures.read(SlackPresenterConfiguration.self, ["url": "https://a/b", "url_file": "/x"]).1
            == ["presenters.p: give url or url_file, not both"])

        let dir = TemporaryDirectory()
        try writeSecretFile("https://hooks.slack.com/services/T/B/FROMFILE\n", to: dir.path + "/slack")
        let config = try ServiceFixtures.configuration(SlackPresenterConfiguration.self, ["url_file": "slack"])
        let preview = try #require(config.preview(of: try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery))
        #expect(preview.head.first == "POST <url from slack>")
        #expect(throws: PresenterSetupError.self) {
            try config.makePresenter(name: "p", context: PresenterContext(httpClient: .shared, stateDirectory: dir.path + "/nowhere"))
        }
        #expect(throws: Never.self) {
            try config.makePresenter(name: "p", context: PresenterContext(httpClient: .shared, stateDirectory: dir.path))
        }
    }
}

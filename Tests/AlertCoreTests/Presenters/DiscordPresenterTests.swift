import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdDelivery

/// The `discord` presenter against a stand-in for Discord's Execute Webhook
/// (https://discord.com/developers/docs/resources/webhook#execute-webhook).
@Suite struct DiscordPresenterTests {
    static let path = "/api/webhooks/1234/SECRETTOKEN"

    static func contract(_ request: HTTPRequest) -> [String] {
        var problems: [String] = []
        if request.queryValue("wait") != "true" { problems.append("wait=true missing: errors would be a blind 204") }
        if request.queryValue("with_components") != "true" { problems.append("with_components=true missing: buttons would be dropped") }
        return problems + ServiceFixtures.jsonContract(request, path: path) { json in
            var problems: [String] = []
            let body = J(json)
            let embeds = body["embeds"].array.map(J.init)
            if embeds.isEmpty && !body["content"].exists { problems.append("an empty message") }
            if embeds.count > 10 { problems.append("more than 10 embeds") }
            for embed in embeds {
                let title = embed["title"].string ?? "", description = embed["description"].string ?? ""
                let footer = embed["footer"]["text"].string ?? ""
                if title.utf16.count > 256 { problems.append("title longer than 256") }
                if description.utf16.count > 4_096 { problems.append("description longer than 4096") }
                if footer.utf16.count > 2_048 { problems.append("footer longer than 2048") }
                guard let colour = embed["color"].int, (0...0xFFFFFF).contains(colour) else { problems.append("color"); continue }
                let fields = embed["fields"].array.map(J.init)
                if fields.count > 25 { problems.append("\(fields.count) fields") }
                var total = title.utf16.count + description.utf16.count + footer.utf16.count
                for field in fields {
                    let name = field["name"].string ?? "", value = field["value"].string ?? ""
                    if name.isEmpty || name.utf16.count > 256 { problems.append("field name length \(name.utf16.count)") }
                    if value.trimmingCharacters(in: .whitespaces).isEmpty || value.utf16.count > 1_024 {
                        problems.append("field value length \(value.utf16.count) (blank or too long)")
                    }
                    total += name.utf16.count + value.utf16.count
                }
                if total > 6_000 { problems.append("embed total \(total) over 6000") }
            }
            for row in body["components"].array.map(J.init) {
                if row["type"].int != 1 { problems.append("a top-level component must be an action row") }
                let buttons = row["components"].array.map(J.init)
                if buttons.count > 5 { problems.append("more than 5 buttons in a row") }
                for button in buttons {
                    if button["type"].int != 2 || button["style"].int != 5 { problems.append("not a link button") }
                    if button["custom_id"].exists { problems.append("a link button has no custom_id") }
                    if (button["label"].string?.utf16.count ?? 99) > 80 { problems.append("label longer than 80") }
                    if (button["url"].string?.utf16.count ?? 999) > 512 { problems.append("url longer than 512") }
                }
            }
            if body["allowed_mentions"]["parse"].array.count != 0 { problems.append("alerts must not ping") }
            return problems
        }
    }

    static let accepted = ServiceFixtures.json(200, #"{"id": "1", "type": 0}"#)

    func presenter(_ receiver: ServiceReceiver) throws -> any AlertPresenter {
        try ServiceFixtures.presenter(DiscordPresenterConfiguration.self, ["url": receiver.base + Self.path, "username": "alertd"])
    }

    @Test func sendsAnEmbedColouredBySeverityWithLinkButtons() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        #expect(try await presenter(receiver).present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery) == .delivered)
        let got = try #require(receiver.received.first)
        #expect(got.problems.isEmpty, "\(got.problems)")
        let embed = J(got.json)["embeds"][0]
        // A title renders markdown too: escaped as the description is.
        #expect(embed["title"].string == #"🚨 Disk \<full\> & db1"#)
        #expect(embed["color"].int == 0xD0021B)
        #expect(embed["description"].string == #"/var is at 98% \<b\>now\</b\> & rising"#)
        #expect(embed["fields"].array.map { J($0)["name"].string } == ["env", "host"])
        #expect(embed["timestamp"].string == "2024-07-01T12:00:00.123Z")
        let buttons = J(got.json)["components"][0]["components"]
        #expect(buttons[0]["label"].string == "Expand" && buttons[0]["url"].string == ServiceFixtures.confirmLink)
        #expect(buttons[1]["label"].string == "Ignore" && buttons[1]["url"].string == ServiceFixtures.cancelLink)
        #expect(J(got.json)["username"].string == "alertd")
    }

    @Test func everythingFitsTheEmbedLimits() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        var labels: [String: String] = [:]
        for i in 0..<30 { labels["l\(i)"] = String(repeating: "v", count: 1_000) }
        let alert = try ServiceFixtures.alert(title: String(repeating: "T", count: 300), message: String(repeating: "m", count: 9_000), labels: labels)
        #expect(try await presenter(receiver).present(alert, delivery: ServiceFixtures.delivery) == .delivered)
        let got = try #require(receiver.received.first)
        #expect(got.problems == [])
        // The labels that did not fit are counted, as every other presenter counts them.
        let fields = J(got.json)["embeds"][0]["fields"]
        let shown = fields.array.count - 1
        #expect(shown > 0 && fields[shown]["value"].string == "\(30 - shown) more labels")
    }

    /// Discord refuses a field whose value is empty or blank: such a label shows a dash.
    @Test func aBlankLabelIsNoBlankField() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let alert = try ServiceFixtures.alert(labels: ["empty": "", "blank": " "])
        #expect(try await presenter(receiver).present(alert, delivery: ServiceFixtures.delivery) == .delivered)
        #expect(receiver.received.first?.problems == [])
    }

    @Test func rateLimitsWaitForRetryAfterInTheBody() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let target = "discord (\(receiver.base))"
        let outcomes = try await ServiceFixtures.outcomes(try presenter(receiver), receiver, [
            ServiceFixtures.json(429, #"{"message": "You are being rate limited.", "retry_after": 1.5, "global": false}"#, headers: ["Retry-After": "2"]),
            ServiceFixtures.json(400, #"{"message": "Invalid Form Body", "code": 50035}"#),
            ServiceFixtures.json(404, #"{"message": "Unknown Webhook", "code": 10015}"#),
            .text(status: 503, "upstream connect error"),
        ])
        #expect(outcomes == [
            .retryableFailure(reason: "HTTP 429 from \(target): You are being rate limited.", retryAfter: .milliseconds(1_500)),
            .permanentFailure(reason: "HTTP 400 from \(target): Invalid Form Body"),
            .permanentFailure(reason: "HTTP 404 from \(target): Unknown Webhook"),
            .retryableFailure(reason: "HTTP 503 from \(target): upstream connect error"),
        ])
    }

    /// `{"retry_after": 1e300}` crashed the daemon converting it to a duration.
    @Test func anEndlessWaitIsACenturyNotACrash() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let target = "discord (\(receiver.base))"
        let outcomes = try await ServiceFixtures.outcomes(try presenter(receiver), receiver, [
            ServiceFixtures.json(429, #"{"message": "You are being rate limited.", "retry_after": 1e300, "global": false}"#),
        ])
        #expect(outcomes == [.retryableFailure(reason: "HTTP 429 from \(target): You are being rate limited.", retryAfter: .century)])
    }

    /// What the service answers is shown as alertd's own words are: an
    /// error page that quotes the webhook's path (its token) loses it, and
    /// terminal escapes and direction overrides become U+FFFD.
    @Test func anAnswerLosesTheWebhookTokenAndTerminalControls() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let outcomes = try await ServiceFixtures.outcomes(try presenter(receiver), receiver, [
            .text(status: 400, "no route for \(Self.path): bad\u{1B}[31mRED\u{1B}]8;;http://evil/\u{07}link \u{202E}evil"),
        ])
        let reason = "\(outcomes)"
        let token = try #require(Self.path.split(separator: "/").last.map(String.init))
        #expect(!reason.contains(token), "\(reason)")
        #expect(!reason.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E }, "\(reason)")
        #expect(reason.contains("no route for ***: bad\u{FFFD}[31mRED"), "\(reason)")
        // The webhook URL is the operator's, all of it a credential: a word
        // of it without digits, quoted alone, is hidden too.
        let alone = try await ServiceFixtures.outcomes(try presenter(receiver), receiver, [.text(status: 404, "unknown webhook \(token)")])
        #expect("\(alone)".contains("unknown webhook ***") && !"\(alone)".contains(token), "\(alone)")
    }

    @Test func settingsAreChecked() {
        #expect(ServiceFixtures.read(DiscordPresenterConfiguration.self, ["url": "https://discord.com/api/webhooks/1/x"]).1.isEmpty)
        #expect(ServiceFixtures.read(DiscordPresenterConfiguration.self, [:]).1 == ["presenters.p.url: is required (or url_file): the webhook URL Discord gave"])
        #expect(ServiceFixtures.read(DiscordPresenterConfiguration.self, ["url": "https://d/x", "username": ""]).1.count == 1)
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdDelivery

/// The `telegram` presenter against a stand-in for the Bot API's
/// `sendMessage` (https://core.telegram.org/bots/api#sendmessage).
@Suite struct TelegramPresenterTests {
    static let token = "123456:ABC-SECRET"

    /// The text as Telegram shows it: tags dropped, entities decoded.
    static func visible(_ html: String) -> String {
        html.replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression)
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    static func contract(_ request: HTTPRequest) -> [String] {
        ServiceFixtures.jsonContract(request, path: "/bot\(token)/sendMessage") { json in
            var problems: [String] = []
            let body = J(json)
            if body["chat_id"].string != "-1001234567890" { problems.append("chat_id \(body["chat_id"].value ?? "none")") }
            if body["parse_mode"].string != "HTML" { problems.append("parse_mode") }
            guard let text = body["text"].string, !text.isEmpty else { return problems + ["text is required"] }
            if visible(text).utf16.count > 4_096 { problems.append("text longer than 4096 once parsed") }
            // Only tags Telegram knows, and every & an entity.
            for tag in text.matches(of: /<\/?([a-z]+)[^>]*>/) where !["b", "i", "code", "a", "pre"].contains(String(tag.1)) {
                problems.append("unsupported tag \(tag.0)")
            }
            if text.contains(/&(?!(lt|gt|amp|quot|#[0-9]+);)/) { problems.append("a bare & in HTML") }
            for row in body["reply_markup"]["inline_keyboard"].array {
                for button in (row as? [Any] ?? []).map(J.init) {
                    if (button["text"].string ?? "").isEmpty { problems.append("button text") }
                    let url = button["url"].string ?? ""
                    if !url.hasPrefix("https://") && !url.hasPrefix("http://") { problems.append("button url") }
                    // The Bot API answers BUTTON_URL_INVALID for a host without a dot.
                    if URLComponents(string: url)?.host?.contains(".") != true { problems.append("BUTTON_URL_INVALID \(url)") }
                }
            }
            return problems
        }
    }

    static let accepted = ServiceFixtures.json(200, #"{"ok": true, "result": {"message_id": 1}}"#)

    func presenter(_ receiver: ServiceReceiver, tokenFile: String? = nil) throws -> any AlertPresenter {
        var settings: [String: Any] = ["chat_id": -1001234567890, "api_url": receiver.base]
        if let tokenFile { settings["token_file"] = tokenFile } else { settings["token"] = Self.token }
        return try ServiceFixtures.presenter(TelegramPresenterConfiguration.self, settings)
    }

    @Test func sendsEscapedHTMLWithAnInlineKeyboardAndTheTokenFromAFile() async throws {
        let dir = TemporaryDirectory()
        try writeSecretFile((Self.token + "\n"), to: dir.path + "/bot-token")
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        #expect(try await presenter(receiver, tokenFile: dir.path + "/bot-token").present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery) == .delivered)
        let got = try #require(receiver.received.first)
        #expect(got.problems.isEmpty, "\(got.problems)")
        let body = J(got.json)
        #expect(body["text"].string == "<b>🚨 Disk &lt;full&gt; &amp; db1</b>\n\n/var is at 98% &lt;b&gt;now&lt;/b&gt; &amp; rising\n\n<b>env</b>: prod\n<b>host</b>: db1")
        let keyboard = body["reply_markup"]["inline_keyboard"][0]
        #expect(keyboard[0]["text"].string == "Expand" && keyboard[0]["url"].string == ServiceFixtures.confirmLink)
        #expect(keyboard[1]["text"].string == "Ignore" && keyboard[1]["url"].string == ServiceFixtures.cancelLink)
        #expect(body["link_preview_options"]["is_disabled"].bool == true)
    }

    /// Links on a host without a dot (`public_url` on an internal name)
    /// would have the Bot API refuse the message for good: they are written
    /// in the text, and the others stay buttons.
    @Test func linksTheBotAPIWouldRefuseAsButtonsAreWrittenInTheText() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let p = try presenter(receiver)
        for base in ["http://alertd:9190", "http://localhost:9190", "http://[::1]:9190", "https://ops@alertd", "http://alertd.:9190"] {
            let link = base + "/v1/alerts/a1/actions/confirm?token=abc"
            let delivery = DeliveryContext(deliveryID: "dlv-1.0", attempt: 1, actionLinks: [.confirm: link, .cancel: ServiceFixtures.cancelLink])
            #expect(await p.present(try ServiceFixtures.alert(), delivery: delivery) == .delivered)
            let got = try #require(receiver.received.last)
            #expect(got.problems.isEmpty, "\(base): \(got.problems)")
            let body = J(got.json)
            #expect(body["text"].string?.hasSuffix("\n\nExpand: \(link.replacing("&", with: "&amp;"))") == true, "\(body["text"].string ?? "")")
            #expect(body["reply_markup"]["inline_keyboard"][0].array.map { J($0)["text"].string } == ["Ignore"])
        }
    }

    @Test func signedLinksNameTheChat() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let alert = try ServiceFixtures.alert()
        let delivery = ServiceFixtures.signedDelivery(alert)
        #expect(try await presenter(receiver).present(alert, delivery: delivery) == .delivered)
        let got = try #require(receiver.received.first)
        let keyboard = J(got.json)["reply_markup"]["inline_keyboard"][0]
        #expect(keyboard[0]["url"].string == delivery.addressed(to: "telegram:-1001234567890").actionLinks[.confirm])
        #expect(keyboard[0]["url"].string?.contains("&to=telegram%3A-1001234567890&token=") == true)
    }

    @Test func longMessagesFitOnceParsed() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        var labels: [String: String] = [:]
        for i in 0..<40 { labels["label\(i)"] = String(repeating: "<&>", count: 100) }
        let alert = try ServiceFixtures.alert(message: String(repeating: "a<b>&", count: 3_000), labels: labels)
        #expect(try await presenter(receiver).present(alert, delivery: DeliveryContext(deliveryID: "d")) == .delivered)
        let got = try #require(receiver.received.first)
        #expect(got.problems.isEmpty, "\(got.problems)")
        #expect(J(got.json)["text"].string?.contains(TextLimit.bodyMarker) == true)
        #expect(J(got.json)["text"].string?.contains("<code>Expand: alertctl confirm") == true, "without links, how to decide")
    }

    @Test func answersFollowTheBotAPIsRetryAfterAndNeverNameTheToken() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let target = "telegram (\(receiver.base))"
        let outcomes = try await ServiceFixtures.outcomes(try presenter(receiver), receiver, [
            ServiceFixtures.json(429, #"{"ok": false, "error_code": 429, "description": "Too Many Requests: retry after 7", "parameters": {"retry_after": 7}}"#),
            ServiceFixtures.json(403, #"{"ok": false, "error_code": 403, "description": "Forbidden: bot was blocked by the user"}"#),
            ServiceFixtures.json(400, #"{"ok": false, "error_code": 400, "description": "Bad Request: chat not found"}"#),
            ServiceFixtures.json(502, #"{"ok": false, "error_code": 502, "description": "Bad Gateway"}"#),
            // A proxy's page quoting the token as configured and as it went in the path.
            ServiceFixtures.json(401, #"{"ok": false, "description": "bot token 123456:ABC-SECRET is not valid (/bot123456%3AABC-SECRET/x)"}"#),
            // Its secret part alone, after the bot's id.
            ServiceFixtures.json(401, #"{"ok": false, "description": "Unauthorized: key ABC-SECRET"}"#),
        ])
        #expect(outcomes == [
            .retryableFailure(reason: "HTTP 429 from \(target): Too Many Requests: retry after 7", retryAfter: .seconds(7)),
            .permanentFailure(reason: "HTTP 403 from \(target): Forbidden: bot was blocked by the user"),
            .permanentFailure(reason: "HTTP 400 from \(target): Bad Request: chat not found"),
            .retryableFailure(reason: "HTTP 502 from \(target): Bad Gateway"),
            .permanentFailure(reason: "HTTP 401 from \(target): bot token *** is not valid (/***/x)"),
            .permanentFailure(reason: "HTTP 401 from \(target): Unauthorized: key ***"),
        ])
        #expect(outcomes.allSatisfy { $0.reason?.contains("SECRET") == false })
    }

    @Test func settingsAreChecked() {
        let read = { (s: [String: Any]) in ServiceFixtures.read(TelegramPresenterConfiguration.self, s).1 }
        #expect(read(["token": "1:x", "chat_id": "@alerts"]).isEmpty)
        #expect(read([:]) == [
            "presenters.p.token: is required (or token_file): the bot token @BotFather gave",
            "presenters.p.chat_id: is required: the chat's id, e.g. \"-1001234567890\", or \"@channelname\"",
        ])
        #expect(read(["token": "1:x", "chat_id": true]) == ["presenters.p.chat_id: must be a chat id (a whole number) or \"@channelname\""])
    }
}

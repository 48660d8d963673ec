import FoundationEssentials
import AlertModel

/// Telegram through the Bot API's `sendMessage`: HTML text with the labels,
/// and an inline keyboard of URL buttons for the action links.
public typealias TelegramPresenter = HTTPServicePresenter<TelegramPresenterConfiguration>

/// Settings for a `telegram` presenter.
///
/// ```json
/// "telegram": {"type": "telegram", "token_file": "/etc/alertd/telegram-bot-token", "chat_id": "-1001234567890"}
/// ```
public struct TelegramPresenterConfiguration: HTTPServiceConfiguration {
    public static let typeName = "telegram"
    public static let keys = PresenterSecret.keys("token") + ["chat_id", "api_url"] + HTTPServiceSettings.keys
    public static var example: [String: Any] { ["token_file": "/etc/alertd/telegram-bot-token", "chat_id": "-1001234567890"] }

    enum Limit {
        /// Characters of a message once its HTML is parsed, counted as UTF-16.
        static let text = 4_096
        static let buttonText = 64
    }

    /// The bot's token from @BotFather (`123456:ABC…`); it goes into the URL path.
    public var token: PresenterSecret?
    /// A chat's numeric id (`-100…` for groups and channels) or `@channelname`.
    public var chatID = ""
    /// The Bot API server; a local one (telegram-bot-api) works too.
    public var apiURL = "https://api.telegram.org"
    public var http = HTTPServiceSettings()

    public init(token: PresenterSecret?, chatID: String, apiURL: String = "https://api.telegram.org") {
        self.token = token
        self.chatID = chatID
        self.apiURL = apiURL
    }

    /// A chat's id as the Bot API takes it: a whole number, or `@` and a
    /// public username (5 to 32 letters, digits and underscores). Anything
    /// else was sent, and answered "chat not found" at every alert.
    static func isChatID(_ text: String) -> Bool {
        if let number = Int64(text) { return number != 0 && !text.hasPrefix("+") }
        guard text.hasPrefix("@") else { return false }
        let name = text.dropFirst()
        return (5...32).contains(name.count) && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }

    public init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader) {
        token = PresenterSecret.read("token", from: object, at: path, reader, required: true, need: "the bot token @BotFather gave")
        switch object["chat_id"] {
        case let id as String where Self.isChatID(id):
            chatID = id
        case let id? where StrictJSON.wholeNumber(id) != nil:
            chatID = String(StrictJSON.wholeNumber(id)!)
        case nil:
            reader.problem(reader.join(path, "chat_id"), "is required: the chat's id, e.g. \"-1001234567890\", or \"@channelname\"")
        default:
            reader.problem(reader.join(path, "chat_id"), "must be a chat id (a whole number) or \"@channelname\"")
        }
        apiURL = reader.baseURL(object, "api_url", at: path, appends: "/bot<token>/sendMessage", suffix: "/sendMessage", required: false) ?? apiURL
        http = HTTPServiceSettings(reading: object, at: path, reader)
    }

    public var secrets: [PresenterSecret] { token.map { [$0] } ?? [] }

    /// `{"ok": false, "error_code": 429, "description": "…", "parameters": {"retry_after": 5}}`.
    /// A follow-up is a short message, "Resolved: …"; alertd does not keep
    /// Telegram's message id, so it is not a reply to the alert's message.
    public static var followUps: FollowUpSupport { .onByDefault }

    public static var answers: HTTPServiceAnswers {
        HTTPServiceAnswers(retryHint: .bodySeconds(["parameters", "retry_after"]), errorPaths: [["description"]], pathIsAllCredential: false)
    }

    public func request(for alert: Alert, delivery: DeliveryContext, secrets: PresenterSecrets) -> HTTPServiceRequest {
        // Links signed for the chat: a decision by one records `telegram:<chat id>`.
        let digest = AlertDigest(alert, delivery: delivery.addressed(to: "telegram:\(chatID)"))
        // The Bot API refuses the whole message (400 BUTTON_URL_INVALID, for
        // good) for a button whose host has no dot: `public_url` on an
        // internal name (http://alertd:9190) or localhost. Those links are
        // written in the text instead.
        let linked = digest.linkedActions
        let buttoned = linked.filter { Self.hostHasDot($0.link) }, written = linked.filter { !Self.hostHasDot($0.link) }
        let text = digest.followUp != nil ? Self.followUpHTML(digest) : Self.html(digest, writtenLinks: written.map { ($0.label, $0.link) })
        var json: [String: Any] = [
            "chat_id": chatID, "text": text, "parse_mode": "HTML", "link_preview_options": ["is_disabled": true],
        ]
        let buttons = buttoned.map { ["text": TextLimit.truncate($0.label, to: Limit.buttonText), "url": $0.link] }
        if !buttons.isEmpty { json["reply_markup"] = ["inline_keyboard": [buttons]] }
        return HTTPServiceRequest(url: HTTPServiceRequest.url(apiURL, "/bot\(secrets["token"] ?? "")/sendMessage"), json: json)
    }

    /// The message in Telegram's HTML: the heading bold, then the message
    /// and the labels, all escaped. The limit counts what shows, not the
    /// tags: labels may take half of it, the message what is left.
    /// The headline bold, then the comment and alert id, escaped.
    static func followUpHTML(_ d: AlertDigest) -> String {
        let e = MarkupEscaping.html
        let headline = TextLimit.truncate("\(d.closedStyle.emoji) \(d.followUpHeadline)", to: 512)
        let details = TextLimit.truncate(d.followUpDetails.joined(separator: "\n"), to: Limit.text / 2, escape: e)
        return "<b>\(e(headline))</b>\n\n\(details)"
    }

    /// Whether `url`'s host holds a dot, as the Bot API wants of a button's.
    static func hostHasDot(_ url: String) -> Bool {
        guard let start = url.firstRange(of: "://")?.upperBound else { return false }
        let authority = url[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        // An IPv6 literal's colons are not a port's.
        let host = hostAndPort.hasPrefix("[") ? hostAndPort : hostAndPort.prefix { $0 != ":" }
        // `alertd.` is the name `alertd`, rooted: still no dot between labels.
        return host.drop { $0 == "." }.reversed().drop { $0 == "." }.contains(".")
    }

    static func html(_ d: AlertDigest, writtenLinks: [(label: String, link: String)] = []) -> String {
        let e = MarkupEscaping.html
        let heading = TextLimit.truncate("\(d.style.emoji) \(d.title)", to: 256)
        var shown = heading.utf16.count
        var labels: [String] = []
        var labelRoom = Limit.text / 2
        for (i, label) in d.labels.enumerated() {
            let name = TextLimit.truncate(label.name, to: 64), value = TextLimit.truncate(label.value, to: 256)
            let size = name.utf16.count + value.utf16.count + 3
            guard size <= labelRoom else {
                labels.append("… \(d.labels.count - i) more")
                shown += 12
                break
            }
            labelRoom -= size
            shown += size
            labels.append("<b>\(e(name))</b>: \(e(value))")
        }
        let hints = d.actions.filter { $0.link == nil }.map { "\($0.label): alertctl \($0.kind.rawValue) \(d.id)" }
        let links = writtenLinks.map { "\($0.label): \($0.link)" }
        shown += (hints + links).reduce(0) { $0 + $1.utf16.count + 1 }
        var parts = ["<b>\(e(heading))</b>"]
        if let message = d.message {
            // Measured escaped, which is never shorter than what shows.
            parts.append(TextLimit.truncate(message, to: max(0, Limit.text - shown - 8), marker: TextLimit.bodyMarker, escape: e))
        }
        if !labels.isEmpty { parts.append(labels.joined(separator: "\n")) }
        if !hints.isEmpty { parts.append(hints.map { "<code>\(e($0))</code>" }.joined(separator: "\n")) }
        if !links.isEmpty { parts.append(links.map(e).joined(separator: "\n")) }
        return parts.joined(separator: "\n\n")
    }
}

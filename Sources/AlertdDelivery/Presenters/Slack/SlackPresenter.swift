import FoundationEssentials
import AlertModel

/// Slack, through an incoming webhook or as a bot (the Web API's
/// `chat.postMessage`): a Block Kit message in an attachment coloured by
/// severity, with the labels as fields and the action links as buttons
/// that open them. As a bot, a group's later notifications go in the
/// thread of its first.
public typealias SlackPresenter = HTTPServicePresenter<SlackPresenterConfiguration>

/// Settings for a `slack` presenter: an incoming webhook,
///
/// ```json
/// "chat": {"type": "slack", "url_file": "/etc/alertd/slack-webhook"}
/// ```
///
/// or a bot token and a channel, which can thread:
///
/// ```json
/// "chat": {"type": "slack", "token_file": "/etc/alertd/slack-bot-token", "channel": "C0123456789"}
/// ```
///
/// The webhook URL and the token are credentials (anyone holding them can
/// post), so they may come from files, and reasons name only the origin.
public struct SlackPresenterConfiguration: HTTPServiceConfiguration {
    public static let typeName = "slack"
    public static let keys = PresenterSecret.keys("url") + PresenterSecret.keys("token") + ["channel", "api_url"] + HTTPServiceSettings.keys
    public static var example: [String: Any] { ["url": "https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXX"] }

    /// Block Kit's limits (https://api.slack.com/reference/block-kit/blocks).
    enum Limit {
        static let text = 3_000
        static let header = 150
        static let fields = 10
        static let field = 2_000
        static let buttonText = 75
        static let buttonURL = 3_000
        static let blocks = 50
        static let actionElements = 25
    }

    /// `chat.postMessage` errors worth another try (https://api.slack.com/methods/chat.postMessage#errors):
    /// Slack's own trouble and its rate limits. Every other error (a bad
    /// token, a channel the bot is not in) needs a person.
    static let retryableErrors: Set<String> = [
        "ratelimited", "rate_limited", "internal_error", "fatal_error", "service_unavailable", "request_timeout",
        "team_added_to_org", "org_login_required",
    ]

    /// The webhook URL; nil for a bot.
    public var url: PresenterSecret?
    /// The bot's token (`xoxb-…`); nil for a webhook.
    public var token: PresenterSecret?
    /// The channel a bot posts to: its id (`C0123456789`) or `#name`.
    public var channel: String?
    /// The Web API's base URL; another only for a stand-in.
    public var apiURL = "https://slack.com/api"
    public var http = HTTPServiceSettings()

    public init(url: PresenterSecret?, http: HTTPServiceSettings = HTTPServiceSettings()) {
        self.url = url
        self.http = http
    }

    /// A bot posting to `channel`.
    public init(token: PresenterSecret, channel: String, apiURL: String = "https://slack.com/api") {
        self.token = token
        self.channel = channel
        self.apiURL = apiURL
    }

    public init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader) {
        let hasToken = PresenterSecret.keys("token").contains { object[$0] != nil }
        let hasURL = PresenterSecret.keys("url").contains { object[$0] != nil }
        let bot = hasToken || object["channel"] != nil
        if hasURL, !hasToken, object["channel"] != nil {
            // An incoming webhook posts to the channel it was made for: "not both" and "token is required" sent people after a token they did not need.
            reader.problem(reader.join(path, "channel"), "is for a bot (token and channel); an incoming webhook posts to the channel it was made for, so remove it")
            url = PresenterSecret.readURL("url", from: object, at: path, reader, required: true, need: "the incoming webhook URL Slack gave")
        } else if bot {
            if PresenterSecret.keys("url").contains(where: { object[$0] != nil }) {
                reader.problem(path, "give url (or url_file) for an incoming webhook, or token (or token_file) and channel for a bot, not both")
            }
            token = PresenterSecret.read("token", from: object, at: path, reader, required: true, need: "the bot's token (xoxb-…), with channel")
            if let channel = reader.string(object, "channel", at: path) {
                if channel.isEmpty || channel.contains(where: { $0.isWhitespace }) {
                    reader.problem(reader.join(path, "channel"), "must be a channel id such as \"C0123456789\" (or \"#name\")")
                } else {
                    self.channel = channel
                }
            } else if object["channel"] == nil {
                reader.problem(reader.join(path, "channel"), "is required with token: the channel's id, e.g. \"C0123456789\" (channel details, About)")
            }
            apiURL = reader.baseURL(object, "api_url", at: path, appends: "/chat.postMessage", required: false) ?? apiURL
        } else {
            url = PresenterSecret.readURL("url", from: object, at: path, reader, required: true,
                                       need: "the incoming webhook URL Slack gave (or token and channel for a bot)")
            if object["api_url"] != nil { reader.problem(reader.join(path, "api_url"), "is for a bot (token and channel); remove it") }
        }
        http = HTTPServiceSettings(reading: object, at: path, reader)
    }

    public var secrets: [PresenterSecret] { [url, token].compactMap { $0 } }

    /// A follow-up is a short message in the thread's colours: "Resolved: …".
    public static var followUps: FollowUpSupport { .onByDefault }

    /// A webhook answers in plain text (`invalid_payload`, `no_service`);
    /// the Web API with 200 and `{"ok": false, "error": "…"}`, or a 429
    /// and `Retry-After` when it is rate limited. `ts` names a posted message.
    public static var answers: HTTPServiceAnswers {
        HTTPServiceAnswers(retryHint: .header, errorPaths: [["error"]], okFlag: .init(path: ["ok"], retryable: retryableErrors),
                           threadPath: ["ts"])
    }

    public func request(for alert: Alert, delivery: DeliveryContext, secrets: PresenterSecrets) -> HTTPServiceRequest {
        let digest = AlertDigest(alert, delivery: delivery)
        if digest.followUp != nil { return post(Self.followUp(digest), secrets: secrets) }
        var blocks: [[String: Any]] = [
            ["type": "header", "text": Self.plain("\(digest.style.emoji) \(digest.title)", limit: Limit.header)],
        ]
        if let message = digest.message {
            let text = TextLimit.truncate(message, to: Limit.text, marker: TextLimit.bodyMarker, escape: MarkupEscaping.slack)
            blocks.append(["type": "section", "text": Self.mrkdwn(text)])
        }
        if !digest.labels.isEmpty { blocks.append(["type": "section", "fields": Self.fields(digest.labels)]) }
        var context = "*\(digest.severity.rawValue)* · alert `\(digest.id)`"
        for action in digest.actions where action.link == nil {
            context += " · `alertctl \(action.kind.rawValue) \(digest.id)` to \(MarkupEscaping.slack(action.label))"
        }
        blocks.append(["type": "context", "elements": [Self.mrkdwn(context)]])
        let buttons = Self.buttons(digest.linkedActions)
        if !buttons.isEmpty { blocks.append(["type": "actions", "elements": buttons]) }
        let json: [String: Any] = [
            // What notifications and clients without blocks show.
            "text": digest.style.emoji + " " + TextLimit.truncate(digest.heading, to: Limit.text - 3, escape: MarkupEscaping.slack),
            "attachments": [["color": digest.style.hexColour, "fallback": TextLimit.truncate(digest.heading, to: Limit.text), "blocks": blocks]],
        ]
        return post(json, secrets: secrets)
    }

    /// The message to the webhook, or to `chat.postMessage` in the bot's
    /// channel (in `thread`'s thread, when given) with its token.
    func post(_ message: [String: Any], thread: String? = nil, broadcast: Bool = false, secrets: PresenterSecrets) -> HTTPServiceRequest {
        guard token != nil, let channel else { return HTTPServiceRequest(url: secrets["url"] ?? "", json: message) }
        var json = message
        json["channel"] = channel
        if let thread {
            json["thread_ts"] = thread
            if broadcast { json["reply_broadcast"] = true }
        }
        var request = HTTPServiceRequest(url: HTTPServiceRequest.url(apiURL, "/chat.postMessage"),
                                         headers: ["Authorization": "Bearer \(secrets["token"] ?? "")"], json: json)
        // Without the charset, Slack answers with a `missing_charset` warning.
        request.headers.set("Content-Type", "application/json; charset=utf-8")
        return request
    }

    /// URL buttons for `actions` (Slack takes none longer than its limit),
    /// the confirm one styled primary; `id` keeps `action_id`s unique
    /// within one actions block.
    static func buttons(_ actions: [(label: String, link: String, kind: ActionKind)], id: String = "") -> [[String: Any]] {
        actions.filter { $0.link.utf16.count <= Limit.buttonURL }.map { action in
            var button: [String: Any] = [
                "type": "button", "text": plain(action.label, limit: Limit.buttonText), "url": action.link,
                "action_id": "alertd-\(action.kind.rawValue)" + id,
            ]
            if action.kind == .confirm { button["style"] = "primary" }
            return button
        }
    }

    /// A follow-up: its headline bold, the comment and the alert's id under it.
    static func followUp(_ d: AlertDigest) -> [String: Any] {
        let style = d.closedStyle
        let headline = TextLimit.truncate(d.followUpHeadline, to: Limit.text - 8, escape: MarkupEscaping.slack)
        let details = d.followUpDetails.map { TextLimit.truncate($0, to: Limit.text / 2, escape: MarkupEscaping.slack) }
        let blocks: [[String: Any]] = [
            ["type": "section", "text": mrkdwn("\(style.emoji) " + bold(headline))],
            ["type": "context", "elements": [mrkdwn(details.joined(separator: " · "))]],
        ]
        return [
            "text": style.emoji + " " + headline,
            "attachments": [["color": style.hexColour, "fallback": TextLimit.truncate(d.followUpHeadline, to: Limit.text), "blocks": blocks]],
        ]
    }

    /// The labels as fields, name over value; past Slack's ten, the last
    /// field lists the rest.
    static func fields(_ labels: [(name: String, value: String)]) -> [[String: Any]] {
        let shown = labels.count <= Limit.fields ? labels[...] : labels.prefix(Limit.fields - 1)
        var fields = shown.map { field(title: $0.name, text: $0.value) }
        if labels.count > Limit.fields {
            let rest = labels.dropFirst(Limit.fields - 1).map { "\($0.name)=\($0.value)" }.joined(separator: ", ")
            fields.append(field(title: "+\(labels.count - Limit.fields + 1) more", text: rest))
        }
        return fields
    }

    /// `*title*` over `text`, both escaped, within a field's limit.
    static func field(title: String, text: String) -> [String: Any] {
        let heading = bold(TextLimit.truncate(title, to: 200, escape: MarkupEscaping.slack)) + "\n"
        return mrkdwn(heading + TextLimit.truncate(text, to: Limit.field - heading.utf16.count, escape: MarkupEscaping.slack))
    }

    /// A `plain_text` object (Slack does not interpret it, so no escaping).
    static func plain(_ text: String, limit: Int) -> [String: Any] {
        ["type": "plain_text", "text": TextLimit.truncate(text, to: limit), "emoji": true]
    }

    /// `text` (escaped) in bold, unless it has an asterisk of its own:
    /// mrkdwn cannot escape one, and it would end the bold early.
    static func bold(_ text: String) -> String {
        text.contains("*") ? text : "*\(text)*"
    }

    /// A `mrkdwn` object; what in `text` is the alert's is escaped by the caller.
    /// Verbatim: otherwise Slack links channel names and parses mentions in
    /// plain text, so whoever may send an alert could notify a channel;
    /// the links alertd writes itself (`<url|label>`) are still links.
    static func mrkdwn(_ text: String) -> [String: Any] {
        ["type": "mrkdwn", "text": text, "verbatim": true]
    }
}

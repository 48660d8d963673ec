import FoundationEssentials
import AlertModel

/// Slack through an incoming webhook: a Block Kit message in an attachment
/// coloured by severity, with the labels as fields and the action links as
/// buttons that open them.
public typealias SlackPresenter = HTTPServicePresenter<SlackPresenterConfiguration>

/// Settings for a `slack` presenter.
///
/// ```json
/// "chat": {"type": "slack", "url_file": "/etc/alertd/slack-webhook"}
/// ```
///
/// The webhook URL is itself the credential (anyone holding it can post),
/// so it may come from a file, and reasons name only its origin.
public struct SlackPresenterConfiguration: HTTPServiceConfiguration {
    public static let typeName = "slack"
    public static let keys = PresenterSecret.keys("url") + HTTPServiceSettings.keys
    public static var example: [String: Any] { ["url": "https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXX"] }

    /// Block Kit's limits (https://api.slack.com/reference/block-kit/blocks).
    enum Limit {
        static let text = 3_000
        static let header = 150
        static let fields = 10
        static let field = 2_000
        static let buttonText = 75
        static let buttonURL = 3_000
    }

    /// The webhook URL.
    public var url: PresenterSecret?
    public var http = HTTPServiceSettings()

    public init(url: PresenterSecret?, http: HTTPServiceSettings = HTTPServiceSettings()) {
        self.url = url
        self.http = http
    }

    public init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader) {
        url = PresenterSecret.read("url", from: object, at: path, reader, required: true, need: "the incoming webhook URL Slack gave")
        if case .inline(let text)? = url?.source { _ = reader.checkedURL(text, at: reader.join(path, "url")) }
        http = HTTPServiceSettings(reading: object, at: path, reader)
    }

    public var secrets: [PresenterSecret] { url.map { [$0] } ?? [] }

    /// A follow-up is a short message in the thread's colours: "Resolved: …".
    public static var followUps: FollowUpSupport { .onByDefault }

    /// Slack answers in plain text (`invalid_payload`, `no_service`) and
    /// says how long to back off only in `Retry-After`.
    public static var answers: HTTPServiceAnswers { HTTPServiceAnswers(retryHint: .header) }

    public func request(for alert: Alert, delivery: DeliveryContext, secrets: PresenterSecrets) -> HTTPServiceRequest {
        let digest = AlertDigest(alert, delivery: delivery)
        if digest.followUp != nil { return HTTPServiceRequest(url: secrets["url"] ?? "", json: Self.followUp(digest)) }
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
        let buttons: [[String: Any]] = digest.linkedActions.filter { $0.link.utf16.count <= Limit.buttonURL }.map { action in
            var button: [String: Any] = [
                "type": "button", "text": Self.plain(action.label, limit: Limit.buttonText), "url": action.link,
                "action_id": "alertd-\(action.kind.rawValue)",
            ]
            if action.kind == .confirm { button["style"] = "primary" }
            return button
        }
        if !buttons.isEmpty { blocks.append(["type": "actions", "elements": buttons]) }
        let json: [String: Any] = [
            // What notifications and clients without blocks show.
            "text": digest.style.emoji + " " + TextLimit.truncate(digest.heading, to: Limit.text - 3, escape: MarkupEscaping.slack),
            "attachments": [["color": digest.style.hexColour, "fallback": TextLimit.truncate(digest.heading, to: Limit.text), "blocks": blocks]],
        ]
        return HTTPServiceRequest(url: secrets["url"] ?? "", json: json)
    }

    /// A follow-up: its headline bold, the comment and the alert's id under it.
    static func followUp(_ d: AlertDigest) -> [String: Any] {
        let style = d.closedStyle
        let headline = TextLimit.truncate(d.followUpHeadline, to: Limit.text - 8, escape: MarkupEscaping.slack)
        let details = d.followUpDetails.map { TextLimit.truncate($0, to: Limit.text / 2, escape: MarkupEscaping.slack) }
        let blocks: [[String: Any]] = [
            ["type": "section", "text": mrkdwn("\(style.emoji) *\(headline)*")],
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
        let heading = "*" + TextLimit.truncate(title, to: 200, escape: MarkupEscaping.slack) + "*\n"
        return mrkdwn(heading + TextLimit.truncate(text, to: Limit.field - heading.utf16.count, escape: MarkupEscaping.slack))
    }

    /// A `plain_text` object (Slack does not interpret it, so no escaping).
    static func plain(_ text: String, limit: Int) -> [String: Any] {
        ["type": "plain_text", "text": TextLimit.truncate(text, to: limit), "emoji": true]
    }

    /// A `mrkdwn` object; what in `text` is the alert's is escaped by the caller.
    static func mrkdwn(_ text: String) -> [String: Any] {
        ["type": "mrkdwn", "text": text]
    }
}

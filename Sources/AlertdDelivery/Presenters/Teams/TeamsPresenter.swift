import FoundationEssentials
import AlertModel

/// Microsoft Teams through a Workflows webhook ("Post to a channel when a
/// webhook request is received"): an Adaptive Card with the severity in
/// colour, the labels as facts, and an `Action.OpenUrl` button per action link.
public typealias TeamsPresenter = HTTPServicePresenter<TeamsPresenterConfiguration>

/// Settings for a `teams` presenter.
///
/// ```json
/// "teams": {"type": "teams", "url_file": "/etc/alertd/teams-workflow-url"}
/// ```
public struct TeamsPresenterConfiguration: HTTPServiceConfiguration {
    public static let typeName = "teams"
    public static let keys = PresenterSecret.keys("url") + HTTPServiceSettings.keys
    public static var example: [String: Any] {
        ["url": "https://prod-00.westeurope.logic.azure.com/workflows/0000/triggers/manual/paths/invoke?api-version=2016-06-01&sig=XXXX"]
    }

    enum Limit {
        /// Teams takes messages up to about 28 KB: the message text gets
        /// 12 KB of it, the labels 8 KB, the card's own JSON the rest, each
        /// measured as written in the JSON (``TextLimit/Unit/json``): the
        /// backslashes escaping adds are doubled there.
        static let messageBytes = 12_000
        static let factBytes = 8_000
        static let fact = 500
        static let title = 400
    }

    /// The workflow's URL, whose `sig` parameter is its credential.
    public var url: PresenterSecret?
    public var http = HTTPServiceSettings()

    public init(url: PresenterSecret?) {
        self.url = url
    }

    public init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader) {
        url = PresenterSecret.readURL("url", from: object, at: path, reader, required: true, need: "the URL of the workflow's webhook trigger")
        http = HTTPServiceSettings(reading: object, at: path, reader)
    }

    public var secrets: [PresenterSecret] { url.map { [$0] } ?? [] }

    /// Workflows answer `{"error": {"code": …, "message": …}}` and rate-limit with `Retry-After`.
    /// A follow-up is a small card: "Resolved: …" and the comment.
    public static var followUps: FollowUpSupport { .onByDefault }

    public static var answers: HTTPServiceAnswers {
        HTTPServiceAnswers(retryHint: .header, errorPaths: [["error", "message"], ["message"]])
    }

    public func request(for alert: Alert, delivery: DeliveryContext, secrets: PresenterSecrets) -> HTTPServiceRequest {
        let d = AlertDigest(alert, delivery: delivery)
        var body: [[String: Any]] = d.followUp != nil ? Self.followUpBody(d) : [
            ["type": "TextBlock", "text": "\(d.style.emoji) \(d.style.label)", "weight": "bolder", "size": "small",
             "color": d.severity.on(info: "accent", warning: "warning", error: "attention", critical: "attention")],
            ["type": "TextBlock", "text": TextLimit.truncate(d.title, to: Limit.title, escape: Self.md), "weight": "bolder", "size": "large", "wrap": true],
        ]
        if d.followUp != nil {
            return HTTPServiceRequest(url: secrets["url"] ?? "", json: Self.message(card: Self.card(body)))
        }
        if let message = d.message {
            body.append(["type": "TextBlock", "text": TextLimit.truncate(message, to: Limit.messageBytes, in: .json, marker: TextLimit.bodyMarker,
                                                                         escape: Self.md),
                         "wrap": true])
        }
        if !d.labels.isEmpty { body.append(["type": "FactSet", "facts": Self.facts(d.labels)]) }
        var footer = "alert \(d.id)"
        for a in d.actions where a.link == nil { footer += " · \(Self.md(a.label)): alertctl \(a.kind.rawValue) \(d.id)" }
        body.append(["type": "TextBlock", "text": footer, "isSubtle": true, "size": "small", "wrap": true])
        var card = Self.card(body)
        let actions = d.linkedActions.map { ["type": "Action.OpenUrl", "title": $0.label, "url": $0.link] }
        if !actions.isEmpty { card["actions"] = actions }
        return HTTPServiceRequest(url: secrets["url"] ?? "", json: Self.message(card: card))
    }

    /// The alert's own text in a card's Markdown (``MarkupEscaping/adaptiveCard(_:)``).
    static let md = MarkupEscaping.adaptiveCard

    static func card(_ body: [[String: Any]]) -> [String: Any] {
        [
            "$schema": "http://adaptivecards.io/schemas/adaptive-card.json", "type": "AdaptiveCard", "version": "1.4",
            "msteams": ["width": "Full"], "body": body,
        ]
    }

    /// The message a workflow posts: one attachment, the card.
    static func message(card: [String: Any]) -> [String: Any] {
        ["type": "message", "attachments": [["contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": JSONNull(), "content": card]]]
    }

    /// A follow-up card: the headline, then the comment and alert id, small.
    static func followUpBody(_ d: AlertDigest) -> [[String: Any]] {
        let style = d.closedStyle
        return [
            ["type": "TextBlock", "text": TextLimit.truncate("\(style.emoji) \(d.followUpHeadline)", to: Limit.title, escape: md), "weight": "bolder",
             "size": "medium", "wrap": true, "color": d.followUp?.outcome == .cancelled || d.followUp?.outcome == .expired ? "default" : "good"],
            ["type": "TextBlock", "text": TextLimit.truncate(d.followUpDetails.joined(separator: "\n\n"), to: Limit.messageBytes, in: .json, escape: md),
             "isSubtle": true, "size": "small", "wrap": true],
        ]
    }

    /// The labels as facts, within their share of the message's size; the
    /// last fact counts those left out.
    static func facts(_ labels: [(name: String, value: String)]) -> [[String: String]] {
        var left = Limit.factBytes
        var facts: [[String: String]] = []
        for (i, label) in labels.enumerated() {
            let title = TextLimit.truncate(label.name, to: Limit.fact, in: .json, escape: md)
            let room = min(Limit.fact, left - TextLimit.length(title, .json) - 32)
            guard room >= 16 else {
                facts.append(["title": "…", "value": "\(labels.count - i) more labels"])
                break
            }
            let value = TextLimit.truncate(label.value, to: room, in: .json, escape: md)
            left -= TextLimit.length(title, .json) + TextLimit.length(value, .json) + 32
            facts.append(["title": title, "value": value])
        }
        return facts
    }
}

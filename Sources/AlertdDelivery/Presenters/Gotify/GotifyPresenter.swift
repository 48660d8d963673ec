import FoundationEssentials
import AlertModel

/// Gotify (https://gotify.net): a message to the server with a priority
/// from the severity, in Markdown, with the action links as links.
public typealias GotifyPresenter = HTTPServicePresenter<GotifyPresenterConfiguration>

/// Settings for a `gotify` presenter.
///
/// ```json
/// "gotify": {"type": "gotify", "url": "https://gotify.example.com", "token_file": "/etc/alertd/gotify-app-token"}
/// ```
public struct GotifyPresenterConfiguration: HTTPServiceConfiguration {
    public static let typeName = "gotify"
    public static let keys = ["url", "click"] + PresenterSecret.keys("token") + HTTPServiceSettings.keys
    public static var example: [String: Any] { ["url": "https://gotify.example.com", "token_file": "/etc/alertd/gotify-app-token"] }

    enum Limit {
        static let title = 250
        static let messageBytes = 16_000
        /// Gotify sets no limit, but a phone shows little: the labels get
        /// at most this much, each name and value cut to the second pair.
        static let labelsBytes = 4_000
        static let labelName = 64, labelValue = 256
    }

    /// The server's base URL.
    public var url = ""
    /// An application token (Apps in the web UI).
    public var token: PresenterSecret?
    /// Opened when the notification is tapped.
    public var click: String?
    public var http = HTTPServiceSettings()

    public init(url: String, token: PresenterSecret?) {
        self.url = url
        self.token = token
    }

    public init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader) {
        url = reader.baseURL(object, "url", at: path, appends: "/message", required: true, need: "the server, e.g. https://gotify.example.com") ?? ""
        token = PresenterSecret.read("token", from: object, at: path, reader, required: true, need: "an application token")
        click = reader.url(object, "click", at: path, required: false)
        http = HTTPServiceSettings(reading: object, at: path, reader)
    }

    public var secrets: [PresenterSecret] { token.map { [$0] } ?? [] }

    /// `{"error": "Unauthorized", "errorCode": 401, "errorDescription": "…"}`.
    /// A follow-up is a low-priority message: "Resolved: …".
    public static var followUps: FollowUpSupport { .onByDefault }

    public static var answers: HTTPServiceAnswers {
        HTTPServiceAnswers(retryHint: .header, errorPaths: [["errorDescription"], ["error"]], pathIsAllCredential: false)
    }

    public func request(for alert: Alert, delivery: DeliveryContext, secrets: PresenterSecrets) -> HTTPServiceRequest {
        let d = AlertDigest(alert, delivery: delivery)
        let md: (String) -> String = { MarkupEscaping.markdown($0) }
        // Gotify's Markdown joins a paragraph's lines into one: each break is made a hard one.
        let lines: (String) -> String = { MarkupEscaping.markdown($0, hardBreaks: true) }
        var blocks: [String] = []
        if d.followUp != nil {
            blocks = d.followUpDetails.map { TextLimit.truncate($0, to: Limit.messageBytes / 2, in: .utf8, escape: lines) }
        } else if let message = d.message {
            blocks.append(TextLimit.truncate(message, to: Limit.messageBytes, in: .utf8, marker: TextLimit.bodyMarker, escape: lines))
        }
        if d.followUp == nil {
            if !d.labels.isEmpty { blocks.append(Self.labels(d.labels)) }
            let links = d.linkedActions
            if !links.isEmpty { blocks.append(links.map { "[\(md($0.label))](\($0.link))" }.joined(separator: " · ")) }
            for a in d.actions where a.link == nil { blocks.append("\(md(a.label)): `alertctl \(a.kind.rawValue) \(d.id)`") }
        }
        if blocks.isEmpty { blocks.append("\(d.severity.rawValue) alert `\(d.id)`") }
        var extras: [String: Any] = ["client::display": ["contentType": "text/markdown"]]
        if let click { extras["client::notification"] = ["click": ["url": click]] }
        let json: [String: Any] = [
            "title": TextLimit.truncate(d.followUp != nil ? "\(d.closedStyle.emoji) \(d.followUpHeadline)" : "\(d.style.emoji) \(d.title)",
                                        to: Limit.title),
            "message": blocks.joined(separator: "\n\n"),
            // Gotify's apps: 0 silent, 1–3 low, 4–7 normal, 8–10 high.
            "priority": d.followUp != nil ? 2 : d.severity.on(info: 2, warning: 5, error: 7, critical: 9),
            "extras": extras,
        ]
        return HTTPServiceRequest(url: HTTPServiceRequest.url(url, "/message"), headers: ["X-Gotify-Key": secrets["token"] ?? ""], json: json)
    }

    /// One line per label, `**name**: value`, within ``Limit/labelsBytes``;
    /// those past it are counted ("… 3 more").
    static func labels(_ labels: [(name: String, value: String)]) -> String {
        var lines: [String] = []
        var room = Limit.labelsBytes
        for (i, label) in labels.enumerated() {
            let line = "**\(TextLimit.truncate(label.name, to: Limit.labelName, in: .utf8, escape: MarkupEscaping.markdown))**: "
                + TextLimit.truncate(label.value, to: Limit.labelValue, in: .utf8, escape: MarkupEscaping.markdown) + "  "
            guard line.utf8.count + 1 <= room else {
                lines.append("… \(labels.count - i) more")
                break
            }
            room -= line.utf8.count + 1
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

import FoundationEssentials
import AlertModel

/// Discord through a channel webhook: an embed coloured by severity with
/// the labels as fields, and a link button per action link.
public typealias DiscordPresenter = HTTPServicePresenter<DiscordPresenterConfiguration>

/// Settings for a `discord` presenter.
///
/// ```json
/// "discord": {"type": "discord", "url_file": "/etc/alertd/discord-webhook"}
/// ```
public struct DiscordPresenterConfiguration: HTTPServiceConfiguration {
    public static let typeName = "discord"
    public static let keys = PresenterSecret.keys("url") + ["username"] + HTTPServiceSettings.keys
    public static var example: [String: Any] { ["url": "https://discord.com/api/webhooks/123456789012345678/XXXXXXXXXXXXXXXX"] }

    /// Discord's limits (https://discord.com/developers/docs/resources/message#embed-object-embed-limits).
    enum Limit {
        static let title = 256
        static let description = 4_096
        static let fields = 25
        static let fieldName = 256
        static let fieldValue = 1_024
        static let footer = 2_048
        /// Title, description, field names and values, and footer together.
        static let embedTotal = 6_000
        static let buttonLabel = 80
        static let buttonURL = 512
        static let username = 80
    }

    /// The webhook URL, which holds its token.
    public var url: PresenterSecret?
    /// Shown as the sender instead of the webhook's own name.
    public var username: String?
    public var http = HTTPServiceSettings()

    public init(url: PresenterSecret?) {
        self.url = url
    }

    public init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader) {
        url = PresenterSecret.readURL("url", from: object, at: path, reader, required: true, need: "the webhook URL Discord gave")
        username = reader.string(object, "username", at: path)
        if let name = username, name.isEmpty || name.count > Limit.username {
            reader.problem(reader.join(path, "username"), "must be 1 to \(Limit.username) characters")
        } else if let name = username, let refused = Self.refusedInUsernames.first(where: { name.lowercased().contains($0) }) {
            // Discord answers 400 to every message sent under such a name.
            reader.problem(reader.join(path, "username"), "may not contain `\(refused)`: Discord refuses such a name (it may not hold discord, clyde, @, #, : or ```)")
        }
        http = HTTPServiceSettings(reading: object, at: path, reader)
    }

    public var secrets: [PresenterSecret] { url.map { [$0] } ?? [] }

    /// What Discord's rules for names refuse in a webhook's username.
    static let refusedInUsernames = ["discord", "clyde", "@", "#", ":", "```"]

    /// A 429 says how long to wait in `retry_after` (seconds, fractional);
    /// errors say what is wrong in `message`.
    /// A follow-up is a one-embed message: "Resolved: …", the comment.
    public static var followUps: FollowUpSupport { .onByDefault }

    public static var answers: HTTPServiceAnswers {
        HTTPServiceAnswers(retryHint: .bodySeconds(["retry_after"]), errorPaths: [["message"]])
    }

    public func request(for alert: Alert, delivery: DeliveryContext, secrets: PresenterSecrets) -> HTTPServiceRequest {
        let digest = AlertDigest(alert, delivery: delivery)
        if digest.followUp != nil { return Self.followUp(digest, url: secrets["url"] ?? "", username: username) }
        // Escaped as the description is: a title renders markdown too.
        let title = Self.text("\(digest.style.emoji) \(digest.title)", limit: Limit.title)
        let footer = TextLimit.truncate("\(digest.severity.rawValue) · alert \(digest.id)", to: Limit.footer)
        let buttons = digest.linkedActions.filter { $0.link.utf16.count <= Limit.buttonURL }
        var actionFields: [[String: Any]] = []
        // A link too long for a button goes into the embed as a link instead.
        for action in digest.linkedActions where action.link.utf16.count > Limit.buttonURL {
            actionFields.append(["name": Self.text(action.label, limit: Limit.fieldName), "value": "[open](\(action.link))", "inline": false])
        }
        for action in digest.actions where action.link == nil {
            actionFields.append(["name": Self.text(action.label, limit: Limit.fieldName),
                                 "value": "`alertctl \(action.kind.rawValue) \(digest.id)`", "inline": false])
        }
        // Labels share the embed's total with the rest: each gets what is
        // left after the title, footer, actions and some of the message.
        let size = { (field: [String: Any]) in
            ((field["name"] as? String)?.utf16.count ?? 0) + ((field["value"] as? String)?.utf16.count ?? 0)
        }
        var left = Limit.embedTotal - title.utf16.count - footer.utf16.count - actionFields.reduce(0) { $0 + size($1) }
            - min(digest.message?.utf16.count ?? 0, 1_000)
        var fields: [[String: Any]] = []
        // The last field counts the labels left out, as the other presenters' "… 3 more".
        let more = { (count: Int) -> [String: Any] in ["name": "…", "value": "\(count) more labels", "inline": true] }
        let slots = Limit.fields - actionFields.count
        left -= size(more(digest.labels.count))
        for (i, label) in digest.labels.enumerated() {
            let name = Self.text(label.name, limit: Limit.fieldName)
            let room = min(Limit.fieldValue, left - name.utf16.count)
            let last = i == digest.labels.count - 1
            guard room >= 16, fields.count < (last ? slots : slots - 1) else {
                fields.append(more(digest.labels.count - i))
                break
            }
            // Discord refuses a field whose value is empty or blank.
            let value = label.value.trimmingWhitespace().isEmpty ? "—" : label.value
            let field: [String: Any] = ["name": name, "value": Self.text(value, limit: room), "inline": true]
            left -= size(field)
            fields.append(field)
        }
        fields += actionFields
        let used = title.utf16.count + footer.utf16.count + fields.reduce(0) { $0 + size($1) }
        var embed: [String: Any] = [
            "title": title, "color": digest.style.colour, "fields": fields, "footer": ["text": footer], "timestamp": digest.createdAt,
        ]
        if let message = digest.message {
            embed["description"] = Self.text(message, limit: min(Limit.description, Limit.embedTotal - used), marker: TextLimit.bodyMarker)
        }
        var json: [String: Any] = [
            "embeds": [embed],
            // Text in an alert must never ping @everyone or a role.
            "allowed_mentions": ["parse": [String]()],
        ]
        if let username { json["username"] = username }
        if !buttons.isEmpty {
            json["components"] = [[
                "type": 1,
                "components": buttons.map { ["type": 2, "style": 5, "label": TextLimit.truncate($0.label, to: Limit.buttonLabel), "url": $0.link] },
            ]]
        }
        return HTTPServiceRequest(url: Self.postURL(secrets["url"] ?? ""), json: json)
    }

    /// `wait` makes Discord report a rejected message instead of a blind
    /// 204; `with_components` lets a plain webhook send link buttons.
    static func postURL(_ base: String) -> String {
        base + (base.contains("?") ? "&" : "?") + "wait=true&with_components=true"
    }

    /// A follow-up: one embed in the closing's colour, the headline as its
    /// title, the comment and alert id under it.
    static func followUp(_ d: AlertDigest, url: String, username: String?) -> HTTPServiceRequest {
        let style = d.closedStyle
        let embed: [String: Any] = [
            "title": text("\(style.emoji) \(d.followUpHeadline)", limit: Limit.title), "color": style.colour,
            "description": text(d.followUpDetails.joined(separator: "\n"), limit: Limit.description),
        ]
        var json: [String: Any] = ["embeds": [embed], "allowed_mentions": ["parse": [String]()]]
        if let username { json["username"] = username }
        return HTTPServiceRequest(url: postURL(url), json: json)
    }

    /// The alert's text as Discord markdown shows it literally, cut to `limit`.
    static func text(_ text: String, limit: Int, marker: String = TextLimit.marker) -> String {
        TextLimit.truncate(text, to: max(0, limit), marker: marker, escape: MarkupEscaping.markdown)
    }
}

import FoundationEssentials
import AlertModel

/// ntfy (https://ntfy.sh): a JSON publish to the server with a priority
/// from the severity, and a button per action link that POSTs it from the
/// phone, so the decision is taken right in the notification.
public typealias NtfyPresenter = HTTPServicePresenter<NtfyPresenterConfiguration>

/// Settings for an `ntfy` presenter.
///
/// ```json
/// "phone": {"type": "ntfy", "url": "https://ntfy.sh/alertd-ops", "token_file": "/etc/alertd/ntfy-token"}
/// ```
public struct NtfyPresenterConfiguration: HTTPServiceConfiguration {
    public static let typeName = "ntfy"
    public static let keys = ["url", "username", "tags", "click"] + PresenterSecret.keys("token") + PresenterSecret.keys("password")
        + HTTPServiceSettings.keys
    public static var example: [String: Any] { ["url": "https://ntfy.sh/alertd-example"] }

    enum Limit {
        /// ntfy's default `message-size-limit`, 4,096 bytes. ntfy reads up
        /// to the limit and takes a body that fills it as one past it: a
        /// message of exactly 4,096 bytes became an attachment (refused as
        /// one by a server that keeps none), so one byte less.
        static let messageBytes = 4_096 - 1
        /// ntfy reads a JSON publish body up to twice the message limit, and
        /// refuses one that reaches it (413, code 41303): a message of quotes
        /// or backslashes, each written twice, went past it within 4,096 bytes.
        static let jsonBodyBytes = 2 * 4_096 - 1
        static let title = 250
        /// The Android and web apps show at most three buttons.
        static let actions = 3
        static let topic = 64
    }

    /// Where JSON is published: the server's root.
    public var server = ""
    public var topic = ""
    /// An access token (`tk_…`), sent as `Authorization: Bearer`.
    public var token: PresenterSecret?
    /// Basic authentication, for servers set up with users.
    public var username: String?
    public var password: PresenterSecret?
    /// Added after the severity's tags; names of emoji show as emoji.
    public var tags: [String] = []
    /// Opened when the notification is tapped.
    public var click: String?
    public var http = HTTPServiceSettings()

    public init(server: String, topic: String, token: PresenterSecret? = nil) {
        self.server = server
        self.topic = topic
        self.token = token
    }

    public init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader) {
        if let url = reader.url(object, "url", at: path, required: true, need: "the topic's URL, e.g. https://ntfy.sh/mytopic") {
            if let (server, topic) = Self.split(topicURL: url) {
                self.server = server
                self.topic = topic
            } else {
                reader.problem(reader.join(path, "url"), "must end in the topic: letters, digits, - and _, at most \(Limit.topic), e.g. https://ntfy.sh/mytopic")
            }
        }
        token = PresenterSecret.read("token", from: object, at: path, reader, required: false)
        username = reader.string(object, "username", at: path)
        password = PresenterSecret.read("password", from: object, at: path, reader, required: false)
        if (username == nil) != (password == nil) { reader.problem(path, "give username and password (or password_file) together") }
        if token != nil && username != nil { reader.problem(path, "give token or username and password, not both") }
        tags = reader.strings(object, "tags", at: path) ?? []
        click = reader.url(object, "click", at: path, required: false)
        http = HTTPServiceSettings(reading: object, at: path, reader)
    }

    /// `https://ntfy.sh/mytopic` → (`https://ntfy.sh/`, `mytopic`).
    static func split(topicURL: String) -> (server: String, topic: String)? {
        guard var components = URLComponents(string: topicURL), components.query == nil, components.fragment == nil else { return nil }
        var segments = components.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let topic = segments.popLast(), topic.count <= Limit.topic,
              topic.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        components.path = "/" + segments.map { $0 + "/" }.joined()
        guard let server = components.string else { return nil }
        return (server, topic)
    }

    public var secrets: [PresenterSecret] { [token, password].compactMap { $0 } }

    /// A follow-up is a quiet notification: "Resolved: …", priority low.
    public static var followUps: FollowUpSupport { .onByDefault }

    /// ntfy's errors are `{"code": 40301, "http": 403, "error": "…"}`.
    public static var answers: HTTPServiceAnswers { HTTPServiceAnswers(retryHint: .header, errorPaths: [["error"]]) }

    public func request(for alert: Alert, delivery: DeliveryContext, secrets: PresenterSecrets) -> HTTPServiceRequest {
        let digest = AlertDigest(alert, delivery: delivery)
        var lines: [String] = []
        if let message = digest.message { lines.append(message) }
        if !digest.labels.isEmpty { lines.append(digest.labels.map { "\($0.name): \($0.value)" }.joined(separator: "\n")) }
        var text = lines.isEmpty ? "\(digest.severity.rawValue) alert \(digest.id)" : lines.joined(separator: "\n\n")
        // Without a public URL there is no button: the message says how to decide.
        var hints = digest.actions.filter { $0.link == nil }.map { "\($0.label): alertctl \($0.kind.rawValue) \(digest.id)" }
        var title = digest.title
        var firstTags = [digest.style.shortcode, digest.severity.rawValue]
        // ntfy's 2 is "low": no sound, no pop-up; the news is good or moot.
        var priority = digest.severity.on(info: 3, warning: 4, error: 4, critical: 5)
        if digest.followUp != nil {
            (title, text) = (digest.followUpHeadline, digest.followUpDetails.joined(separator: "\n"))
            firstTags = [digest.closedStyle.shortcode, digest.followUp?.outcome.rawValue ?? "closed"]
            priority = 2
            hints = []
        }
        var seen = Set<String>()
        // `warning` is both the severity and its emoji's name: one tag.
        let allTags = (firstTags + tags).filter { seen.insert($0).inserted }
        var json: [String: Any] = [
            "topic": topic,
            "title": TextLimit.truncate(title, to: Limit.title),
            "priority": priority,
            "tags": allTags,
        ]
        if let click { json["click"] = click }
        let actions: [[String: Any]] = digest.linkedActions.prefix(Limit.actions).map { action in
            // POSTing a signed link decides; `clear` dismisses the notification once it has.
            ["action": "http", "label": action.label, "url": action.link, "method": "POST", "clear": true]
        }
        if !actions.isEmpty { json["actions"] = actions }
        // The rest of the body first, and the hints whole, then the message
        // in what is left of both limits.
        let closing = hints.isEmpty ? "" : "\n\n" + hints.joined(separator: "\n")
        json["message"] = closing
        let room = Limit.jsonBodyBytes - JSONObject.text(of: json).utf8.count
        let message = TextLimit.truncate(text, to: max(0, Limit.messageBytes - closing.utf8.count), in: .utf8, marker: TextLimit.bodyMarker)
        json["message"] = TextLimit.truncate(message, to: max(0, room), in: .json, marker: TextLimit.bodyMarker) + closing
        var headers: [String: String] = [:]
        if let token = secrets["token"] {
            headers["Authorization"] = "Bearer \(token)"
        } else if let username, let password = secrets["password"] {
            headers["Authorization"] = "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
        }
        return HTTPServiceRequest(url: server, headers: .init(headers.map { .init(name: $0.key, value: $0.value) }), json: json)
    }
}

import FoundationEssentials
import AlertModel

/// Pushover (https://pushover.net/api): a message with a priority from the
/// severity, the confirm link as its supplementary URL, and the links in
/// its HTML text.
public typealias PushoverPresenter = HTTPServicePresenter<PushoverPresenterConfiguration>

/// Settings for a `pushover` presenter.
///
/// ```json
/// "pushover": {"type": "pushover", "token_file": "/etc/alertd/pushover-app-token", "user_file": "/etc/alertd/pushover-user-key"}
/// ```
public struct PushoverPresenterConfiguration: HTTPServiceConfiguration {
    public static let typeName = "pushover"
    public static let keys = PresenterSecret.keys("token") + PresenterSecret.keys("user") + ["api_url", "sound"] + HTTPServiceSettings.keys
    public static var example: [String: Any] {
        ["token_file": "/etc/alertd/pushover-app-token", "user_file": "/etc/alertd/pushover-user-key"]
    }

    /// Pushover's limits (https://pushover.net/api#limits).
    enum Limit {
        static let title = 250
        static let message = 1_024
        static let url = 512
        static let urlTitle = 100
    }

    /// The application's API token.
    public var token: PresenterSecret?
    /// The user (or group) key to notify.
    public var user: PresenterSecret?
    /// A sound name from Pushover's list, instead of the user's default.
    public var sound: String?
    public var apiURL = "https://api.pushover.net"
    public var http = HTTPServiceSettings()

    public init(token: PresenterSecret?, user: PresenterSecret?, apiURL: String = "https://api.pushover.net") {
        self.token = token
        self.user = user
        self.apiURL = apiURL
    }

    public init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader) {
        token = PresenterSecret.read("token", from: object, at: path, reader, required: true, need: "the application's API token")
        user = PresenterSecret.read("user", from: object, at: path, reader, required: true, need: "the user or group key")
        sound = reader.string(object, "sound", at: path)
        apiURL = reader.baseURL(object, "api_url", at: path, appends: "/1/messages.json", required: false) ?? apiURL
        http = HTTPServiceSettings(reading: object, at: path, reader)
    }

    public var secrets: [PresenterSecret] { [token, user].compactMap { $0 } }

    /// A follow-up is a quiet message: "Resolved: …", priority -1.
    public static var followUps: FollowUpSupport { .onByDefault }

    /// `{"status": 0, "errors": ["user identifier is invalid"], …}`. A 429
    /// means the application's monthly quota is spent: nothing goes through
    /// before `X-Limit-App-Reset`, so that is the wait (past `max_age`, the
    /// delivery ends with the reason, and the presenter asks once a
    /// `max_delay`). After a 5xx or no connection Pushover asks for at
    /// least 5 s before the next try ("Being Friendly to our API"): the
    /// backoff's floor. The path is the API's own.
    public static var answers: HTTPServiceAnswers {
        HTTPServiceAnswers(retryHint: .quotaResetHeader("X-Limit-App-Reset"), errorPaths: [["errors"]], minimumRetryDelay: .seconds(5),
                           pathIsAllCredential: false)
    }

    public func request(for alert: Alert, delivery: DeliveryContext, secrets: PresenterSecrets) -> HTTPServiceRequest {
        let d = AlertDigest(alert, delivery: delivery)
        if d.followUp != nil { return followUpRequest(d, secrets: secrets) }
        return HTTPServiceRequest(url: HTTPServiceRequest.url(apiURL, "/1/messages.json"), json: message(alert, d, secrets: secrets))
    }

    /// A group notification: its summary alert, whose list a message of
    /// 1,024 characters cuts short, with the group in the console as the
    /// message's link, so every alert stays reachable.
    public func request(for notification: AlertGroupNotification, delivery: DeliveryContext, secrets: PresenterSecrets) -> HTTPServiceRequest {
        let summary = notification.summaryAlert
        var json = message(summary, AlertDigest(summary, delivery: delivery), secrets: secrets)
        if let console = notification.consoleURL, console.utf16.count <= Limit.url {
            json["url"] = console
            json["url_title"] = TextLimit.truncate("All \(notification.firing.count) alerts of the group", to: Limit.urlTitle)
        }
        return HTTPServiceRequest(url: HTTPServiceRequest.url(apiURL, "/1/messages.json"), json: json)
    }

    /// The message's fields for one alert.
    func message(_ alert: Alert, _ d: AlertDigest, secrets: PresenterSecrets) -> [String: Any] {
        let text = Self.html(d)
        var json: [String: Any] = [
            "token": secrets["token"] ?? "", "user": secrets["user"] ?? "",
            "title": TextLimit.truncate("\(d.style.emoji) \(d.title)", to: Limit.title),
            "message": text, "html": 1,
            // -1 quiet, 0 normal, 1 high (bypasses quiet hours); 2 would need acknowledging in Pushover itself.
            "priority": d.severity.on(info: -1, warning: 0, error: 1, critical: 1),
            "timestamp": Int(alert.createdAt.timeIntervalSince1970),
        ]
        if let confirm = d.linkedActions.first(where: { $0.kind == .confirm }), confirm.link.utf16.count <= Limit.url {
            json["url"] = confirm.link
            json["url_title"] = TextLimit.truncate(confirm.label, to: Limit.urlTitle)
        }
        if let sound { json["sound"] = sound }
        return json
    }

    /// The message in Pushover's HTML, within its limit, which counts the
    /// tags too. The action links and hints are kept whole, and each label
    /// is whole or left out (a cut inside a tag or a link breaks the
    /// message); the labels may take half of what is left, or all of it
    /// without a message, and the message gets the rest, cut escaped.
    static func html(_ d: AlertDigest) -> String {
        let e = MarkupEscaping.html
        var actions = d.linkedActions.map { "<a href=\"\(e($0.link))\">\(TextLimit.truncate($0.label, to: 64, escape: e))</a>" }
            .joined(separator: " · ")
        // Only a public URL thousands of characters long makes these too
        // long; the confirm link still goes in `url` then.
        if actions.utf16.count > Limit.message / 2 { actions = "" }
        let hints = d.actions.filter { $0.link == nil }.map { e("\($0.label): alertctl \($0.kind.rawValue) \(d.id)") }
        let closing = ([actions] + hints).filter { !$0.isEmpty }.joined(separator: "\n")
        var room = Limit.message - closing.utf16.count - 2
        var labels: [String] = []
        var labelRoom = d.message == nil ? room : room / 2
        for (i, label) in d.labels.enumerated() {
            let line = "<b>\(TextLimit.truncate(label.name, to: 64, escape: e))</b>: \(TextLimit.truncate(label.value, to: 256, escape: e))"
            guard line.utf16.count + 1 <= labelRoom - 16 else {
                labels.append("… \(d.labels.count - i) more")
                break
            }
            labelRoom -= line.utf16.count + 1
            labels.append(line)
        }
        var parts: [String] = []
        let labelText = labels.joined(separator: "\n")
        room -= labelText.isEmpty ? 0 : labelText.utf16.count + 2
        if let message = d.message, room > 0 {
            parts.append(TextLimit.truncate(message, to: room, marker: TextLimit.bodyMarker, escape: e))
        }
        parts += [labelText, closing].filter { !$0.isEmpty }
        let text = parts.joined(separator: "\n\n")
        return text.isEmpty ? "\(d.severity.rawValue) alert \(d.id)" : text
    }

    /// A follow-up: the headline as title, the comment and alert id, quiet.
    func followUpRequest(_ d: AlertDigest, secrets: PresenterSecrets) -> HTTPServiceRequest {
        var json: [String: Any] = [
            "token": secrets["token"] ?? "", "user": secrets["user"] ?? "",
            "title": TextLimit.truncate("\(d.closedStyle.emoji) \(d.followUpHeadline)", to: Limit.title),
            "message": TextLimit.truncate(d.followUpDetails.joined(separator: "\n"), to: Limit.message),
            "priority": -1,
            "timestamp": Int((d.followUp?.decision.at ?? Date()).timeIntervalSince1970),
        ]
        if let sound { json["sound"] = sound }
        return HTTPServiceRequest(url: HTTPServiceRequest.url(apiURL, "/1/messages.json"), json: json)
    }
}

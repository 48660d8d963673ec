import FoundationEssentials
import AlertModel

/// Matrix through the client-server API: an `m.room.message` with a plain
/// body and an HTML one, sent with the delivery id as transaction id, so a
/// retried send is the same event to the homeserver, never a second one.
/// A group's later notifications go in the thread of its first (`m.thread`).
public typealias MatrixPresenter = HTTPServicePresenter<MatrixPresenterConfiguration>

/// Settings for a `matrix` presenter.
///
/// ```json
/// "matrix": {"type": "matrix", "url": "https://matrix.example.org", "room": "!ops:example.org", "token_file": "/etc/alertd/matrix-token"}
/// ```
public struct MatrixPresenterConfiguration: HTTPServiceConfiguration {
    public static let typeName = "matrix"
    public static let keys = ["url", "room", "notice"] + PresenterSecret.keys("token") + HTTPServiceSettings.keys
    public static var example: [String: Any] {
        ["url": "https://matrix.example.org", "room": "!abcdefghijklmnop:example.org", "token_file": "/etc/alertd/matrix-token"]
    }

    /// An event is at most 65,536 bytes of JSON, and the text appears twice
    /// in it, once as HTML: each part is measured as it is written there
    /// (``TextLimit/Unit/json``), a quote or backslash twice, `&quot;` six times.
    enum Limit {
        static let messageBytes = 12_000
        static let titleBytes = 1_000
        static let labelsBytes = 6_000
        static let labelName = 64, labelValue = 256
        /// A group's text and HTML each; measured in UTF-8, so twice this at
        /// worst once written as JSON.
        static let groupBytes = 12_000
        /// A group's text and HTML together, written as JSON. ``groupBytes``
        /// bounds only the list of alerts not shown: the ten shown firing
        /// and ten closed are whole, and with long titles and labels full
        /// of quotes (`&quot;` in the HTML) they made an event of 88 kB,
        /// which a homeserver refuses for good (413 `M_TOO_LARGE`).
        static let groupEventBytes = 60_000
    }

    /// The homeserver's client API base URL.
    public var url = ""
    /// The room's id (`!…:server`), which the bot has joined.
    public var room = ""
    /// The bot's access token.
    public var token: PresenterSecret?
    /// Send `m.notice` (how bots usually speak, and clients may not notify
    /// for) instead of `m.text`.
    public var notice = false
    public var http = HTTPServiceSettings()

    public init(url: String, room: String, token: PresenterSecret?) {
        self.url = url
        self.room = room
        self.token = token
    }

    public init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader) {
        url = reader.baseURL(object, "url", at: path, appends: "/_matrix/client/v3/…", suffix: "", required: true, need: "the homeserver, e.g. https://matrix.example.org") ?? ""
        if let room = reader.string(object, "room", at: path) {
            if room.hasPrefix("!") && room.contains(":") {
                self.room = room
            } else {
                reader.problem(reader.join(path, "room"), "must be a room id such as \"!abcdef:example.org\" (in a client: room settings, Advanced)")
            }
        } else if object["room"] == nil {
            reader.problem(reader.join(path, "room"), "is required: the room's id, e.g. \"!abcdef:example.org\"")
        }
        token = PresenterSecret.read("token", from: object, at: path, reader, required: true, need: "the bot's access token")
        notice = reader.bool(object, "notice", at: path) ?? false
        http = HTTPServiceSettings(reading: object, at: path, reader)
    }

    public var secrets: [PresenterSecret] { token.map { [$0] } ?? [] }

    /// `{"errcode": "M_LIMIT_EXCEEDED", "error": "…", "retry_after_ms": 2000}`.
    /// A follow-up is a short message sent with its own delivery id as
    /// transaction id, so its retries are idempotent too.
    public static var followUps: FollowUpSupport { .onByDefault }

    public static var answers: HTTPServiceAnswers {
        HTTPServiceAnswers(retryHint: .bodyMilliseconds(["retry_after_ms"]), errorPaths: [["error"], ["errcode"]], threadPath: ["event_id"],
                           pathIsAllCredential: false)
    }

    public func request(for alert: Alert, delivery: DeliveryContext, secrets: PresenterSecrets) -> HTTPServiceRequest {
        // Links signed for the room: a decision by one records `matrix:<room id>`.
        var d = AlertDigest(alert, delivery: delivery.addressed(to: "matrix:\(room)"))
        // `limits.max_title_length` may allow 10,000 characters, and the title appears twice, once as HTML.
        d.title = TextLimit.truncate(d.title, to: Limit.titleBytes, in: .json)
        let e = MarkupEscaping.html, htmlLines = Self.htmlLines
        var plain = [d.style.emoji + " " + d.heading]
        var html = ["<h4><font color=\"\(d.style.hexColour)\">\(d.style.emoji) \(e(d.style.label))</font> \(e(d.title))</h4>"]
        if d.followUp != nil {
            let style = d.closedStyle
            let share = Limit.messageBytes / max(1, d.followUpDetails.count)
            plain = [style.emoji + " " + d.followUpHeadline] + d.followUpDetails.map { TextLimit.truncate($0, to: share, in: .json) }
            html = ["<p><font color=\"\(style.hexColour)\">\(style.emoji)</font> <b>\(e(d.followUpHeadline))</b></p>"]
                // A comment's line breaks kept: HTML runs a bare newline into the line before.
                + d.followUpDetails.map { "<p>\(TextLimit.truncate($0, to: share, in: .json, escape: htmlLines))</p>" }
        } else if let message = d.message {
            plain.append(TextLimit.truncate(message, to: Limit.messageBytes, in: .json, marker: TextLimit.bodyMarker))
            html.append("<p>\(TextLimit.truncate(message, to: Limit.messageBytes, in: .json, marker: TextLimit.bodyMarker, escape: htmlLines))</p>")
        }
        // A follow-up is the headline and its details alone.
        if d.followUp == nil {
            if !d.labels.isEmpty {
                let labels = Self.labels(d.labels)
                plain.append(labels.plain)
                html.append(labels.html)
            }
            let links = d.linkedActions
            if !links.isEmpty {
                plain.append(links.map { "\($0.label): \($0.link)" }.joined(separator: "\n"))
                html.append("<p>" + links.map { "<a href=\"\(e($0.link))\">\(e($0.label))</a>" }.joined(separator: " · ") + "</p>")
            }
            for a in d.actions where a.link == nil {
                plain.append("\(a.label): alertctl \(a.kind.rawValue) \(d.id)")
                html.append("<p>\(e(a.label)): <code>alertctl \(a.kind.rawValue) \(e(d.id))</code></p>")
            }
        }
        return send(plain: plain.joined(separator: "\n\n"), html: html.joined(), delivery: delivery, secrets: secrets)
    }

    /// A group notification: the list as text and HTML. The first starts a
    /// thread (the homeserver's `event_id` for it is the thread); later ones
    /// are `m.thread` relations to it, with the reply fallback clients
    /// without threads show as a reply.
    public func request(for notification: AlertGroupNotification, delivery: DeliveryContext, secrets: PresenterSecrets) -> HTTPServiceRequest {
        let g = AlertGroupDigest(notification)
        var relation: [String: Any]?
        if let thread = delivery.thread {
            relation = ["rel_type": "m.thread", "event_id": thread, "is_falling_back": true, "m.in_reply_to": ["event_id": thread]]
        }
        var plain = g.text(limit: Limit.groupBytes), html = g.html(limit: Limit.groupBytes)
        if TextLimit.length(plain, .json) + TextLimit.length(html, .json) > Limit.groupEventBytes {
            // Cut as text, and the HTML made from that text: an HTML list cut
            // anywhere else would leave a tag or an entity open.
            plain = TextLimit.truncate(plain, to: Limit.groupEventBytes / 3, in: .json, marker: TextLimit.bodyMarker)
            html = TextLimit.truncate(plain, to: Limit.groupEventBytes * 2 / 3, in: .json, marker: Self.htmlLines(TextLimit.bodyMarker),
                                      escape: Self.htmlLines)
        }
        return send(plain: plain, html: html, relation: relation, delivery: delivery, secrets: secrets)
    }

    /// Text as HTML, its line breaks kept.
    static func htmlLines(_ text: String) -> String {
        // By scalars: "\r\n" is one Character, and replacing "\n" missed it.
        MarkupEscaping.html(text).replacing("\r\n", with: "\n").replacingScalars(["\n": "<br>", "\r": "<br>"])
    }

    /// The labels as lines and as an HTML list, each within
    /// ``Limit/labelsBytes``; those past it are counted ("… 3 more").
    static func labels(_ labels: [(name: String, value: String)]) -> (plain: String, html: String) {
        let e = MarkupEscaping.html
        var plain: [String] = [], html: [String] = []
        var room = Limit.labelsBytes
        for (i, label) in labels.enumerated() {
            let name = TextLimit.truncate(label.name, to: Limit.labelName), value = TextLimit.truncate(label.value, to: Limit.labelValue)
            let line = "\(name): \(value)", item = "<li><b>\(e(name))</b>: \(e(value))</li>"
            // The HTML is never shorter than the text.
            guard TextLimit.length(item, .json) <= room else {
                plain.append("… \(labels.count - i) more")
                html.append("<li>… \(labels.count - i) more</li>")
                break
            }
            room -= TextLimit.length(item, .json)
            plain.append(line)
            html.append(item)
        }
        return (plain.joined(separator: "\n"), "<ul>" + html.joined() + "</ul>")
    }

    /// `PUT …/send/m.room.message/{delivery id}` of a message with these bodies.
    func send(plain: String, html: String, relation: [String: Any]? = nil, delivery: DeliveryContext, secrets: PresenterSecrets)
        -> HTTPServiceRequest {
        // An empty `m.mentions` says the event mentions no one, and turns off
        // the older push rules that match its text: a title holding `@room`
        // or someone's display name would otherwise ping the room or them.
        var json: [String: Any] = [
            "msgtype": notice ? "m.notice" : "m.text", "body": plain, "format": "org.matrix.custom.html", "formatted_body": html,
            "m.mentions": [String: Any](),
        ]
        if let relation { json["m.relates_to"] = relation }
        let path = "/_matrix/client/v3/rooms/\(HTTPServiceRequest.pathSegment(room))/send/m.room.message/"
            + HTTPServiceRequest.pathSegment(delivery.deliveryID.rawValue)
        return HTTPServiceRequest(method: "PUT", url: HTTPServiceRequest.url(url, path),
                                  headers: ["Authorization": "Bearer \(secrets["token"] ?? "")"], json: json)
    }
}

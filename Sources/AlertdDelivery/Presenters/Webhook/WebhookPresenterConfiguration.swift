import FoundationEssentials
import AlertdPOSIX
import AlertModel
import AlertdCurl
import AlertdHTTP

/// Settings for one webhook presenter. Every field has a default.
public struct WebhookPresenterConfiguration: Sendable, Equatable {
    /// Where alerts are POSTed; `http` or `https`.
    public var url: String = ""
    /// The Standard Webhooks signing secret, `whsec_` followed by base64.
    /// Without one, requests go out unsigned.
    public var secret: String?
    public var connectTimeout: Duration = .seconds(5)
    /// Limit for the whole request, connecting included.
    public var timeout: Duration = .seconds(10)
    /// Extra headers for every request, e.g. an `Authorization` the receiver
    /// wants. They cannot replace the content type, user agent or signature headers.
    public var headers: [String: String] = [:]
    /// A file holding the secret, read when the presenter is made, so the
    /// config file itself can stay world-readable.
    public var secretFile: String?
    /// alertd's body, or Alertmanager's for receivers written for it.
    public var format: WebhookPayloadFormat = .alertd
    /// The `externalURL` of Alertmanager's body (Alertmanager puts its own
    /// URL there; receivers build links from it): alertd's `api.public_url`,
    /// or empty.
    public var externalURL: String = ""
    /// The most alerts a group notification lists (0: all), as
    /// Alertmanager's `max_alerts`: a group of thousands made bodies of
    /// tens of MB, which receivers refuse.
    public var maxAlerts: Int = 0

    public init(
        url: String = "", secret: String? = nil, connectTimeout: Duration = .seconds(5), timeout: Duration = .seconds(10),
        headers: [String: String] = [:], secretFile: String? = nil
    ) {
        self.url = url
        self.secret = secret
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.headers = headers
        self.secretFile = secretFile
    }
}

extension WebhookPresenterConfiguration {
    /// The scheme `text` opens with (`htp` of `htp:/nope`), as RFC 3986
    /// spells one; nil when there is none, or what precedes the colon is a
    /// host before its port (`receiver.example:8443/hook`).
    private static func scheme(of text: String) -> Substring? {
        guard let colon = text.firstIndex(of: ":"), let first = text.first, first.isASCII, first.isLetter else { return nil }
        let scheme = text[..<colon]
        guard scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }),
              !(text[text.index(after: colon)...].first?.isNumber ?? false) else { return nil }
        return scheme
    }
}

extension WebhookPresenterConfiguration: PresenterConfiguration {
    public static let typeName = "webhook"
    public static let keys = ["url", "secret", "secret_file", "connect_timeout", "timeout", "headers", "format", "external_url", "max_alerts"]
    /// 512 in flight, near Alertmanager, which sends every group's
    /// notification at once: at 64, 5,000 alerts to a receiver answering in
    /// 200 ms took 16 s (Alertmanager 2.5 s), and 100 alerts accepted in one
    /// request waited for each other's slots (figure (2)'s p99 POST →
    /// arrival 67 ms, 20 ms at 512, for the same CPU; bench/analysis.md).
    /// A receiver that wants fewer sets it.
    public static let defaultMaxConcurrency = 512
    public static var example: [String: Any] { ["url": "https://receiver.example/alertd"] }

    public init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader) {
        self.init()
        if let url = reader.string(object, "url", at: path) {
            if JSONConfigReader.isURL(url) {
                self.url = url
            } else {
                // Its origin only: the rest of a webhook URL, and its user info, are often a credential.
                let origin = URLRedaction.originOfUnparsed(url)
                let got = if url.contains("://") {
                    "\"\(origin == url ? url : origin + "…")\""
                } else if let scheme = Self.scheme(of: url) {
                    ["http", "https"].contains(scheme.lowercased()) ? "\"\(scheme):\" without \"//\" and a host" : "the scheme \"\(scheme):\", which is neither"
                } else {
                    "text with no scheme (such as https://)"
                }
                let blank = url.contains(where: \.isWhitespace) ? " (a URL has no spaces: write one as %20)" : ""
                reader.problem(path + ".url", "must be an http or https URL, got \(got)\(blank)")
            }
        } else if object["url"] == nil {
            reader.problem(path + ".url", "is required for a webhook presenter")
        }
        secret = reader.string(object, "secret", at: path)
        secretFile = reader.string(object, "secret_file", at: path)
        if let s = secret {
            do { _ = try StandardWebhookSigner(secret: s) } catch { reader.problem(path + ".secret", error.message) }
        }
        if secret != nil && secretFile != nil { reader.problem(path, "give secret or secret_file, not both") }
        if let d = reader.duration(object, "connect_timeout", at: path) { connectTimeout = d }
        if let d = reader.duration(object, "timeout", at: path) { timeout = d }
        if let f = reader.string(object, "format", at: path) {
            if let known = WebhookPayloadFormat(rawValue: f) { format = known } else {
                reader.problem(path + ".format", "must be one of \(WebhookPayloadFormat.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), got \"\(f)\"")
            }
        }
        if let e = reader.string(object, "external_url", at: path) {
            if format != .alertmanager { reader.problem(path + ".external_url", "is only for \"format\": \"alertmanager\"") }
            // "" is the default, said out loud.
            externalURL = e.isEmpty ? "" : reader.checkedURL(e, at: path + ".external_url") ?? ""
        }
        if let n = reader.int(object, "max_alerts", at: path, range: 0...1_000_000) { maxAlerts = n }
        if let h = reader.stringMap(object, "headers", at: path) {
            headers = h
            for (name, value) in h.sorted(by: { $0.key < $1.key }) {
                if let problem = HTTPClientRequest.headerProblem(name: name, value: value) { reader.problem(path + ".headers", problem) }
                // One given here would be replaced unseen.
                if StandardWebhookSigner.setsHeader(named: name) {
                    reader.problem(path + ".headers", "`\(name)` is set by alertd on every request and cannot be replaced; leave it out")
                } else if HTTPClientRequest.transportOwnsHeader(named: name) {
                    reader.problem(path + ".headers", "`\(name)` frames the request or manages the connection, which alertd does itself; leave it out")
                }
            }
        }
    }

    /// A follow-up is a payload of type `closed`, signed the same way.
    public static var followUps: FollowUpSupport { .onByDefault }

    public func makePresenter(name: String, context: PresenterContext) throws(PresenterSetupError) -> any AlertPresenter {
        var c = self
        do {
            // Relative to the state directory, as every presenter's `*_file` is.
            if let secretFile { c.secret = try SecretFile.read(context.resolve(secretFile)) }
            return try WebhookPresenter(name: name, configuration: c, client: context.httpClient)
        } catch let error as SecretFileError {
            throw PresenterSetupError(error.message)
        } catch let error as WebhookConfigurationError {
            throw PresenterSetupError(error.message)
        } catch {
            throw PresenterSetupError("\(error)")
        }
    }

    public func preview(of alert: Alert, delivery: DeliveryContext) -> PresenterPreview? {
        preview((try? body(of: alert, delivery: delivery, receiver: "render")) ?? Data(), delivery: delivery)
    }

    public func preview(of notification: AlertGroupNotification, delivery: DeliveryContext) -> PresenterPreview? {
        preview(body(of: notification, delivery: delivery, receiver: "render"), delivery: delivery)
    }

    /// What is POSTed for `alert`, in this presenter's format; `receiver`
    /// is the presenter's name, which Alertmanager's body carries.
    func body(of alert: Alert, delivery: DeliveryContext, receiver: String) throws -> Data {
        switch format {
        case .alertd: try WebhookPayload(alert: alert, delivery: delivery).encoded()
        case .alertmanager:
            AlertmanagerWebhookPayload(alert: alert, receiver: receiver, externalURL: externalURL, followedUp: delivery.followedUp).encoded()
        }
    }

    /// What is POSTed for a group notification, in this presenter's format.
    func body(of notification: AlertGroupNotification, delivery: DeliveryContext, receiver: String) -> Data {
        switch format {
        case .alertd: WebhookGroupPayload(notification, delivery: delivery, maxAlerts: maxAlerts).encoded()
        case .alertmanager: AlertmanagerWebhookPayload(notification, receiver: receiver, externalURL: externalURL, maxAlerts: maxAlerts).encoded()
        }
    }

    private func preview(_ body: Data, delivery: DeliveryContext) -> PresenterPreview {
        var own = HTTPHeaders()
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { own.add(name, value) }
        var all = StandardWebhookSigner.requestHeaders(nil, deliveryID: delivery.deliveryID, at: Date(), body: body, base: own)
        all.set("User-Agent", AlertdVersion.userAgent)
        if let secret = [secret.map { _ in PresenterSecret(key: "secret", source: .inline("")) },
                         secretFile.map { PresenterSecret(key: "secret", source: .file($0)) }].compactMap({ $0 }).first {
            all.set("webhook-signature", "v1,<HMAC-SHA256 with \(secret.placeholder)>")
        }
        return HTTPServiceRequest(url: url, headers: all, body: body).preview
    }
}

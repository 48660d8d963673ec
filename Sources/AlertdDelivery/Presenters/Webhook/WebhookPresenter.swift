import FoundationEssentials
import AlertModel
import AlertdCurl
import AlertdHTTP

/// Presents alerts by POSTing a ``WebhookPayload`` (or, with `"format":
/// "alertmanager"`, an ``AlertmanagerWebhookPayload``) to a URL, signed per
/// Standard Webhooks when a secret is configured.
///
/// It makes one attempt and judges it: 2xx is delivered; 408, 429, 5xx and
/// network trouble are worth retrying (with the receiver's `Retry-After`);
/// redirects, other 4xx and unusable URLs are not.
public struct WebhookPresenter: HTTPRequestPresenter {
    public let name: String
    public let configuration: WebhookPresenterConfiguration
    private let signer: StandardWebhookSigner?
    private let client: HTTPClient
    private let now: @Sendable () -> Date

    /// What a receiver's error text must not show: the signing secret (as
    /// configured and its key alone) and the values of headers that carry
    /// credentials, as a receiver may quote what it refused.
    private let credentials: PresenterSecrets

    /// The most of a receiver's answer that is read; only its status matters.
    package static let maxResponseBytes = 64 * 1024

    /// Fails only for a secret that cannot be used; a bad URL shows up as a
    /// permanent failure on the first delivery.
    public init(
        name: String, configuration: WebhookPresenterConfiguration, client: HTTPClient = .shared,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(WebhookConfigurationError) {
        self.name = name
        self.configuration = configuration
        self.signer = try configuration.secret.map { (secret: String) throws(WebhookConfigurationError) in
            try StandardWebhookSigner(secret: secret)
        }
        self.client = client
        self.now = now
        var credentials: [String: String] = [:]
        if let secret = configuration.secret {
            credentials["secret"] = secret
            if secret.hasPrefix("whsec_") { credentials["secret.key"] = String(secret.dropFirst(6)) }
        }
        for (name, value) in configuration.headers where Self.carriesCredentials(name) {
            credentials["header.\(name)"] = value
            // `Bearer <token>`, `Basic <base64>`: the credential may be quoted alone.
            if let last = value.split(separator: " ").last, last.count < value.count { credentials["header.\(name).credential"] = String(last) }
        }
        self.credentials = PresenterSecrets(credentials)
    }

    /// Whether a header of this name carries a credential (`Authorization`,
    /// `X-Api-Key`, `X-Auth-Token`, …); other values are no secret, and
    /// hiding them would blank ordinary words out of a receiver's text.
    static func carriesCredentials(_ name: String) -> Bool {
        let name = name.lowercased()
        return ["auth", "key", "token", "secret", "password", "signature", "cookie", "session"].contains { name.contains($0) }
    }

    public func attempt(_ alert: Alert, delivery: DeliveryContext) -> HTTPAttempt {
        let body: Data
        do {
            body = try configuration.body(of: alert, delivery: delivery, receiver: name)
        } catch {
            return .settled(.permanentFailure(reason: "cannot encode alert \(alert.id) as JSON: \(error)"))
        }
        return post(body, delivery: delivery)
    }

    /// A group notification as a ``WebhookGroupPayload`` (or Alertmanager's
    /// body), signed the same way. A webhook has no threads.
    public func presentGroup(_ notification: AlertGroupNotification, delivery: DeliveryContext) async -> GroupPresentationOutcome {
        GroupPresentationOutcome(outcome: await post(configuration.body(of: notification, delivery: delivery, receiver: name), delivery: delivery).outcome())
    }

    private func post(_ body: Data, delivery: DeliveryContext) -> HTTPAttempt {
        let request = HTTPClientRequest(
            url: configuration.url, method: "POST", headers: headers(deliveryID: delivery.deliveryID, body: body), body: body,
            connectTimeout: configuration.connectTimeout, timeout: configuration.timeout,
            maxResponseBytes: Self.maxResponseBytes, oversizedResponse: .truncate,
            receiveBufferSize: HTTPClientRequest.smallReceiveBuffer)
        // Reasons name the receiver by its origin: a webhook URL's path or
        // query is often its credential (Mattermost's /hooks/<key>, a
        // ?token=), and reasons reach read-only API clients and logs.
        let (url, now, credentials) = (configuration.url, self.now, self.credentials)
        return .send(request, on: client) { result in
            switch result {
            case .success(let response):
                Self.outcome(for: response, url: url, now: now(), naming: URLRedaction.origin, readingErrors: true, hiding: credentials)
            case .failure(let error): Self.outcome(for: error, url: url, naming: URLRedaction.origin)
            }
        }
    }

    private func headers(deliveryID: DeliveryID, body: Data) -> HTTPHeaders {
        var own = HTTPHeaders()
        for (name, value) in configuration.headers.sorted(by: { $0.key < $1.key }) { own.add(name, value) }
        return StandardWebhookSigner.requestHeaders(signer, deliveryID: deliveryID, at: now(), body: body, base: own)
    }
}

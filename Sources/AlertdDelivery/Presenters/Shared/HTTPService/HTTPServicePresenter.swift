import FoundationEssentials
import AlertModel
import AlertdCurl

/// Presents alerts to one service: each attempt is the request its type
/// builds, and the answer is judged by the service's ``HTTPServiceAnswers``.
/// Reasons name the service and its URL's origin only: the rest of a
/// service URL is often a credential.
public struct HTTPServicePresenter<Configuration: HTTPServiceConfiguration>: HTTPRequestPresenter {
    public let name: String
    public let configuration: Configuration
    private let secrets: PresenterSecrets
    private let client: HTTPClient
    private let now: @Sendable () -> Date

    /// The most of a service's answer that is read: its status and error text.
    static var maxResponseBytes: Int { 64 * 1024 }

    /// Read once: the dispatcher asks at every delivery it starts.
    public let minimumRetryDelay: Duration?

    public init(
        name: String, configuration: Configuration, secrets: PresenterSecrets, client: HTTPClient = .shared,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.name = name
        self.configuration = configuration
        self.secrets = secrets
        self.client = client
        self.now = now
        minimumRetryDelay = Configuration.answers.minimumRetryDelay
    }

    public func attempt(_ alert: Alert, delivery: DeliveryContext) -> HTTPAttempt {
        let built = configuration.request(for: alert, delivery: delivery, secrets: secrets)
        let now = self.now
        let secrets = self.secrets
        return .send(request(built), on: client) { result in
            switch result {
            case .success(let response): Self.outcome(for: response, url: built.url, now: now(), hiding: secrets)
            case .failure(let error): Self.outcome(for: error, url: built.url)
            }
        }
    }

    /// A group notification in the type's group format. A delivered first
    /// notification returns what the service named it (Slack's `ts`,
    /// Matrix's `event_id`) as the thread; a later one keeps the thread it
    /// was given, so the group's messages stay under its first.
    public func presentGroup(_ notification: AlertGroupNotification, delivery: DeliveryContext) async -> GroupPresentationOutcome {
        let built = configuration.request(for: notification, delivery: delivery, secrets: secrets)
        let response: HTTPClientResponse
        do {
            response = try await client.send(request(built))
        } catch {
            return GroupPresentationOutcome(outcome: Self.outcome(for: error, url: built.url))
        }
        let outcome = Self.outcome(for: response, url: built.url, now: now(), hiding: secrets)
        guard outcome.isDelivered else { return GroupPresentationOutcome(outcome: outcome) }
        return GroupPresentationOutcome(outcome: outcome, thread: delivery.thread ?? Configuration.answers.thread(in: response))
    }

    /// What is sent for `built`.
    private func request(_ built: HTTPServiceRequest) -> HTTPClientRequest {
        var headers = built.headers
        headers.set("User-Agent", AlertdVersion.userAgent)
        return HTTPClientRequest(
            url: built.url, method: built.method, headers: headers, body: built.body,
            connectTimeout: configuration.http.connectTimeout, timeout: configuration.http.timeout,
            maxResponseBytes: Self.maxResponseBytes, oversizedResponse: .truncate,
            receiveBufferSize: HTTPClientRequest.smallReceiveBuffer)
    }

    private static func outcome(for response: HTTPClientResponse, url: String, now: Date, hiding secrets: PresenterSecrets) -> PresentationOutcome {
        Configuration.answers.outcome(for: response, service: Configuration.typeName, url: url, now: now, hiding: secrets)
    }

    private static func outcome(for error: HTTPClientError, url: String) -> PresentationOutcome {
        Configuration.answers.outcome(for: error, service: Configuration.typeName, url: url)
    }
}

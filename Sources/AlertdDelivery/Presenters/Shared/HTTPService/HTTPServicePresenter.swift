import FoundationEssentials
import AlertModel
import AlertdCurl

/// Presents alerts to one service: each attempt is the request its type
/// builds, and the answer is judged by the service's ``HTTPServiceAnswers``.
/// Reasons name the service and its URL's origin only: the rest of a
/// service URL is often a credential.
public struct HTTPServicePresenter<Configuration: HTTPServiceConfiguration>: AlertPresenter {
    public let name: String
    public let configuration: Configuration
    private let secrets: PresenterSecrets
    private let client: HTTPClient
    private let now: @Sendable () -> Date

    /// The most of a service's answer that is read: its status and error text.
    static var maxResponseBytes: Int { 64 * 1024 }

    public init(
        name: String, configuration: Configuration, secrets: PresenterSecrets, client: HTTPClient = .shared,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.name = name
        self.configuration = configuration
        self.secrets = secrets
        self.client = client
        self.now = now
    }

    public func present(_ alert: Alert, delivery: DeliveryContext) async -> PresentationOutcome {
        await send(configuration.request(for: alert, delivery: delivery, secrets: secrets)).outcome
    }

    /// A group notification in the type's group format. A delivered first
    /// notification returns what the service named it (Slack's `ts`,
    /// Matrix's `event_id`) as the thread; a later one keeps the thread it
    /// was given, so the group's messages stay under its first.
    public func presentGroup(_ notification: AlertGroupNotification, delivery: DeliveryContext) async -> GroupPresentationOutcome {
        let (outcome, response) = await send(configuration.request(for: notification, delivery: delivery, secrets: secrets))
        guard outcome.isDelivered else { return GroupPresentationOutcome(outcome: outcome) }
        return GroupPresentationOutcome(outcome: outcome, thread: delivery.thread ?? response.flatMap(Configuration.answers.thread(in:)))
    }

    /// Sends one request and judges the answer; the answer too, when there was one.
    private func send(_ built: HTTPServiceRequest) async -> (outcome: PresentationOutcome, response: HTTPClientResponse?) {
        var headers = built.headers
        headers.set("User-Agent", AlertdVersion.userAgent)
        let request = HTTPClientRequest(
            url: built.url, method: built.method, headers: headers, body: built.body,
            connectTimeout: configuration.http.connectTimeout, timeout: configuration.http.timeout,
            maxResponseBytes: Self.maxResponseBytes, oversizedResponse: .truncate,
            receiveBufferSize: HTTPClientRequest.smallReceiveBuffer)
        let service = Configuration.typeName
        do {
            let response = try await client.send(request)
            return (Configuration.answers.outcome(for: response, service: service, url: built.url, now: now()), response)
        } catch {
            return (Configuration.answers.outcome(for: error, service: service, url: built.url), nil)
        }
    }
}

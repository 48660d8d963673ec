import FoundationEssentials
import AlertModel

/// A presenter type that is one HTTP request per attempt to a service
/// (Slack, ntfy, Discord, …). The type builds the request and says how the
/// service answers; ``HTTPServicePresenter`` sends it and judges the
/// answer, the same way for every service, and `alertctl render` shows it.
public protocol HTTPServiceConfiguration: PresenterConfiguration {
    /// The secrets the request needs; read when the presenter is made.
    var secrets: [PresenterSecret] { get }
    /// Timeouts.
    var http: HTTPServiceSettings { get }
    /// How the service says when to retry, and where its error text is.
    static var answers: HTTPServiceAnswers { get }

    /// The request for one attempt. `secrets` holds the values of
    /// ``secrets`` by key, or their placeholders in a preview.
    func request(for alert: Alert, delivery: DeliveryContext, secrets: PresenterSecrets) -> HTTPServiceRequest

    /// The request for one attempt at a group notification; by default
    /// the request for its ``AlertGroupNotification/summaryAlert``.
    func request(for notification: AlertGroupNotification, delivery: DeliveryContext, secrets: PresenterSecrets) -> HTTPServiceRequest
}

extension HTTPServiceConfiguration {
    /// Chat services limit each sender to about one message a second;
    /// a few at once is as fast as they go.
    public static var defaultMaxConcurrency: Int { 4 }

    public func makePresenter(name: String, context: PresenterContext) throws(PresenterSetupError) -> any AlertPresenter {
        HTTPServicePresenter(name: name, configuration: self, secrets: try PresenterSecrets(reading: secrets, in: context),
                             client: context.httpClient)
    }

    public func request(for notification: AlertGroupNotification, delivery: DeliveryContext, secrets: PresenterSecrets) -> HTTPServiceRequest {
        request(for: notification.summaryAlert, delivery: delivery, secrets: secrets)
    }

    public func preview(of alert: Alert, delivery: DeliveryContext) -> PresenterPreview? {
        request(for: alert, delivery: delivery, secrets: .placeholders(secrets)).preview
    }

    public func preview(of notification: AlertGroupNotification, delivery: DeliveryContext) -> PresenterPreview? {
        request(for: notification, delivery: delivery, secrets: .placeholders(secrets)).preview
    }
}

import AlertModel
import AlertdCurl

/// A presenter whose attempt at one alert is a single HTTP request. It
/// hands over the request and how to judge the answer, and the dispatcher
/// runs the attempt on the HTTP client's thread with no task waiting for
/// it: at thousands of deliveries a second, a task per attempt, its
/// continuation and its hop back cost more CPU than building the request.
public protocol HTTPRequestPresenter: AlertPresenter {
    /// The attempt at `alert` (or its follow-up, as for
    /// ``AlertPresenter/present(_:delivery:)``).
    func attempt(_ alert: Alert, delivery: DeliveryContext) -> HTTPAttempt
}

extension HTTPRequestPresenter {
    public func present(_ alert: Alert, delivery: DeliveryContext) async -> PresentationOutcome {
        await attempt(alert, delivery: delivery).outcome()
    }
}

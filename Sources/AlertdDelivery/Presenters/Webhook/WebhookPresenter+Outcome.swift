import FoundationEssentials
import AlertdCurl
import AlertModel

extension WebhookPresenter {
    /// Judges a receiver's answer. `name` is how the reason names the URL:
    /// a handler's without its user info (its path is in the alert for
    /// all to see), a configured webhook's by its origin alone.
    package static func outcome(
        for response: HTTPClientResponse, url: String, now: Date, naming name: (String) -> String = URLRedaction.redactingUserInfo
    ) -> PresentationOutcome {
        HTTPOutcome.judge(
            status: response.status, target: name(url),
            location: response.headers["Location"].map(name),
            retryAfter: response.headers.retryAfter(relativeTo: now))
    }

    /// Judges a request that got no answer, naming its URL as `name` does.
    package static func outcome(
        for error: HTTPClientError, url: String, naming name: (String) -> String = URLRedaction.redactingUserInfo
    ) -> PresentationOutcome {
        HTTPOutcome.judge(error, naming: name(url))
    }
}

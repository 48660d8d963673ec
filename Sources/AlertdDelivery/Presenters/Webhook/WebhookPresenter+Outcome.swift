import FoundationEssentials
import AlertdCurl
import AlertModel

extension WebhookPresenter {
    /// Judges a receiver's answer.
    package static func outcome(for response: HTTPClientResponse, url: String, now: Date) -> PresentationOutcome {
        HTTPOutcome.judge(
            status: response.status, target: URLRedaction.redactingUserInfo(url),
            location: response.headers["Location"].map(URLRedaction.redactingUserInfo),
            retryAfter: response.headers.retryAfter(relativeTo: now))
    }

    /// Judges a request that got no answer.
    package static func outcome(for error: HTTPClientError) -> PresentationOutcome {
        HTTPOutcome.judge(error)
    }
}

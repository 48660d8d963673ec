import FoundationEssentials
import AlertdCurl

extension WebhookPresenter {
    /// Judges a receiver's answer.
    package static func outcome(for response: HTTPClientResponse, url: String, now: Date) -> PresentationOutcome {
        let status = response.status
        let reason = "HTTP \(status) from \(URLRedaction.redactingUserInfo(url))"
        switch status {
        case 200...299:
            return .delivered
        case 408, 429, 500...599:
            return .retryableFailure(reason: reason, retryAfter: response.headers.retryAfter(relativeTo: now))
        case 300...399:
            let target = response.headers["Location"].map { " to \(URLRedaction.redactingUserInfo($0))" } ?? ""
            return .permanentFailure(reason: "\(reason) (redirect\(target) not followed; configure the final URL)")
        default:
            return .permanentFailure(reason: reason)
        }
    }

    /// Judges a request that got no answer.
    package static func outcome(for error: HTTPClientError) -> PresentationOutcome {
        // TLS failures count as passing: an expired or misissued certificate
        // is usually fixed on the receiver's side, and the dispatcher's retry
        // budget bounds the cost of waiting for that.
        switch error {
        case .couldNotConnect, .timedOut, .connectionLost, .dnsFailure, .tls, .cancelled, .other:
            .retryableFailure(reason: error.summary)
        case .badURL, .invalidRequest, .refusedByPolicy, .responseTooLarge:
            .permanentFailure(reason: error.summary)
        }
    }
}

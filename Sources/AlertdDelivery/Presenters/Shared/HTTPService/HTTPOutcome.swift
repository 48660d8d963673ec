import FoundationEssentials
import AlertdCurl
import AlertModel

/// How an HTTP answer, or the lack of one, becomes a presentation outcome,
/// for every presenter that speaks HTTP: 2xx is delivered; 408, 429 and 5xx
/// are worth retrying; redirects (never followed) and other 4xx are not.
package enum HTTPOutcome {
    /// The longest redirect target a reason repeats.
    static let maxLocationLength = 300

    /// Judges a status. `target` names where it came from in the reason
    /// (`HTTP 404 from <target>`), `detail` is the service's own word on it.
    /// `target` is only worked out for a failure: a delivery's usual 2xx
    /// needs no reason, and redacting the URL for it was a cost per delivery.
    package static func judge(
        status: Int, target: @autoclosure () -> String, location: String? = nil, detail: String? = nil, retryAfter: Duration? = nil
    ) -> PresentationOutcome {
        if (200...299).contains(status) { return .delivered }
        let reason = "HTTP \(status) from \(target())" + (detail.map { ": \($0)" } ?? "")
        switch status {
        case 408, 429, 500...599:
            return .retryableFailure(reason: reason, retryAfter: retryAfter)
        case 300...399:
            // The peer's own text, shown in the API, events and terminals: one
            // line the text rules allow, and short.
            let to = location.map { " to " + TextLimit.truncate(TextPolicy.replacingRefused(in: $0, .line), to: maxLocationLength) } ?? ""
            return .permanentFailure(reason: "\(reason) (redirect\(to) not followed; configure the final URL)")
        default:
            return .permanentFailure(reason: reason)
        }
    }

    /// Judges a request that got no answer; `summary` is how the reason
    /// words it (the error's own summary, or one with the URL redacted).
    /// Judges a request that got no answer, its summary naming the URL as
    /// `shown` instead (the presenter decides how much of a URL may be seen).
    package static func judge(_ error: HTTPClientError, naming shown: String, prefix: String = "") -> PresentationOutcome {
        judge(error, summary: prefix + error.summary.replacing(error.url, with: shown))
    }

    package static func judge(_ error: HTTPClientError, summary: String? = nil) -> PresentationOutcome {
        let reason = summary ?? error.summary
        // TLS failures count as passing: an expired or misissued certificate
        // is usually fixed on the receiver's side, and the dispatcher's retry
        // budget bounds the cost of waiting for that.
        switch error {
        case .couldNotConnect, .timedOut, .connectionLost, .dnsFailure, .tls, .cancelled, .other:
            return .retryableFailure(reason: reason)
        // The same answer would come again, and the request was taken.
        case .badURL, .invalidRequest, .refusedByPolicy, .responseTooLarge, .headerTooLarge:
            return .permanentFailure(reason: reason)
        }
    }
}

import FoundationEssentials
import AlertdCurl
import AlertModel

extension WebhookPresenter {
    /// Where receivers' JSON errors usually say what is wrong
    /// (`{"error": "…"}`, `{"error": {"message": "…"}}`, `{"message": …}`,
    /// `{"detail": …}`, `{"errors": […]}`); a body that is not JSON is
    /// taken as its text.
    static let errorAnswers = HTTPServiceAnswers(errorPaths: [["error", "message"], ["error"], ["message"], ["detail"], ["errors"]])

    /// Judges a receiver's answer. `name` is how the reason names the URL:
    /// a handler's without its user info (its path is in the alert for
    /// all to see), a configured webhook's by its origin alone. With
    /// `readingErrors`, a refusal's reason carries what the receiver said
    /// (one line, short, none of `hiding` or of `url`'s credentials in it);
    /// not for handler calls, whose URLs submitters choose, so that what a
    /// host inside the allowed ones answers is not shown to them. An HTML
    /// page (a proxy's error page) says no more than its status.
    package static func outcome(
        for response: HTTPClientResponse, url: String, now: Date, naming name: (String) -> String = URLRedaction.redactingUserInfo,
        readingErrors: Bool = false, hiding secrets: PresenterSecrets = PresenterSecrets()
    ) -> PresentationOutcome {
        // A page, whatever its type says: it opens with a tag.
        let html = response.headers["Content-Type"]?.lowercased().contains("html") ?? false
            || response.body.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) == UInt8(ascii: "<")
        let detail = readingErrors && !(200...299).contains(response.status) && !html
            ? errorAnswers.errorText(response.body, url: url, hiding: secrets) : nil
        return HTTPOutcome.judge(
            status: response.status, target: name(url),
            location: response.headers["Location"].map(name), detail: detail,
            retryAfter: response.headers.retryAfter(relativeTo: now))
    }

    /// Judges a request that got no answer, naming its URL as `name` does.
    package static func outcome(
        for error: HTTPClientError, url: String, naming name: (String) -> String = URLRedaction.redactingUserInfo
    ) -> PresentationOutcome {
        HTTPOutcome.judge(error, naming: name(url))
    }
}

import FoundationEssentials
import AlertModel
import AlertdCurl
import AlertModel

/// How one service answers: where it says how long to wait before trying
/// again, and where its error text is. The judging itself is
/// ``HTTPOutcome``'s, the same for every service.
public struct HTTPServiceAnswers: Sendable {
    /// Where a service puts its wait, besides a `Retry-After` header (which
    /// is always read, and loses to the body's own value).
    public enum RetryHint: Sendable {
        /// Only the `Retry-After` header (Slack).
        case header
        /// A number of seconds at this path in a JSON body (`retry_after`:
        /// Discord; `parameters.retry_after`: Telegram).
        case bodySeconds([String])
        /// A number of milliseconds at this path in a JSON body (Matrix's `retry_after_ms`).
        case bodyMilliseconds([String])
        /// On a 429, when the quota resets, as Unix seconds in this header
        /// (Pushover's `X-Limit-App-Reset`: its monthly quota is spent).
        case quotaResetHeader(String)
    }

    /// A service that answers a failed call with 200 and says so in its
    /// JSON body (Slack's Web API: `{"ok": false, "error": "channel_not_found"}`).
    public struct OKFlag: Sendable {
        /// Where the body says whether the call worked (`ok`).
        public var path: [String]
        /// The error codes (read from `errorPaths`) worth another try;
        /// every other code is permanent.
        public var retryable: Set<String>

        public init(path: [String], retryable: Set<String>) {
            self.path = path
            self.retryable = retryable
        }
    }

    public var retryHint: RetryHint
    /// JSON paths of the service's error text, first found wins; a body
    /// that is not JSON is taken as the text itself.
    public var errorPaths: [[String]]
    /// Set for a service whose 200 may still be a failure.
    public var okFlag: OKFlag?
    /// Where a successful answer names what was posted, for a later message
    /// to thread under (Slack's `ts`, Matrix's `event_id`).
    public var threadPath: [String]?
    /// The least wait before a retry, for a service that asks for one
    /// (Pushover: 5 s after a 5xx or no answer): a floor under the retry
    /// policy's backoff, which goes on growing above it. Not a receiver's
    /// `Retry-After`, which would replace the backoff and pause the presenter.
    public var minimumRetryDelay: Duration?
    /// Whether every segment of the URL's path may be a credential (a
    /// webhook URL the operator was given), or only those that look like a
    /// key (an API's path, whose words such as `sendMessage` are the
    /// service's own; see ``URLRedaction/hidingPathAndQuery(of:in:onlyKeyLikeSegments:)``).
    public var pathIsAllCredential: Bool

    /// The most of a service's error text a reason quotes.
    static let maxDetailLength = 200

    public init(retryHint: RetryHint = .header, errorPaths: [[String]] = [], okFlag: OKFlag? = nil, threadPath: [String]? = nil,
                minimumRetryDelay: Duration? = nil, pathIsAllCredential: Bool = true) {
        self.retryHint = retryHint
        self.errorPaths = errorPaths
        self.okFlag = okFlag
        self.threadPath = threadPath
        self.minimumRetryDelay = minimumRetryDelay
        self.pathIsAllCredential = pathIsAllCredential
    }

    /// Judges an answer. `service` and the URL's origin name it in the
    /// reason; the rest of the URL is left out, as it may be a credential,
    /// and so is any of `secrets` the service's words quote.
    public func outcome(for response: HTTPClientResponse, service: String, url: String, now: Date,
                        hiding secrets: PresenterSecrets = PresenterSecrets()) -> PresentationOutcome {
        let ok = (200...299).contains(response.status)
        if ok, let okFlag, let json = try? StrictJSON.parse(response.body), Self.value(at: okFlag.path, in: json) as? Bool == false {
            let code = errorText(response.body, url: url, hiding: secrets) ?? "no error code"
            let reason = "\(Self.target(service: service, url: url)) refused the call: \(code)"
            return okFlag.retryable.contains(code) ? .retryableFailure(reason: reason, retryAfter: retryAfter(response, now: now))
                : .permanentFailure(reason: reason)
        }
        return HTTPOutcome.judge(
            status: response.status, target: Self.target(service: service, url: url),
            location: response.headers["Location"].map(URLRedaction.origin),
            detail: ok ? nil : errorText(response.body, url: url, hiding: secrets),
            retryAfter: ok ? nil : retryAfter(response, now: now))
    }

    /// Judges a request that got no answer, its URL cut to the origin.
    public func outcome(for error: HTTPClientError, service: String, url: String) -> PresentationOutcome {
        HTTPOutcome.judge(error, naming: URLRedaction.origin(url), prefix: "\(service): ")
    }

    /// `slack (https://hooks.slack.com)`.
    public static func target(service: String, url: String) -> String { "\(service) (\(URLRedaction.origin(url)))" }

    /// What a successful answer names for a later message to thread
    /// under; nil when the service has no threads or did not say.
    public func thread(in response: HTTPClientResponse) -> String? {
        guard let threadPath, (200...299).contains(response.status), let json = try? StrictJSON.parse(response.body) else { return nil }
        return (Self.value(at: threadPath, in: json) as? String).flatMap { $0.isEmpty ? nil : $0 }
    }

    func retryAfter(_ response: HTTPClientResponse, now: Date) -> Duration? {
        let header = response.headers.retryAfter(relativeTo: now)
        switch retryHint {
        case .header:
            return header
        case .bodySeconds(let path):
            return Self.number(at: path, in: response.body).flatMap(Duration.peerHint(seconds:)) ?? header
        case .bodyMilliseconds(let path):
            return Self.number(at: path, in: response.body).flatMap(Duration.peerHint(milliseconds:)) ?? header
        case .quotaResetHeader(let name) where response.status == 429:
            return response.headers[name].flatMap(Double.init).flatMap { Duration.peerHint(seconds: ($0 - now.timeIntervalSince1970).rounded(.up)) }
                ?? header
        case .quotaResetHeader:
            return header
        }
    }

    /// What the service said went wrong, one line, shortened; with `url`'s
    /// path and query, and each part of them that may be a credential, taken
    /// out (see ``URLRedaction/hidingPathAndQuery(of:in:onlyKeyLikeSegments:)``),
    /// none of `secrets`, and no character the text rules refuse, since it
    /// is shown in the API, events, logs and on terminals as alertd's own words are.
    func errorText(_ body: Data, url: String, hiding secrets: PresenterSecrets = PresenterSecrets()) -> String? {
        let text: String?
        if let json = try? StrictJSON.parse(body) {
            text = errorPaths.lazy.compactMap { Self.value(at: $0, in: json).flatMap(Self.describe) }.first
        } else {
            text = String(decoding: body, as: UTF8.self)
        }
        guard let text = text?.trimmingWhitespace(), !text.isEmpty else { return nil }
        let oneLine = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        let shown = TextPolicy.replacingRefused(
            in: secrets.including(passwordOf: url).hidden(in: URLRedaction.hidingPathAndQuery(of: url, in: oneLine, onlyKeyLikeSegments: !pathIsAllCredential)), .line)
        return TextLimit.truncate(shown, to: Self.maxDetailLength, in: .characters)
    }

    private static func value(at path: [String], in json: Any) -> Any? {
        var current: Any? = json
        for key in path { current = (current as? [String: Any])?[key] }
        return current
    }

    private static func describe(_ value: Any) -> String? {
        if let s = value as? String { return s }
        if let list = value as? [Any] { return list.compactMap(describe).joined(separator: "; ") }
        // An entry of an `errors` list as JSON:API and GraphQL write one.
        if let object = value as? [String: Any] { return (object["message"] ?? object["detail"]).flatMap(describe) }
        if let n = value as? Int { return String(n) }
        if let n = value as? Double { return "\(n)" }
        return nil
    }

    private static func number(at path: [String], in body: Data) -> Double? {
        guard let json = try? StrictJSON.parse(body),
              let n = value(at: path, in: json).flatMap(StrictJSON.number), n >= 0, n.isFinite else { return nil }
        return n
    }
}

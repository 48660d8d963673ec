/// Why ``SMTPClient/send(_:)`` did not hand a mail over. Every case names
/// the server's URL without user info, so an error can be logged as is;
/// ``summary`` is a short phrase for logs and delivery reasons.
public enum SMTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing accepted the connection.
    case couldNotConnect(url: String, reason: String)
    /// The connect or total timeout ran out.
    case timedOut(url: String, after: Duration)
    /// The host name did not resolve.
    case dnsFailure(url: String, host: String)
    /// The URL cannot be used: malformed, or not smtp/smtps.
    case badURL(url: String, reason: String)
    /// TLS could not be established (handshake, certificate).
    case tls(url: String, reason: String)
    /// The server's certificate does not check out against the trusted CAs
    /// (the system's, or `ca_file`'s), or does not name the host.
    case untrustedCertificate(url: String, reason: String)
    /// STARTTLS was required and the server does not offer it.
    case startTLSUnavailable(url: String)
    /// The server refused the user name and password.
    case authenticationFailed(url: String, reason: String)
    /// A user name or password is configured and no login took place: the
    /// server offered none libcurl could use (no `AUTH` in its `EHLO`
    /// reply, or only spellings and mechanisms libcurl does not take).
    /// Nothing was sent, where libcurl would have sent the mail without it.
    case loginNotOffered(url: String)
    /// The server could not check the login now (a 4xx, such as RFC
    /// 4954's 454): worth another try later, not with the next recipient.
    case loginRefusedForNow(url: String, code: Int, reason: String)
    /// The server answered a command with an SMTP error: `code` is its
    /// reply code, 4xx (try later) or 5xx (do not).
    case rejected(url: String, code: Int, reason: String)
    /// The server refused a recipient (`RCPT TO`) with reply `code`, 4xx
    /// (try later) or 5xx (do not); nothing was sent.
    case recipientRefused(url: String, code: Int)
    /// The connection broke mid-exchange.
    case connectionLost(url: String, reason: String)
    /// The calling task was cancelled.
    case cancelled(url: String)
    /// Anything else libcurl reported.
    case other(url: String, curl: CurlError)

    /// Whether the failure was the mail's own (a refused recipient, a
    /// reply to it): another recipient's mail may still go. Otherwise the
    /// server failed as a whole, and would fail the next mail alike.
    public var concernsOneMail: Bool {
        switch self {
        case .recipientRefused, .rejected: true
        default: false
        }
    }

    public var url: String {
        switch self {
        case .couldNotConnect(let u, _), .timedOut(let u, _), .dnsFailure(let u, _), .badURL(let u, _), .tls(let u, _),
             .untrustedCertificate(let u, _), .startTLSUnavailable(let u), .authenticationFailed(let u, _), .loginNotOffered(let u), .loginRefusedForNow(let u, _, _), .rejected(let u, _, _), .recipientRefused(let u, _),
             .connectionLost(let u, _),
             .cancelled(let u), .other(let u, _):
            u
        }
    }

    /// A stable machine-readable code.
    public var code: String {
        switch self {
        case .couldNotConnect: "could_not_connect"
        case .timedOut: "timed_out"
        case .dnsFailure: "dns_failure"
        case .badURL: "bad_url"
        case .tls: "tls_error"
        case .untrustedCertificate: "untrusted_certificate"
        case .startTLSUnavailable: "starttls_unavailable"
        case .authenticationFailed: "authentication_failed"
        case .loginNotOffered: "login_not_offered"
        case .loginRefusedForNow: "login_refused_for_now"
        case .rejected: "rejected"
        case .recipientRefused: "recipient_refused"
        case .connectionLost: "connection_lost"
        case .cancelled: "cancelled"
        case .other: "smtp_client_error"
        }
    }

    /// A short phrase: `SMTP 550 from smtp://mail.example:25: RCPT failed: 550`.
    public var summary: String {
        switch self {
        case .couldNotConnect(let url, let reason): "\(reason) by \(url)"
        case .timedOut(let url, let after): "no answer from \(url) within \(after.alertdDescription)"
        case .dnsFailure(_, let host): "cannot resolve host \(host)"
        case .badURL(let url, let reason): "bad URL \(url): \(reason)"
        case .tls(let url, let reason): "TLS error with \(url): \(reason)"
        case .untrustedCertificate(let url, let reason):
            "the certificate of \(url) is not trusted (\(reason)); if a private CA issued it, give that CA's certificate as ca_file"
        case .startTLSUnavailable(let url): "\(url) does not offer STARTTLS, which tls \"required\" asks for"
        case .authenticationFailed(let url, let reason): "\(url) refused the login: \(reason)"
        case .loginNotOffered(let url):
            "\(url) offered no login alertd could use (no AUTH in its EHLO reply), so the username and password would go unused; "
                + "the mail was not sent. Many servers offer AUTH only over TLS: leave tls at \"required\" (the default with a password); "
                + "else enable AUTH on the server, or remove username and password"
        case .loginRefusedForNow(let url, let code, let reason): "\(url) could not take the login now (SMTP \(code)): \(reason)"
        case .rejected(let url, let code, let reason): "SMTP \(code) from \(url): \(reason)"
        case .recipientRefused(let url, let code): "\(url) refused the recipient (SMTP \(code))"
        case .connectionLost(let url, let reason): "connection to \(url) lost: \(reason)"
        case .cancelled(let url): "mail to \(url) cancelled"
        case .other(let url, let curl): "mail to \(url) failed: \(curl.detail.isEmpty ? curl.message : curl.detail)"
        }
    }

    public var description: String { "\(summary) [\(code)]" }
}

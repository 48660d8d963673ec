#if canImport(Glibc)
import Glibc
#endif
import AlertdPOSIX
import AlertModel

/// Why ``HTTPClient/send(_:)`` got no response. Every case names the URL,
/// without its user info (``URLRedaction``), so an error can be logged as is;
/// ``code`` is stable for scripts, ``message`` says what to check, and
/// ``summary`` is a short phrase for logs and delivery reasons.
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing accepted the connection; `address` is `ip:port` or the socket
    /// path, `reason` e.g. `connection refused`.
    case couldNotConnect(url: String, address: String, reason: String)
    /// The connect or total timeout ran out.
    case timedOut(url: String, phase: TimeoutPhase, after: Duration)
    /// The connection broke mid-exchange (reset, closed without a response).
    case connectionLost(url: String, reason: String)
    /// The host name did not resolve.
    case dnsFailure(url: String, host: String)
    /// The URL cannot be used: malformed, or not http/https.
    case badURL(url: String, reason: String)
    /// The body passed `maxResponseBytes` (with `.fail`).
    case responseTooLarge(url: String, limit: Int)
    /// The answer's head had a line (the status line, or a header after
    /// it, `status` known then) longer than libcurl reads (100 KB).
    case headerTooLarge(url: String, status: Int?)
    /// TLS could not be established (handshake, certificate).
    case tls(url: String, reason: String)
    /// The request's connect policy refused the address connected to.
    case refusedByPolicy(url: String, reason: String)
    /// The request itself is unusable, e.g. a header with a line break.
    case invalidRequest(url: String, reason: String)
    /// The calling task was cancelled, or the client shut down.
    case cancelled(url: String)
    /// Anything else libcurl reported.
    case other(url: String, curl: CurlError)

    public enum TimeoutPhase: String, Sendable, Equatable {
        case connect
        case response
        /// The status line came and the rest of the response did not, in
        /// time: the server is there, and sending slowly.
        case body
    }

    public var url: String {
        switch self {
        case .couldNotConnect(let u, _, _), .timedOut(let u, _, _), .connectionLost(let u, _), .dnsFailure(let u, _),
             .badURL(let u, _), .responseTooLarge(let u, _), .headerTooLarge(let u, _), .tls(let u, _), .refusedByPolicy(let u, _),
             .invalidRequest(let u, _), .cancelled(let u), .other(let u, _):
            u
        }
    }

    /// Why a connection failed, from the `errno` of `connect(2)`, in the
    /// words of ``couldNotConnect(url:address:reason:)``.
    /// `connection refused by 127.0.0.1:9`, `could not connect to
    /// 127.0.0.1:9`, or the reason after where: "could not connect by" read
    /// as nothing at all when libcurl had no error number to give.
    static func phrase(_ reason: String, _ address: String) -> String {
        switch reason {
        case "connection refused": "connection refused by \(address)"
        case "could not connect": "could not connect to \(address)"
        default: "could not connect to \(address): \(reason)"
        }
    }

    package static func connectFailureReason(errno: Int32) -> String {
        switch errno {
        case ECONNREFUSED: "connection refused"
        case ENETUNREACH: "network unreachable"
        case EHOSTUNREACH: "host unreachable"
        case ENOENT: "no such socket"
        case EACCES: "permission denied"
        case EMFILE, ENFILE: "no file descriptor left for a socket (the open-file limit; raise LimitNOFILE=)"
        case 0: "could not connect"
        case let e: Errno(e).description.lowercased()
        }
    }

    /// A stable machine-readable code.
    public var code: String {
        switch self {
        case .couldNotConnect: "could_not_connect"
        case .timedOut: "timed_out"
        case .connectionLost: "connection_lost"
        case .dnsFailure: "dns_failure"
        case .badURL: "bad_url"
        case .responseTooLarge: "response_too_large"
        case .headerTooLarge: "response_header_too_large"
        case .tls: "tls_error"
        case .refusedByPolicy: "refused_by_policy"
        case .invalidRequest: "invalid_request"
        case .cancelled: "cancelled"
        case .other: "http_client_error"
        }
    }

    /// A short phrase: `connection refused by 127.0.0.1:9`.
    public var summary: String {
        switch self {
        case .couldNotConnect(_, let address, let reason): Self.phrase(reason, address)
        case .timedOut(let url, .connect, let after): "no connection to \(url) within \(after.alertdDescription)"
        case .timedOut(let url, .response, let after): "no response from \(url) within \(after.alertdDescription)"
        case .timedOut(let url, .body, let after): "the response from \(url) did not end within \(after.alertdDescription)"
        case .connectionLost(let url, let reason): "connection to \(url) lost: \(reason)"
        case .dnsFailure(_, let host): "cannot resolve host \(host)"
        case .badURL(let url, let reason): "bad URL \(url): \(reason)"
        case .responseTooLarge(let url, let limit): "response from \(url) larger than \(limit) bytes"
        case .headerTooLarge(let url, let status?): "response from \(url) (status \(status)) with a header line too long to read"
        case .headerTooLarge(let url, nil): "response from \(url) with a status line too long to read"
        case .tls(let url, let reason): "TLS error with \(url): \(reason)"
        case .refusedByPolicy(let url, let reason): "connection to \(url) refused by policy: \(reason)"
        case .invalidRequest(let url, let reason): "invalid request to \(url): \(reason)"
        case .cancelled(let url): "request to \(url) cancelled"
        case .other(let url, let curl): "request to \(url) failed: \(curl.detail.isEmpty ? curl.message : curl.detail)"
        }
    }

    /// A sentence a person can act on.
    public var message: String {
        switch self {
        case .couldNotConnect(let url, let address, let reason):
            "Could not connect to \(url): \(Self.phrase(reason, address)). Is the server running and listening there?"
        case .timedOut(let url, .connect, let after):
            "Could not connect to \(url) within \(after.alertdDescription). Check that the host is reachable and no firewall drops the traffic."
        case .timedOut(let url, .response, let after):
            "\(url) did not answer within \(after.alertdDescription). The server may be overloaded; retry later or raise the timeout."
        case .timedOut(let url, .body, let after):
            "\(url) answered but did not finish its response within \(after.alertdDescription). The server may be overloaded or sending slowly; retry later or raise the timeout."
        case .connectionLost(let url, let reason):
            "The connection to \(url) broke before a full response arrived (\(reason)). Retry; if it persists, check the server's logs."
        case .dnsFailure(let url, let host):
            "Cannot resolve \(host) (from \(url)). Check the host name and the system's DNS settings."
        case .badURL(let url, let reason):
            "Cannot use the URL \(url): \(reason). Give an absolute http:// or https:// URL."
        case .responseTooLarge(let url, let limit):
            "The response from \(url) is larger than the \(limit)-byte limit. Raise the limit or request less data."
        case .headerTooLarge(let url, let status):
            "The response from \(url)\(status.map { " (status \($0))" } ?? "") has a line longer than the 100 KB libcurl reads: a fault of the server's; check what it sends."
        case .tls(let url, let reason) where Self.plainHTTPReplies.contains(where: reason.contains):
            "TLS with \(url) failed: \(reason). The server seems to speak plain HTTP there: use an http:// URL."
        case .tls(let url, let reason) where Self.handshakeCut.contains(where: reason.contains):
            "TLS with \(url) failed: \(reason). The connection ended in the handshake: if the server speaks plain HTTP there, use an http:// URL; if not, check the server's certificate and the system's CA bundle."
        case .tls(let url, let reason):
            "TLS with \(url) failed: \(reason). Check the server's certificate and the system's CA bundle."
        case .refusedByPolicy(let url, let reason):
            "The connection to \(url) was refused by policy: \(reason)."
        case .invalidRequest(let url, let reason):
            "The request to \(url) is invalid: \(reason)."
        case .cancelled(let url):
            "The request to \(url) was cancelled before it completed."
        case .other(let url, let curl):
            "The request to \(url) failed: \(curl)."
        }
    }

    public var description: String { "\(message) [\(code)]" }

    /// What OpenSSL says when the answer to its hello is not TLS at all, as a
    /// plain HTTP server's `HTTP/1.1 400` is.
    static let plainHTTPReplies = ["wrong version number", "packet length too long"]
    /// What OpenSSL says when the connection ends before the handshake does,
    /// as it does when a plain HTTP server closes on the hello unanswered.
    static let handshakeCut = ["SSL_ERROR_SYSCALL", "unexpected eof", "Connection reset by peer"]
}

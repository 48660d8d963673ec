import AlertdCurl
import AlertdHTTP

/// Why an ``AlertdClient`` call got no usable answer. ``code`` is stable for
/// scripts; ``message`` is a sentence a person can act on.
public enum AlertdClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing answered at the endpoint: no socket file, connection refused,
    /// no connection within the timeout, a host that does not resolve.
    case unreachable(endpoint: AlertdEndpoint, reason: String)
    /// The daemon answered with an error in the API's shape, e.g. 401
    /// `unauthorized`, 404 `alert_not_found`, 422 `invalid_alert`.
    case api(status: Int, error: HTTPErrorBody.Content)
    /// A decision came second (409 `already_decided`): the alert as the
    /// first decision left it, with who took it and when.
    case alreadyDecided(APIRepresentation.DecisionConflict)
    /// Something answered, but not with what the API promises.
    case badResponse(endpoint: AlertdEndpoint, status: Int, reason: String)
    /// Something took the connection and said nothing within `after`: an
    /// alertd overloaded or stuck, or something else on its socket or port.
    case unanswered(endpoint: AlertdEndpoint, after: Duration)
    /// The exchange failed after connecting (connection lost).
    case transport(HTTPClientError)

    /// Maps a client failure: anything that means "nobody is listening there"
    /// becomes ``unreachable(endpoint:reason:)``.
    package init(_ error: HTTPClientError, endpoint: AlertdEndpoint) {
        switch error {
        case .couldNotConnect(_, _, let reason):
            // A regular file or a directory refuses a connection too, and
            // "is alertd running?" sent people to start one that was.
            self = .unreachable(endpoint: endpoint, reason: endpoint.isSomethingElse ? "not a socket" : reason)
        case .timedOut(_, .connect, let after):
            self = .unreachable(endpoint: endpoint, reason: "no connection within \(after.alertdDescription)")
        case .dnsFailure(_, let host):
            self = .unreachable(endpoint: endpoint, reason: "cannot resolve host \(host)")
        case .timedOut(_, .response, let after), .timedOut(_, .body, let after):
            // An answer begun and not ended leaves as much unknown as none.
            self = .unanswered(endpoint: endpoint, after: after)
        default:
            self = .transport(error)
        }
    }

    /// A stable machine-readable code; for ``api(status:error:)`` the daemon's own.
    public var code: String {
        switch self {
        case .unreachable: "alertd_unreachable"
        case .unanswered: "timed_out"
        case .api(_, let error): error.code
        case .alreadyDecided(let conflict): conflict.error.code
        case .badResponse: "bad_response"
        case .transport(let error): error.code
        }
    }

    /// A sentence a person can act on.
    public var message: String {
        switch self {
        case .unreachable(let endpoint, let reason):
            let hint = !endpoint.isUnixSocket ? "is alertd running and listening there? check --url/ALERTD_URL"
                : reason == "permission denied" ? "the socket is for its group: add your user to it (the service's is alertd), or use sudo"
                : reason == "not a socket" ? "point --socket/ALERTD_SOCKET at alertd's socket, alertd.sock in its runtime or state directory"
                : "is alertd running? start it (make run, or systemctl start alertd) or set --socket/ALERTD_SOCKET"
            let passedOver = endpoint.passedOver.map { "; nothing listens on \($0) either" } ?? ""
            return "cannot reach alertd at \(endpoint): \(reason)\(passedOver) (\(hint))"
        case .unanswered(let endpoint, let after):
            // The URL of a request over the socket is http://localhost/..., which names nothing.
            return "alertd at \(endpoint) took the connection but did not answer within \(after.alertdDescription): "
                + "it may be overloaded or stuck (see its log, e.g. journalctl -u alertd), or something else listens there. "
                + "A request that changes something (a send, a decision) may still have been taken: check with 'alertctl list' before trying again."
        case .api(let status, let error):
            return "alertd answered \(status): \(error.message)"
        case .alreadyDecided(let conflict):
            let alert = conflict.alert
            guard let decision = alert.decision else { return "alert \(alert.id) is already \(alert.state.rawValue)" }
            return "alert \(alert.id) was already \(decision.commandLineText); the first decision stands"
        case .badResponse(let endpoint, let status, let reason):
            // Not alertd's JSON at all: most often another server listens there.
            let check = endpoint.isUnixSocket ? "--socket/ALERTD_SOCKET" : "--url/ALERTD_URL"
            return "alertd at \(endpoint) sent an answer alertctl cannot read (status \(status)): \(reason) (is alertd what listens there? check \(check))"
        case .transport(let error):
            return error.message
        }
    }

    /// A short phrase for a line after which alertctl goes on by itself
    /// (watch reconnecting): what happened, with no advice to retry.
    public var summary: String {
        switch self {
        case .transport(.connectionLost(_, let reason)): "the connection broke: \(reason)"
        case .transport(let error): error.summary
        case .unreachable(_, let reason): "cannot reach alertd: \(reason)"
        case .unanswered(_, let after): "alertd did not answer within \(after.alertdDescription)"
        default: message
        }
    }

    public var description: String { "\(message) [\(code)]" }
}

import AlertdHTTP
/// Why the handler policy will not call a URL, decided from the URL and the
/// allow list alone, so it can be told at submission as well as at call
/// time. URLs in it are already without user info.
public enum HandlerURLRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL cannot be taken apart unambiguously.
    case uncheckable(url: String, reason: String)
    /// `actions.allow` is not empty and no entry matches.
    case notListed(url: String)
    /// The host is a literal address the connect check would refuse.
    case internalAddress(url: String, address: IPAddress)

    /// A sentence saying what to change.
    public var message: String {
        switch self {
        case .uncheckable(let url, let reason):
            "the handler URL \(url) cannot be checked: \(reason); give a plain http(s) URL"
        case .notListed(let url):
            "the handler URL \(url) is not on the actions.allow list; the operator must add its prefix, host or address"
        case .internalAddress(let url, let address):
            "the handler URL \(url) names \(address), \(address.scope.rawValue); the operator must list it in actions.allow for alertd to call it"
        }
    }

    public var description: String { message }
}

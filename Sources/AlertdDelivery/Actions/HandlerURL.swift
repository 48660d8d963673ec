import FoundationEssentials
import AlertdCurl
import AlertModel
import AlertdHTTP

/// A handler URL taken apart once, the way the policy checks it and the way
/// it is sent: ``string`` is rebuilt from exactly the parts that were
/// checked, with dot segments resolved (also percent-encoded ones such as
/// `%2e%2e`) and a numeric host in its dotted form, so neither libcurl nor
/// the server can read it as a different URL from the one the allow list
/// matched.
public struct HandlerURL: Sendable, Equatable, CustomStringConvertible {
    /// Why a URL cannot be checked, and so is not called.
    public struct Unusable: Error, Sendable, Equatable {
        /// What is wrong, as a clause: `it has no host`.
        public let reason: String
    }

    /// `http` or `https`.
    public let scheme: String
    /// `user[:password]`, percent-encoded as given; nil when there is none.
    package let userInfo: String?
    /// Lower-cased name, or the address without brackets.
    public let host: String
    /// The address the host names literally, if it does (`127.1` included).
    public let address: IPAddress?
    /// The port connected to: the URL's, or the scheme's default.
    public let port: Int
    private let explicitPort: Bool
    /// Percent-encoded, starting with `/`, without dot segments.
    public let path: String
    /// Some segment could mean a different path to some server: an encoded
    /// `/` or `\`, a literal `\`, an encoded NUL, or a dot segment with
    /// parameters (`..;`). A URL prefix longer than `/` never matches such a path.
    public let hasAmbiguousPath: Bool
    /// Percent-encoded, without `?`; nil when there is none.
    public let query: String?

    /// Parses an absolute http(s) URL; the fragment, never sent, is dropped.
    public init(_ text: String) throws(Unusable) {
        guard let c = URLComponents(string: text), let scheme = c.scheme?.lowercased() else {
            throw Unusable(reason: "it is not a valid URL")
        }
        guard scheme == "http" || scheme == "https" else { throw Unusable(reason: "only http and https URLs are called") }
        guard let rawHost = c.percentEncodedHost, !rawHost.isEmpty else { throw Unusable(reason: "it has no host") }
        let bracketed = rawHost.hasPrefix("[")
        // A name is letters, digits, `-`, `.` and `_`; anything else (`%`
        // escapes, zone ids) is read differently by different parsers.
        guard bracketed || rawHost.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_" }) else {
            throw Unusable(reason: "its host `\(rawHost)` is not a plain host name or address")
        }
        let address = IPAddress(urlHost: rawHost)
        if bracketed && address == nil { throw Unusable(reason: "its host `\(rawHost)` is not an IPv6 address") }
        if let port = c.port, !(1...65_535).contains(port) { throw Unusable(reason: "its port \(port) is out of range") }

        self.scheme = scheme
        let user = c.percentEncodedUser
        let password = c.percentEncodedPassword
        userInfo = user.map { u in password.map { "\(u):\($0)" } ?? u } ?? password.map { ":\($0)" }
        self.address = address
        host = address.map { $0.ipv4 != nil ? $0.description : $0.description.lowercased() } ?? rawHost.lowercased()
        port = c.port ?? (scheme == "https" ? 443 : 80)
        explicitPort = c.port != nil
        let resolved = Self.removingDotSegments(c.percentEncodedPath)
        path = resolved.path
        hasAmbiguousPath = resolved.ambiguous
        query = c.percentEncodedQuery
    }

    /// The URL to send, rebuilt from the checked parts; it carries the user info.
    public var string: String {
        var out = "\(scheme)://"
        if let userInfo { out += userInfo + "@" }
        out += address != nil && address?.ipv4 == nil ? "[\(host)]" : host
        if explicitPort { out += ":\(port)" }
        out += path
        if let query { out += "?" + query }
        return out
    }

    /// ``string`` without the user info or query values, for messages and logs.
    public var description: String { URLRedaction.shownHandlerURL(string) }

    /// True when `other` is on this URL as an allow-list prefix: same scheme,
    /// host and port, and a path that starts with this one at a segment
    /// boundary (or this one ends in `/`). Compared by parts, so
    /// `https://ops.example` cannot be stretched to
    /// `https://ops.example.evil.com/` or `https://ops.example@evil.com/`.
    /// `whateverHost` leaves the host out, for a connection to the prefix's
    /// literal address that a host name led to.
    package func isPrefix(of other: HandlerURL, whateverHost: Bool = false) -> Bool {
        guard scheme == other.scheme, whateverHost || host == other.host, port == other.port else { return false }
        if path == "/" || other.path == path { return true }
        guard !other.hasAmbiguousPath, other.path.hasPrefix(path) else { return false }
        return path.hasSuffix("/") || other.path.dropFirst(path.count).hasPrefix("/")
    }
}

import FoundationEssentials
import AlertdCurl

/// Which handler URLs alertd will call. Alert submitters are trusted less
/// than the operator: a handler URL must not turn alertd into a way to reach
/// cloud metadata services or internal hosts.
///
/// The operator's `actions.allow` list holds URL prefixes
/// (`https://ops.example/hooks/`), host names (`ops.example`,
/// `*.example.com`) and addresses or ranges (`10.0.0.0/8`, `127.0.0.1`).
/// Two checks apply:
/// - before sending, a non-empty list must match the URL;
/// - when connecting, the address actually reached is checked, whatever
///   name led there: link-local, loopback, private, unspecified and multicast
///   addresses are refused unless the list names them explicitly (as an
///   address, a range, or a URL whose host is that address literally).
public struct HandlerURLPolicy: Sendable, Equatable {
    /// A URL prefix, compared by parts so `https://ops.example` cannot be
    /// stretched to `https://ops.example.evil.com/` or `https://ops.example@evil.com/`.
    package struct URLPrefix: Sendable, Equatable {
        package let scheme: String
        package let host: String
        package let port: Int?
        package let path: String

        package init?(_ url: String) {
            guard let c = URLComponents(string: url), let scheme = c.scheme?.lowercased(), ["http", "https"].contains(scheme),
                  let host = c.host?.lowercased(), !host.isEmpty, c.user == nil, c.password == nil else { return nil }
            self.scheme = scheme
            self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
            self.port = c.port ?? (scheme == "https" ? 443 : 80)
            self.path = c.percentEncodedPath
        }

        /// Same scheme, host and port, and the path starts with this one's
        /// at a segment boundary (or this one ends in `/`).
        package func matches(_ other: URLPrefix) -> Bool {
            guard scheme == other.scheme, host == other.host, port == other.port else { return false }
            if path.isEmpty || path == "/" || other.path == path { return true }
            guard other.path.hasPrefix(path) else { return false }
            return path.hasSuffix("/") || other.path.dropFirst(path.count).hasPrefix("/")
        }
    }

    package enum Entry: Sendable, Equatable {
        case urlPrefix(URLPrefix, literalHost: IPAddress?)
        case host(String)
        case hostSuffix(String)
        case range(IPRange)
    }

    package let entries: [Entry]

    /// Parses the allow list; returns the problems with entries it cannot read.
    public static func parse(_ list: [String]) -> (HandlerURLPolicy, [String]) {
        var entries: [Entry] = []
        var problems: [String] = []
        for (i, raw) in list.enumerated() {
            let item = raw.trimmingCharacters(in: .whitespaces)
            if item.contains("://") {
                guard let prefix = URLPrefix(item) else {
                    problems.append("[\(i)]: `\(item)` is not an http(s) URL prefix (no user info allowed)")
                    continue
                }
                entries.append(.urlPrefix(prefix, literalHost: IPAddress(prefix.host)))
            } else if let range = IPRange(item) {
                entries.append(.range(range))
            } else if item.hasPrefix("*."), item.count > 2 {
                entries.append(.hostSuffix(String(item.dropFirst(1)).lowercased()))
            } else if !item.isEmpty, item.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }) {
                entries.append(.host(item.lowercased()))
            } else {
                problems.append("[\(i)]: `\(item)` is neither a URL prefix, a host name, nor an address range")
            }
        }
        return (HandlerURLPolicy(entries: entries), problems)
    }

    /// The empty list: public addresses only.
    public static let publicOnly = HandlerURLPolicy(entries: [])

    /// Why `url` may not be called, or nil when the list allows it.
    public func refusal(for url: String) -> String? {
        guard !entries.isEmpty else { return nil }
        guard let target = URLPrefix(url) else {
            return "the handler URL \(url) cannot be checked (not http(s), or it carries user info)"
        }
        let bare = target.host
        for entry in entries {
            switch entry {
            case .urlPrefix(let prefix, _): if prefix.matches(target) { return nil }
            case .host(let h): if bare == h { return nil }
            case .hostSuffix(let suffix): if bare.hasSuffix(suffix) { return nil }
            case .range(let range): if let ip = IPAddress(bare), range.contains(ip) { return nil }
            }
        }
        return "the handler URL \(url) is not on the actions.allow list"
    }

    /// Why connecting to `address` is refused, or nil when it is allowed.
    public func refusal(connectingTo address: IPAddress) -> String? {
        let scope = address.scope
        guard scope != .global else { return nil }
        for entry in entries {
            switch entry {
            case .range(let range): if range.contains(address) { return nil }
            case .urlPrefix(_, let literal?): if literal == address { return nil }
            default: continue
            }
        }
        return "\(address) is \(scope.rawValue); list it in actions.allow to call handlers there"
    }

    /// The connect-time check, for the HTTP client.
    public var connectPolicy: HTTPConnectPolicy {
        HTTPConnectPolicy { target in
            guard let address = IPAddress(target.remoteAddress) else {
                return .refuse(reason: "the handler's address \(target.remoteAddress) cannot be checked")
            }
            return refusal(connectingTo: address).map { .refuse(reason: $0) } ?? .allow
        }
    }
}

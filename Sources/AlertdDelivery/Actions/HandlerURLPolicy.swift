import FoundationEssentials
import AlertModel
import AlertdCurl
import AlertModel
import AlertdHTTP

/// Which handler URLs alertd will call. Alert submitters are trusted less
/// than the operator: a handler URL must not turn alertd into a way to reach
/// cloud metadata services or internal hosts.
///
/// The operator's `actions.allow` list holds URL prefixes
/// (`https://ops.example/hooks/`), host names (`ops.example`,
/// `*.example.com`) and addresses or ranges (`10.0.0.0/8`, `127.0.0.1`).
/// Two checks apply:
/// - from the URL alone (``check(_:)``, at submission and before each
///   call): a non-empty list must match it, after dot segments are
///   resolved, and a host that is a literal address must pass the address
///   check below;
/// - when connecting and before each request on a connection
///   (``connectPolicy``), the address actually reached is checked, whatever
///   name led there: link-local, loopback, private, unspecified and
///   multicast addresses are refused unless the list names them explicitly:
///   as an address or a range, or as a URL prefix whose host is that address
///   literally, which opens it only for URLs within the prefix (its scheme,
///   port and path, whatever name led there).
public struct HandlerURLPolicy: Sendable, Equatable {
    package enum Entry: Sendable, Equatable {
        case urlPrefix(HandlerURL)
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
            let item = raw.trimmingSpaces()
            if item.contains("://") {
                do {
                    let prefix = try HandlerURL(item)
                    guard prefix.userInfo == nil, prefix.query == nil, !prefix.hasAmbiguousPath else {
                        problems.append("[\(i)]: `\(URLRedaction.redactingUserInfo(item))` must be a plain http(s) URL prefix, without user info, a query, encoded separators, or a path segment some server may read as a separator or a dot segment (see API.md)")
                        continue
                    }
                    entries.append(.urlPrefix(prefix))
                } catch {
                    problems.append("[\(i)]: `\(item)` is not an http(s) URL prefix: \(error.reason)")
                }
            } else if let range = IPRange(item) {
                entries.append(.range(range))
            } else if item.hasPrefix("["), item.hasSuffix("]"), let range = IPRange(String(item.dropFirst().dropLast())) {
                // An IPv6 address as a URL writes it.
                entries.append(.range(range))
            } else if let address = IPAddress(urlHost: item) {
                // `127.1` or `2130706433`: as a host name it would never match,
                // since a URL's host in such a spelling is read as the address.
                problems.append("[\(i)]: `\(item)` is the address \(address) written another way; write it as \(address)")
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

    /// The URL to call for `url` — what was checked, and exactly what is to
    /// be sent — or why the policy refuses it without connecting anywhere.
    public func check(_ url: String) -> Result<HandlerURL, HandlerURLRefusal> {
        let target: HandlerURL
        do { target = try HandlerURL(url) } catch {
            return .failure(.uncheckable(url: URLRedaction.redactingUserInfo(url), reason: error.reason))
        }
        // The address first: for a literal internal address it is the more telling reason.
        if let address = target.address, refusal(connectingTo: address, calling: target) != nil {
            // An address a prefix opens, in a URL outside it: what is missing is a listing of the URL.
            let opened = entries.contains { if case .urlPrefix(let prefix) = $0 { prefix.address == address } else { false } }
            return .failure(opened ? .notListed(url: target.description) : .internalAddress(url: target.description, address: address))
        }
        if !entries.isEmpty && !entries.contains(where: { $0.matches(target) }) {
            return .failure(.notListed(url: target.description))
        }
        return .success(target)
    }

    /// Why connecting to `address` to call `url` is refused, or nil when it
    /// is allowed. A URL prefix entry opens its address for URLs within the
    /// prefix only: `http://127.0.0.1:8080/hooks/` together with a host
    /// entry such as `localhost` had opened every port and path of the
    /// loopback address to a URL whose name led there.
    public func refusal(connectingTo address: IPAddress, calling url: HandlerURL) -> String? {
        let scope = address.scope
        guard scope != .global else { return nil }
        var narrower: HandlerURL?
        for entry in entries {
            switch entry {
            case .range(let range): if range.contains(address) { return nil }
            case .urlPrefix(let prefix) where prefix.address == address:
                if prefix.isPrefix(of: url, whateverHost: true) { return nil }
                narrower = narrower ?? prefix
            default: continue
            }
        }
        if let narrower {
            return "\(address) is \(scope.rawValue); actions.allow opens it only for URLs within \(narrower.description)"
        }
        return "\(address) is \(scope.rawValue); list it in actions.allow to call handlers there"
    }

    /// The connect-time check of a call to `url`, for the HTTP client.
    public func connectPolicy(calling url: HandlerURL) -> HTTPConnectPolicy {
        HTTPConnectPolicy { target in
            guard let address = IPAddress(target.remoteAddress) else {
                return .refuse(reason: "the handler's address \(target.remoteAddress) cannot be checked")
            }
            return refusal(connectingTo: address, calling: url).map { .refuse(reason: $0) } ?? .allow
        }
    }
}

extension HandlerURLPolicy.Entry {
    /// Whether this allow-list entry lets `url` be called (the address check aside).
    package func matches(_ url: HandlerURL) -> Bool {
        switch self {
        case .urlPrefix(let prefix): prefix.isPrefix(of: url)
        case .host(let name): url.host == name
        case .hostSuffix(let suffix): url.host.hasSuffix(suffix)
        case .range(let range): url.address.map(range.contains) ?? false
        }
    }
}

import FoundationEssentials
import AlertModel
import AlertdCurl
import AlertdHTTP

/// Where a running alertd answers: its Unix socket, or a base URL over TCP
/// with the bearer token the daemon may require there.
public struct AlertdEndpoint: Sendable, Equatable, CustomStringConvertible {
    public enum Transport: Sendable, Equatable {
        /// HTTP over the daemon's Unix socket; its file permissions are the guard.
        case unixSocket(path: String)
        /// HTTP over TCP, e.g. `http://127.0.0.1:9190`, without a trailing slash.
        case tcp(baseURL: String)
    }

    public var transport: Transport
    /// Sent as `Authorization: Bearer <token>`; only over TCP.
    public var token: String?
    /// The default socket passed over for this one because nothing
    /// listened on it (a `make run` that died), for the message when this
    /// one cannot be reached either.
    public var passedOver: String?
    /// For a socket found by default in the working directory: the users
    /// its server may run as (this one and root). A request goes only to
    /// one of them, checked on the connected socket (`SO_PEERCRED`,
    /// ``HTTPClientRequest/unixSocketPeerCheck``).
    public var trustedPeers: Set<UInt32>?

    public init(transport: Transport, token: String? = nil) {
        self.transport = transport
        self.token = token
    }

    /// The daemon behind this Unix socket.
    public static func unixSocket(_ path: String) -> AlertdEndpoint {
        AlertdEndpoint(transport: .unixSocket(path: path))
    }

    /// The daemon at this `http(s)://host:port` base URL; a trailing slash is dropped.
    public static func url(_ baseURL: String, token: String? = nil) -> AlertdEndpoint {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        return AlertdEndpoint(transport: .tcp(baseURL: base), token: token)
    }

    /// The socket path or the base URL, for messages; never the token,
    /// nor a password in the URL (`http://***@proxy:8080`): what alertctl
    /// says ends up in the logs of the scripts and jobs that run it.
    public var description: String {
        switch transport {
        case .unixSocket(let path): path
        case .tcp(let baseURL): URLRedaction.redactingUserInfo(baseURL)
        }
    }

    public var isUnixSocket: Bool {
        if case .unixSocket = transport { return true }
        return false
    }

    /// A Unix socket path that names a file of another type: a regular
    /// file or a directory, not a socket.
    package var isSomethingElse: Bool {
        // Through links: a link to a socket alertd no longer listens on is
        // "connection refused", and a dangling one "no such socket".
        guard case .unixSocket(let path) = transport,
              let type = try? FileManager.default.attributesOfItem(atPath: URL(fileURLWithPath: path).resolvingSymlinksInPath().path)[.type]
                as? FileAttributeType else { return false }
        // Still a link: it leads nowhere.
        return type != .typeSocket && type != .typeSymbolicLink
    }

    /// How a server running as `user` is not one of `peers`, or nil when it is one.
    package static func stranger(_ user: UInt32?, peers: Set<UInt32>) -> String? {
        guard let user else { return "does not say which user it runs as, so it was sent nothing" }
        return peers.contains(user) ? nil : "runs as user \(user), not as you or root, so it was sent nothing"
    }

    /// A request for `path` (`/v1/alerts?limit=5`) at this endpoint.
    package func request(
        _ method: String, _ path: String, body: Data? = nil, connectTimeout: Duration, timeout: Duration
    ) -> HTTPClientRequest {
        var headers = HTTPHeaders()
        headers.set("Accept", "application/json")
        headers.set("User-Agent", "alertctl/\(AlertdVersion.current)")
        // Also on a POST without a body: over TCP without a token, alertd takes
        // the JSON type as the sign that no web page's form sent the request.
        if body != nil || method != "GET" { headers.set("Content-Type", "application/json") }
        switch transport {
        case .unixSocket(let socketPath):
            // The host only fills the Host header; the socket decides where the request goes.
            var request = HTTPClientRequest(
                url: "http://localhost" + path, method: method, headers: headers, body: body,
                connectTimeout: connectTimeout, timeout: timeout, unixSocketPath: socketPath,
                maxResponseBytes: AlertdClient.maxResponseBytes)
            if let peers = trustedPeers { request.unixSocketPeerCheck = { Self.stranger($0, peers: peers) } }
            return request
        case .tcp(let baseURL):
            if let token { headers.set("Authorization", "Bearer \(token)") }
            return HTTPClientRequest(
                url: baseURL + path, method: method, headers: headers, body: body,
                connectTimeout: connectTimeout, timeout: timeout, maxResponseBytes: AlertdClient.maxResponseBytes)
        }
    }
}

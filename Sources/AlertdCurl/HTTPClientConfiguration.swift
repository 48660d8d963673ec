/// Settings shared by every request of one ``HTTPClient``. Every field has a default.
public struct HTTPClientConfiguration: Sendable {
    /// Most connections open to one host at a time; further requests wait for
    /// one to free up. 0 means no limit (`CURLMOPT_MAX_HOST_CONNECTIONS`).
    public var maxConnectionsPerHost: Int = 0
    /// Most connections open at a time in total; 0 means no limit (`CURLMOPT_MAX_TOTAL_CONNECTIONS`).
    public var maxConnections: Int = 0
    /// Idle keep-alive connections kept for reuse (`CURLMOPT_MAXCONNECTS`).
    public var idleConnectionCache: Int = 64
    /// Threads that run transfers, each with a multi handle and connections
    /// of its own; the limits above are shared out between them. A thread
    /// runs libcurl, the sockets and the callbacks of all its transfers in
    /// turn, so with many transfers at once one thread is the bottleneck;
    /// more than one spreads them over more than one core.
    public var threads: Int = 1

    public init() {}

    /// What each of the `threads` drivers gets: the limits divided between
    /// them, rounded up, so that together they allow what one would.
    var perThread: HTTPClientConfiguration {
        var share = self
        share.threads = max(1, threads)
        func part(_ limit: Int) -> Int { limit <= 0 ? limit : (limit + share.threads - 1) / share.threads }
        share.maxConnectionsPerHost = part(maxConnectionsPerHost)
        share.maxConnections = part(maxConnections)
        share.idleConnectionCache = max(1, part(idleConnectionCache))
        return share
    }
}

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
    /// of its own. The two limits on open connections are shared out between
    /// them; each keeps `idleConnectionCache` idle connections. A thread
    /// runs libcurl, the sockets and the callbacks of all its transfers in
    /// turn, so with many transfers at once one thread is the bottleneck;
    /// more than one spreads them over more than one core.
    public var threads: Int = 1

    public init() {}

    /// What each of the `threads` drivers gets: the limits on open
    /// connections divided between them, rounded up, so that together they
    /// allow what one would. Not the idle cache: requests are dealt out in
    /// turn, not by how busy a thread is, so one thread can have more than
    /// its share in flight, and with a share of the cache it closed what it
    /// could not keep and opened new connections for the next requests (530
    /// connections for 1,000 deliveries at 64 at a time, against 64).
    var perThread: HTTPClientConfiguration {
        var share = self
        share.threads = max(1, threads)
        func part(_ limit: Int) -> Int { limit <= 0 ? limit : (limit + share.threads - 1) / share.threads }
        share.maxConnectionsPerHost = part(maxConnectionsPerHost)
        share.maxConnections = part(maxConnections)
        return share
    }
}

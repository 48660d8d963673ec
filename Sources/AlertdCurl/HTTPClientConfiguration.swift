/// Settings shared by every request of one ``HTTPClient``. Every field has a default.
public struct HTTPClientConfiguration: Sendable {
    /// Most connections open to one host at a time; further requests wait for
    /// one to free up. 0 means no limit (`CURLMOPT_MAX_HOST_CONNECTIONS`).
    public var maxConnectionsPerHost: Int = 0
    /// Most connections open at a time in total; 0 means no limit (`CURLMOPT_MAX_TOTAL_CONNECTIONS`).
    public var maxConnections: Int = 0
    /// Idle keep-alive connections kept for reuse (`CURLMOPT_MAXCONNECTS`).
    public var idleConnectionCache: Int = 64

    public init() {}
}

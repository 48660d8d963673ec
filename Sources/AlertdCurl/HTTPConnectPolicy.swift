/// Decides, per request, whether the client may connect to a resolved
/// address (`CURLOPT_OPENSOCKETFUNCTION`, before any connection is made):
/// checking the address rather than the URL's host name is what defeats DNS
/// tricks when blocking private or link-local targets.
/// Runs on the client's transfer thread, so it must be quick and must not block.
public struct HTTPConnectPolicy: Sendable {
    public enum Decision: Sendable, Equatable {
        case allow
        /// Abort; the request fails with ``HTTPClientError/refusedByPolicy(url:reason:)``.
        case refuse(reason: String)
    }

    public let decide: @Sendable (HTTPConnectTarget) -> Decision

    public init(_ decide: @escaping @Sendable (HTTPConnectTarget) -> Decision) {
        self.decide = decide
    }
}

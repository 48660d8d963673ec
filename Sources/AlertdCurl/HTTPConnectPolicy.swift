/// Decides, per request, whether the client may talk to an address: once
/// for each resolved address before connecting to it
/// (`CURLOPT_OPENSOCKETFUNCTION`), and again for the connection the request
/// is about to be sent on, new or taken from the pool
/// (`CURLOPT_PREREQFUNCTION`). Checking the address rather than the URL's
/// host name is what defeats DNS tricks when blocking private or link-local
/// targets; checking every request is what keeps a pooled connection opened
/// for someone else from carrying it.
///
/// A request with a policy never goes through a proxy (environment variables
/// included), since the policy would only see the proxy's address, and its
/// path is sent as given (`CURLOPT_PATH_AS_IS`), since that is what the
/// caller checked.
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

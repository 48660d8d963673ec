import AlertdHTTP

/// A connection's two ends: the same for every request it carries, so found
/// when it opens and kept as libmicrohttpd's socket context. Asked for per
/// request they cost a `getsockname` (or, on the Unix socket, a `getsockopt`
/// for the peer's credentials) and two addresses written out.
final class ConnectionAddresses: Sendable {
    let peer: HTTPRequest.Peer
    let local: String?
    /// What the per-client limits count the peer as (TCP only).
    let client: ClientKeys?

    init(peer: HTTPRequest.Peer, local: String?) {
        self.peer = peer
        self.local = local
        client = if case .tcp(let address) = peer { ClientKeys(peer: address) } else { nil }
    }
}

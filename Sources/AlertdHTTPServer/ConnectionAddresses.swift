import AlertdHTTP

/// A connection's two ends: the same for every request it carries, so found
/// at its first request and kept as libmicrohttpd's socket context. Asked
/// for per request they cost a `getsockname` (or, on the Unix socket, a
/// `getsockopt` for the peer's credentials) and two addresses written out.
///
/// Not `Sendable`: libmicrohttpd runs a connection's callbacks one at a time
/// on the worker thread that owns it, and nothing else touches this.
final class ConnectionAddresses {
    /// Nil until the connection's first request.
    var peer: HTTPRequest.Peer?
    var local: String?
}

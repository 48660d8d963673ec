import FoundationEssentials

/// One HTTP request as the server hands it to a handler: fully read, with the
/// body in memory (bounded by the server's `maxBodyBytes`).
public struct HTTPRequest: Sendable {
    /// Who sent the request.
    public enum Peer: Sendable, Equatable {
        /// A local process on the Unix socket, as the kernel vouches for it (`SO_PEERCRED`).
        case unix(uid: UInt32, gid: UInt32, pid: Int32)
        /// A TCP client; `address` is its numeric IP address.
        case tcp(address: String)
    }

    /// Which kind of listener the request came in on. The API asks for a
    /// bearer token only on TCP, where the kernel cannot vouch for the peer.
    public enum Listener: Sendable, Equatable {
        case unixSocket
        case tcp
    }

    /// One `name=value` pair from the query string, decoded.
    public struct QueryItem: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The method as sent, e.g. `GET`.
    public var method: String
    /// The percent-decoded path, without the query.
    public var path: String
    /// The query string as sent, without the `?`; empty when there is none.
    public var query: String
    /// The query's items in order; a name may repeat.
    public var queryItems: [QueryItem]
    public var headers: HTTPHeaders
    public var body: Data
    public var peer: Peer
    public var listener: Listener
    /// The numeric address of this end of a TCP connection (the one the
    /// client dialled, e.g. `127.0.0.1`); nil on the Unix socket or when unknown.
    public var localAddress: String?

    public init(
        method: String, target: String, headers: HTTPHeaders = [:], body: Data = Data(),
        peer: Peer = .tcp(address: "127.0.0.1"), listener: Listener = .tcp, localAddress: String? = nil
    ) {
        let parsed = HTTPRequestTarget(target)
        self.method = method
        self.path = parsed.path
        self.query = parsed.query
        self.queryItems = parsed.queryItems
        self.headers = headers
        self.body = body
        self.peer = peer
        self.listener = listener
        self.localAddress = localAddress
    }

    /// The first value given for a query name.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// Every value given for a query name, in order.
    public func queryValues(_ name: String) -> [String] {
        queryItems.filter { $0.name == name }.map(\.value)
    }
}

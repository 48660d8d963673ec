import AlertdHTTP

/// Who made a request, as the transport and the router vouch for it: the
/// name a decision records as its actor, and the scopes the caller holds.
public struct APICaller: Sendable, Equatable {
    /// `uid:1000` on the Unix socket, a token's name (`alice`; `token` for
    /// `api.token_file`'s), or `tcp:<address>` when TCP needs no token.
    public var name: String
    public var scopes: APIScopes
    /// True when the caller came in with the console's session cookie.
    public var viaSession: Bool

    public init(name: String, scopes: APIScopes, viaSession: Bool = false) {
        self.name = name
        self.scopes = scopes
        self.viaSession = viaSession
    }

    /// Who the transport says sent the request, before any token: the
    /// socket's peer holds every scope, a TCP peer none.
    public static func peer(of request: HTTPRequest) -> APICaller {
        switch request.peer {
        case .unix(let uid, _, _): APICaller(name: "uid:\(uid)", scopes: .all)
        case .tcp(let address): APICaller(name: "tcp:\(address)", scopes: .none)
        }
    }
}

/// Who may call a route. Every route declares one when it is registered and
/// `APIRouter` enforces it, so exempting a route from the token is a visible
/// decision next to the route, not a path test somewhere else.
public enum APIAccess: Sendable, Equatable, CustomStringConvertible {
    /// The bearer token on TCP whenever one is configured. The Unix socket
    /// needs none: its file mode decides who can connect.
    case token
    /// Anyone, on either listener: for probes (`/v1/health`), which must work
    /// without a secret and reveal none.
    case `public`
    /// No bearer token: the signed link in the query is the credential, and
    /// the handler verifies it. Links are opened from chat apps and mail,
    /// which cannot hold the API token.
    case actionLink

    public var description: String {
        switch self {
        case .token: "token"
        case .public: "public"
        case .actionLink: "action link"
        }
    }
}

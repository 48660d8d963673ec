/// Who may call a route. Every route declares one when it is registered and
/// `APIRouter` enforces it, so exempting a route from the token, or the
/// scope a token needs for it, is a visible decision next to the route, not
/// a path test somewhere else.
public enum APIAccess: Sendable, Equatable, CustomStringConvertible {
    /// A token holding this scope on TCP whenever tokens are configured (a
    /// bearer token, or the console's session cookie for one). The Unix
    /// socket needs none: its file mode decides who can connect, and it
    /// holds every scope.
    case token(APIScope)
    /// Anyone, on either listener: for probes (`/v1/health`), which must work
    /// without a secret and reveal none, and the console's static files and
    /// sign-in, which check what they are given themselves.
    case `public`
    /// No bearer token: the signed link in the query is the credential, and
    /// the handler verifies it. Links are opened from chat apps and mail,
    /// which cannot hold the API token.
    case actionLink

    /// The scope the route needs; nil when it needs no token.
    public var scope: APIScope? {
        if case .token(let scope) = self { scope } else { nil }
    }

    public var description: String {
        switch self {
        case .token(let scope): "token (\(scope.rawValue))"
        case .public: "public"
        case .actionLink: "action link"
        }
    }
}

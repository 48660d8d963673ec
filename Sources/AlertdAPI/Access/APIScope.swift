/// What a named token may do. Each route declares the one scope it needs
/// (`APIAccess.token(_:)`); `admin` includes the other three, so the single
/// `api.token_file` token, an admin token, keeps every right it had.
public enum APIScope: String, Sendable, CaseIterable, Comparable {
    /// Reading alerts, deliveries, events, silences and metrics.
    case read
    /// Submitting alerts (`POST /v1/alerts`, Alertmanager's `POST /api/v2/alerts`).
    case send
    /// Confirming, cancelling and resolving alerts.
    case decide
    /// Replaying dead deliveries and adding or expiring silences.
    case admin

    public static func < (a: APIScope, b: APIScope) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// The scopes a caller holds.
public struct APIScopes: Sendable, Equatable {
    public var granted: Set<APIScope>

    public init(_ granted: some Sequence<APIScope>) {
        self.granted = Set(granted)
    }

    /// Every right: the Unix socket, an open TCP listener, the `token_file` token.
    public static let all = APIScopes(APIScope.allCases)
    /// No right: a caller of a public route.
    public static let none = APIScopes([])

    /// Whether `scope` is granted, directly or through `admin`.
    public func allows(_ scope: APIScope) -> Bool {
        granted.contains(scope) || granted.contains(.admin)
    }

    /// Names in the order read, send, decide, admin, for answers and the console: `["read", "decide"]`.
    public var names: [String] { granted.sorted().map(\.rawValue) }
}

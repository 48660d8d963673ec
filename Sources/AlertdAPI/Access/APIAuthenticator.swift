import FoundationEssentials
import AlertModel
import Synchronization
import AlertdHTTP
import AlertdCrypto

/// The tokens TCP callers may present, replaced as a whole when the
/// configuration is reloaded. The Unix socket is guarded by its file
/// permissions; TCP needs `Authorization: Bearer <token>` (or the
/// console's session cookie for one) whenever a token is configured.
/// `APIRouter` asks it for every route that declares `.token` access.
public final class APIAuthenticator: Sendable {
    /// nil leaves TCP open, with every scope (loopback demos).
    private let tokens: Mutex<[APIToken]?>
    /// The console's sign-ins, whose cookie stands for a token.
    public let sessions: ConsoleSessions
    /// Wrong tokens, by client address.
    public let throttle = FailedTokenThrottle()

    public init(tokens: [APIToken]?, sessions: ConsoleSessions = ConsoleSessions()) {
        self.tokens = Mutex(tokens)
        self.sessions = sessions
    }

    /// One token with every scope, named `token`: `api.token_file`.
    public convenience init(token: String?) {
        self.init(tokens: token.map { [APIToken(name: APIToken.singleTokenName, secret: $0, scopes: .all)] })
    }

    /// Takes a reloaded configuration's tokens; requests from now on are
    /// checked against them, and sessions of tokens that are gone end.
    /// Returns what changed, by token name (never a secret), for the
    /// reload's log line: a token revoked, or one that appeared, said
    /// `changed=nothing` before.
    @discardableResult
    public func replace(with tokens: [APIToken]?) -> [String] {
        // Under the tokens' lock, as ``openSession(for:)``: a sign-in with a
        // token being replaced opens its session before the sessions are
        // sorted, or not at all.
        self.tokens.withLock { current in
            defer {
                current = tokens
                sessions.keep(only: tokens ?? [])
            }
            return Self.changes(from: current, to: tokens)
        }
    }

    private static func changes(from old: [APIToken]?, to new: [APIToken]?) -> [String] {
        switch (old, new) {
        case (nil, nil): return []
        case (nil, _?): return ["tokens required now"]
        case (_?, nil): return ["tokens no longer required"]
        case (let old?, let new?):
            let before = Dictionary(old.map { ($0.name, $0) }) { first, _ in first }
            let after = Dictionary(new.map { ($0.name, $0) }) { first, _ in first }
            let named: [(String, [String])] = [
                ("tokens added", after.keys.filter { before[$0] == nil }.sorted()),
                ("tokens removed", before.keys.filter { after[$0] == nil }.sorted()),
                ("tokens changed", after.keys.filter { name in before[name].map { $0 != after[name] } ?? false }.sorted()),
            ]
            return named.filter { !$0.1.isEmpty }.map { "\($0.0): \($0.1.joined(separator: ", "))" }
        }
    }

    /// A console session for `token`, if it is still one of the tokens.
    public func openSession(for token: APIToken) -> (id: String, expires: Date)? {
        tokens.withLock { current in
            guard current?.contains(token) == true else { return nil }
            return sessions.open(for: token)
        }
    }

    /// True when no token is configured, so TCP callers need none.
    public var isOpen: Bool { tokens.withLock { $0 == nil } }

    /// The configured token whose secret is `given`. Every token is
    /// compared, in constant time each, so the answer's timing tells
    /// nothing about which secrets came close.
    public func token(secret given: String) -> APIToken? {
        let given = Array(given.utf8)
        var found: APIToken?
        for token in tokens.withLock({ $0 ?? [] }) where constantTimeEquals(given, token.secret) {
            found = token
        }
        return found
    }

    /// Whether `token` is still configured as it was: a session made with
    /// it ends when a reload removes it or changes its secret or scopes.
    public func isCurrent(_ token: APIToken) -> Bool {
        tokens.withLock { $0?.contains(token) ?? false }
    }

    /// The token of an `Authorization: Bearer` header; nil without that
    /// header, `tokenRefused` when it holds no configured token.
    public func bearer(_ request: HTTPRequest) throws(APIError) -> APIToken? {
        guard let header = request.headers["Authorization"] else { return nil }
        // The scheme name is case-insensitive (RFC 9110 §11.1).
        guard header.count > 7, header.prefix(7).lowercased() == "bearer ",
              let token = token(secret: header.dropFirst(7).trimmingSpaces()) else { throw .tokenRefused }
        return token
    }
}

import FoundationEssentials
import AlertModel
import Synchronization
import AlertdHTTP
import AlertdCrypto

/// The console's sign-ins, kept in memory only: a restart signs everyone
/// out. A session is a random id in an `HttpOnly` cookie that stands for
/// the token it was made with, until it expires, its holder signs out, or a
/// reload removes or changes that token.
public final class ConsoleSessions: Sendable {
    /// The cookie's name: behind an https `api.public_url`, with the
    /// `__Host-` prefix, which a browser takes only from a secure origin,
    /// for `Path=/` and no `Domain`; so a page served over plain HTTP on
    /// another port of the host, or from a sibling name, cannot set one.
    public static func cookieName(secure: Bool) -> String { secure ? "__Host-alertd_session" : "alertd_session" }
    /// How long a sign-in lasts: a working day and a night on call.
    public static let defaultLifetime: Duration = .seconds(12 * 3600)
    /// Past this many live sessions the oldest is dropped: signing in needs
    /// a valid token, but memory should not grow with every browser tab.
    static let capacity = 1_000
    /// The most live sessions one token may have: past it that token's
    /// oldest is dropped, so signing in over and over with one token (even
    /// a read-only one) cannot push everyone else's sessions out.
    static let perToken = 32

    private struct Session {
        let token: APIToken
        let expires: Date
    }

    private let sessions = Mutex<[String: Session]>([:])
    public let lifetime: Duration

    public init(lifetime: Duration = ConsoleSessions.defaultLifetime) {
        self.lifetime = lifetime
    }

    /// A new session for `token`: its id, for the cookie, and when it expires.
    public func open(for token: APIToken, now: Date = Date()) -> (id: String, expires: Date) {
        let id = Base64URL.encode(SecureRandom.bytes(32))
        let expires = now.addingTimeInterval(lifetime.seconds)
        sessions.withLock { all in
            all = all.filter { $0.value.expires > now }
            let own = all.filter { $0.value.token.name == token.name }
            if own.count >= Self.perToken, let oldest = own.min(by: { $0.value.expires < $1.value.expires })?.key {
                all[oldest] = nil
            }
            if all.count >= Self.capacity, let oldest = all.min(by: { $0.value.expires < $1.value.expires })?.key {
                all[oldest] = nil
            }
            all[id] = Session(token: token, expires: expires)
        }
        return (id, expires)
    }

    /// The token a live session stands for; nil for an unknown or expired id.
    public func token(session id: String, now: Date = Date()) -> APIToken? {
        sessions.withLock { all in
            guard let session = all[id] else { return nil }
            guard session.expires > now else {
                all[id] = nil
                return nil
            }
            return session.token
        }
    }

    /// Ends every session whose token is not one of `tokens`: a token
    /// removed or changed by a reload must not bring its sessions back
    /// when a later reload restores it.
    public func keep(only tokens: [APIToken]) {
        sessions.withLock { all in all = all.filter { tokens.contains($0.value.token) } }
    }

    /// Ends a session; signing out twice is no error.
    public func close(session id: String) {
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }

    /// The live session a request's cookies name, and its token: the one
    /// live session among the values of the console's cookie. Cookies are
    /// not kept apart by port, so a page on another port of the host can
    /// set one of the same name: one with a longer path, sent first, had
    /// the console act in the planter's session, so two live ones count
    /// as none; and a dead one beside the holder's (`alertd_session=x;
    /// path=/v1`) had locked the holder out, signing in again included, so
    /// values that are no live session are passed over.
    public func session(of request: HTTPRequest, secure: Bool, now: Date = Date()) -> (id: String, token: APIToken)? {
        let name = Self.cookieName(secure: secure)
        var found: (id: String, token: APIToken)?
        for header in request.headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingSpaces() == name else { continue }
                let id = String(parts[1].trimmingSpaces())
                guard let token = token(session: id, now: now), found?.id != id else { continue }
                guard found == nil else { return nil }
                found = (id, token)
            }
        }
        return found
    }
}

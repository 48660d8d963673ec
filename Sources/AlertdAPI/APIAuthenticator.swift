import FoundationEssentials
import AlertModel
import AlertdHTTP
import AlertdCrypto

/// Decides whether a request may call a `.token` route. The Unix socket is
/// guarded by its file permissions; TCP needs `Authorization: Bearer <token>`
/// whenever a token is configured. `APIRouter` asks it for every route that
/// declares `.token` access.
public struct APIAuthenticator: Sendable {
    /// The token TCP callers must present; nil leaves TCP open (loopback demos).
    public let token: [UInt8]?

    public init(token: String?) {
        self.token = token.map { Array($0.utf8) }
    }

    /// Lets the request through, or throws `unauthorized`. Returns true when
    /// a token was checked, so handlers can name the caller "token" rather
    /// than by its address.
    public func authenticate(_ request: HTTPRequest) throws(APIError) -> Bool {
        guard request.listener == .tcp, let token else { return false }
        // The scheme name is case-insensitive (RFC 9110 §11.1).
        if let header = request.headers["Authorization"], header.count > 7, header.prefix(7).lowercased() == "bearer " {
            let given = Array(header.dropFirst(7).trimmingSpaces().utf8)
            if constantTimeEquals(given, token) { return true }
        }
        throw .unauthorized
    }
}

import Foundation
import AlertdHTTP
import AlertdCrypto

/// Decides whether a request may use the API. The Unix socket is guarded by
/// its file permissions; TCP needs `Authorization: Bearer <token>` whenever a
/// token is configured.
public struct APIAuthenticator: Sendable {
    /// The token TCP callers must present; nil leaves TCP open (loopback demos).
    public let token: [UInt8]?

    public init(token: String?) {
        self.token = token.map { Array($0.utf8) }
    }

    /// nil when the request may proceed; otherwise the 401 to send.
    public func reject(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.listener == .tcp, let token else { return nil }
        // The scheme name is case-insensitive (RFC 9110 §11.1).
        if let header = request.headers["Authorization"], header.count > 7, header.prefix(7).lowercased() == "bearer " {
            let given = Array(header.dropFirst(7).trimmingCharacters(in: .whitespaces).utf8)
            if constantTimeEquals(given, token) { return nil }
        }
        var response = HTTPResponse.error(
            status: 401, code: "unauthorized",
            message: "This API needs a bearer token over TCP: send `Authorization: Bearer <token>` (alertctl: --token-file).")
        response.headers.set("WWW-Authenticate", #"Bearer realm="alertd""#)
        return response
    }
}

import FoundationEssentials
import AlertModel
import AlertdHTTP

/// Keeps web browsers from being used against the TCP listener. A page on
/// any site can make a browser send simple requests to `127.0.0.1:9190`
/// (cross-site request forgery), and a site that re-points its own name at
/// that address can even read the answers (DNS rebinding). Programs such as
/// alertctl and curl are not affected: they name the daemon by its address,
/// send no `Origin`, and send JSON or a bearer token.
///
/// On TCP, `APIRouter` asks it for every request:
/// - `Host` must name this daemon: `localhost`, `127.0.0.1`, `::1`, the
///   address the connection arrived at, or `api.public_url`'s host; else
///   421 `unknown_host`. A request with the right bearer token is let
///   through whatever its `Host`: no rebinding page has the token.
/// - A request sent by a page (`Origin`) must come from alertd's own
///   origin; else 403 `cross_origin_request`. So must a state-changing one
///   whose `Sec-Fetch-Site` says another site sent it.
/// - A `POST` must carry `Content-Type: application/json` or an
///   `Authorization` header, which an HTML form cannot send and a script
///   can only send after a CORS check alertd never passes; else 415
///   `unsupported_media_type`. Action links are the exception: their page
///   posts a plain form, and the signed link is their credential. `DELETE`,
///   `PUT` and `PATCH` need neither: no form sends them, and a script on
///   another origin only after that same CORS check (`amtool silence
///   expire` sends a bare `DELETE`).
///
/// The Unix socket is left alone: only local processes the socket file's
/// mode lets in reach it, and no browser does.
public struct APIOriginPolicy: Sendable {
    /// `api.public_url`'s host, lowercased, without brackets; nil without one.
    public let publicHost: String?
    /// `api.public_url`'s origin (`https://alertd.example`), lowercased; nil without one.
    public let publicOrigin: String?

    public init(publicURL: String? = nil) {
        guard let publicURL, let parts = URLComponents(string: publicURL), let scheme = parts.scheme?.lowercased(),
              let host = parts.host.map(Self.bare), !host.isEmpty else {
            publicHost = nil
            publicOrigin = nil
            return
        }
        publicHost = host
        let authority = host.contains(":") ? "[\(host)]" : host
        publicOrigin = "\(scheme)://\(authority)\(parts.port.map { ":\($0)" } ?? "")"
    }

    /// Whether the console's cookie is `Secure` (and `__Host-` named):
    /// when `api.public_url` is https.
    public var securesCookies: Bool { publicOrigin?.hasPrefix("https://") == true }

    /// The names every TCP listener answers to.
    static let localNames: Set<String> = ["localhost", "127.0.0.1", "::1"]

    /// Refuses a request whose `Host` names another server. A missing
    /// `Host` is let through: every browser sends one, so its absence is
    /// no rebinding.
    package func checkHost(_ request: HTTPRequest) throws(APIError) {
        guard request.listener == .tcp, let header = request.headers["Host"] else { return }
        let name = Self.hostName(header)
        if Self.localNames.contains(name) || name == request.localAddress || name == publicHost { return }
        var names: [String] = []
        // Each once: a public_url on 127.0.0.1 named it twice.
        for name in [request.localAddress, "localhost", publicHost].compactMap({ $0 }) where !names.contains(name) { names.append(name) }
        let allowed = names.map { "`\($0)`" }.joined(separator: " or ")
        throw APIError(
            status: 421, code: "unknown_host",
            message: "This alertd does not answer to the host name `\(header)`: address it as \(allowed), or set api.public_url "
                + "to the URL people reach it at. (A web page that points its own name at alertd gets this answer too.)")
    }

    /// Refuses what a web page on another site could have sent: a foreign
    /// `Origin`, a state-changing request another site sent, or one without
    /// a header an HTML form cannot send.
    package func checkBrowser(_ request: HTTPRequest, access: APIAccess) throws(APIError) {
        guard request.listener == .tcp else { return }
        let changesState = !["GET", "HEAD", "OPTIONS"].contains(request.method)
        if let origin = request.headers["Origin"]?.trimmingSpaces().lowercased() {
            // A page whose referrer policy is `no-referrer` (the action page's) posts
            // its own form with `Origin: null`; `Sec-Fetch-Site` still tells where it came from.
            let fromOwnPage = origin == "null" ? access == .actionLink : isOwnOrigin(origin, host: request.headers["Host"])
            if !fromOwnPage { throw Self.crossOrigin(origin) }
        }
        guard changesState else { return }
        if let site = request.headers["Sec-Fetch-Site"]?.lowercased(), site == "cross-site" || site == "same-site" {
            throw Self.crossOrigin(request.headers["Origin"] ?? "another site")
        }
        guard access != .actionLink, request.method == "POST" else { return }
        if APIRequestBody.mediaType(request) == "application/json" || request.headers.contains("Authorization") { return }
        throw APIError(
            status: 415, code: "unsupported_media_type",
            message: "Over TCP, \(request.method) needs `Content-Type: application/json` (with or without a body) or an "
                + "`Authorization` header, so that a web page cannot send it; got "
                + "\(APIRequestBody.mediaType(request).map { "`\($0)`" } ?? "no Content-Type").")
    }

    /// A console session's cookie counts only on requests alertd's own pages
    /// sent. The cookie is `SameSite=Strict`, but a page on another port of
    /// the same host is the same *site* and gets it sent along; so a
    /// browser that says another page sent the request is refused, and a
    /// state-changing request must show it came from alertd's own origin
    /// (`Origin`, or `Sec-Fetch-Site: same-origin`). `checkBrowser` then
    /// still asks it for the JSON content type a form cannot send.
    package func checkSession(_ request: HTTPRequest) throws(APIError) {
        let site = request.headers["Sec-Fetch-Site"]?.lowercased()
        if let site, site != "same-origin", site != "none" { throw Self.crossOrigin(request.headers["Origin"] ?? "another site") }
        guard !["GET", "HEAD", "OPTIONS"].contains(request.method) else { return }
        let origin = request.headers["Origin"]?.trimmingSpaces().lowercased()
        if let origin, origin != "null", isOwnOrigin(origin, host: request.headers["Host"]) { return }
        if origin == nil, site == "same-origin" { return }
        throw APIError(
            status: 403, code: "cross_origin_request",
            message: "A console session may only change something from alertd's own pages: the request carries no "
                + "`Origin` of this alertd. Programs send `Authorization: Bearer <token>` instead.")
    }

    private func isOwnOrigin(_ origin: String, host: String?) -> Bool {
        if origin == publicOrigin { return true }
        guard let host, let range = origin.firstRange(of: "://") else { return false }
        let own = host.trimmingSpaces().lowercased()
        // At the public URL's own host only its scheme is this alertd's:
        // http:// beside an https:// public URL is another origin.
        if let publicOrigin, publicOrigin.hasSuffix("://" + own) { return false }
        return origin[range.upperBound...] == own
    }

    private static func crossOrigin(_ origin: String) -> APIError {
        APIError(status: 403, code: "cross_origin_request",
                 message: "A web page at \(origin) may not call alertd's API. Call it from a program, alertctl or curl; "
                     + "browsers only reach alertd's own action-link pages.")
    }

    /// The host of a `Host` header (`name`, `name:port`, `[v6]:port`),
    /// lowercased, without brackets or a trailing dot.
    static func hostName(_ header: String) -> String {
        var header = header
        // As bytes when ASCII, as host names on the wire are: by Characters,
        // this cost 6 k instructions on every request over TCP.
        let ascii = header.withUTF8 { utf8 -> String? in
            guard utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
            var value = utf8[...].trimmingSpaces()
            if value.first == UInt8(ascii: "["), let close = value.firstIndex(of: UInt8(ascii: "]")) {
                value = value[(value.startIndex + 1)..<close]
            } else if let colon = value.lastIndex(of: UInt8(ascii: ":")), !value[..<colon].contains(UInt8(ascii: ":")) {
                value = value[..<colon]
            }
            // As `bare` does.
            if value.count >= 2, value.first == UInt8(ascii: "["), value.last == UInt8(ascii: "]") {
                value = value.dropFirst().dropLast()
            }
            while value.last == UInt8(ascii: ".") { value = value.dropLast() }
            return value.lowercasedASCII
        }
        return ascii ?? unicodeHostName(header)
    }

    /// ``hostName(_:)`` by Characters: for a header that is not ASCII, and
    /// the reference the byte reading is tested against.
    static func unicodeHostName(_ header: String) -> String {
        var value = Substring(header.trimmingSpaces().lowercased())
        if value.hasPrefix("["), let close = value.firstIndex(of: "]") {
            value = value[value.index(after: value.startIndex)..<close]
        } else if let colon = value.lastIndex(of: ":"), !value[..<colon].contains(":") {
            value = value[..<colon]
        }
        return bare(String(value))
    }

    private static func bare(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        while host.hasSuffix(".") { host.removeLast() }
        return host
    }
}

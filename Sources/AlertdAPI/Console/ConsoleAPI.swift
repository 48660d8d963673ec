import FoundationEssentials
import AlertModel
import AlertdHTTP

/// The web console at `/ui/`: its page, style and script, embedded in the
/// binary (`ConsoleAssets`), and the sign-in that exchanges a token for a
/// session cookie. The console then calls the same API as everyone else,
/// with the cookie standing for the token and its scopes
/// (`APIRouter.authenticate`).
///
/// The cookie is `HttpOnly` (no script reads it), `SameSite=Strict`,
/// `Path=/`, expires with the session, and is `Secure` when `api.public_url`
/// is an `https` URL: the one rule, since only the configuration knows
/// whether a TLS proxy stands in front.
public struct ConsoleAPI: Sendable {
    /// The tokens, and the sessions signed in with them.
    package let authenticator: APIAuthenticator
    /// Whether the cookie gets `Secure`.
    package let secureCookie: Bool

    public init(authenticator: APIAuthenticator, secureCookie: Bool) {
        self.authenticator = authenticator
        self.secureCookie = secureCookie
    }

    public func register(in router: inout APIRouter) {
        // The files hold no secret: the page asks for a token before it shows anything.
        router.add("GET", "/ui", access: .public) { _ throws(APIError) in try Self.asset("index.html") }
        router.add("GET", "/ui/{file}", access: .public) { req throws(APIError) in try Self.asset(req[parameter: "file"]) }
        router.add("GET", "/ui/session", access: .token(.read)) { req in Self.describe(req.caller) }
        // Sign-in checks the token in its body itself; the origin policy still wants JSON from alertd's own pages.
        router.add("POST", "/ui/session", access: .public) { req throws(APIError) in try signIn(req) }
        router.add("DELETE", "/ui/session", access: .public) { req in signOut(req) }
    }

    /// Headers for everything under `/ui/`: scripts, styles and requests only
    /// from alertd itself, nothing inline (a title with markup in it runs
    /// nothing), no framing, no caching, no `Referer`.
    package static let pageHeaders: HTTPHeaders = [
        "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
            + "object-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
        "Referrer-Policy": "no-referrer",
    ]

    package static func asset(_ name: String) throws(APIError) -> HTTPResponse {
        guard let file = ConsoleAssets.files[name] else {
            throw .notFound("The console has no file `\(name)`; open /ui/.")
        }
        var headers = pageHeaders
        headers.set("Content-Type", file.contentType)
        return HTTPResponse(status: 200, headers: headers, body: Data(file.body.utf8))
    }

    package func signIn(_ request: APIRequest) throws(APIError) -> HTTPResponse {
        guard !authenticator.isOpen else {
            throw APIError(status: 409, code: "no_tokens_configured",
                           message: "This alertd asks no token over TCP, so there is nothing to sign in with; the console works as it is.")
        }
        guard let body = try APIRequestBody.json(request.http) as? [String: Any], Set(body.keys) == ["token"],
              let secret = body["token"] as? String else {
            throw .invalidBody("Send {\"token\": \"…\"}: one of the tokens in api.tokens_file (or api.token_file).")
        }
        let token = try authenticator.throttle.admit(FailedTokenThrottle.key(for: request.http), code: "too_many_sign_ins", message: {
            "Too many failed sign-ins from this address; try again in \($0) s."
        }) { () throws(APIError) in
            guard let token = authenticator.token(secret: secret.trimmingWhitespace()) else { throw Self.unknownToken }
            return token
        }
        let caller = APICaller(name: token.name, scopes: token.scopes, viaSession: true)
        guard token.scopes.allows(.read) else { throw .scopeMissing(.read, caller: caller) }
        guard let session = authenticator.openSession(for: token) else {
            throw Self.unknownToken
        }
        var response = Self.describe(caller)
        response.headers.add("Set-Cookie", cookie(session.id, maxAge: Int(authenticator.sessions.lifetime.seconds)))
        return response
    }

    private static let unknownToken = APIError(status: 401, code: "invalid_token",
                                               message: "That token is not one this alertd knows; check it and try again.")

    package func signOut(_ request: APIRequest) -> HTTPResponse {
        if let (id, _) = authenticator.sessions.session(of: request.http, secure: secureCookie) { authenticator.sessions.close(session: id) }
        var response = HTTPResponse(status: 204, headers: Self.pageHeaders)
        response.headers.add("Set-Cookie", cookie("", maxAge: 0))
        return response
    }

    private func cookie(_ value: String, maxAge: Int) -> String {
        "\(ConsoleSessions.cookieName(secure: secureCookie))=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
            + (secureCookie ? "; Secure" : "")
    }

    /// Who the console is signed in as: `{"name": "alice", "scopes": ["read", "decide"], "session": true}`.
    package static func describe(_ caller: APICaller) -> HTTPResponse {
        let object: [String: Any] = ["name": caller.name, "scopes": caller.scopes.names, "session": caller.viaSession]
        let data = Data(JSONObject.text(of: object).utf8)
        var response = HTTPResponse.json(status: 200, body: data)
        for field in pageHeaders where field.name != "Content-Security-Policy" { response.headers.set(field.name, field.value) }
        return response
    }
}

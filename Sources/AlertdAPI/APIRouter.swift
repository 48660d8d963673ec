import AlertdHTTP

/// Matches requests to handlers by method and path pattern
/// (`/v1/alerts/{id}`), enforces each route's declared `APIAccess` (the
/// token and its scope) and the `APIOriginPolicy` that keeps browsers off
/// TCP, and renders every `APIError` (its own 401, 403, 404, 405 and 421
/// included) in the route's `APIErrorStyle`, in this one place.
public struct APIRouter: Sendable {
    public typealias Handler = @Sendable (APIRequest) async throws(APIError) -> HTTPResponse

    /// One route; the list of them is what `docs/openapi.json` must describe.
    public struct Route: Sendable {
        public let method: String
        public let pattern: String
        /// Who may call it.
        public let access: APIAccess
        /// How its errors are written.
        public let errors: APIErrorStyle
        package let segments: [Segment]
        package let handler: Handler
        /// Told the code of every refusal of a request to this route, before
        /// it runs (a missing token, a body too large) or by it, and how many
        /// submissions it refused (``APIError/refusedSubmissions``).
        package let onRefusal: (@Sendable (_ code: String, _ count: Int) -> Void)?
    }

    package enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    public private(set) var routes: [Route] = []
    /// The indices in `routes` of the routes of each segment count: a
    /// path is matched against those alone. Copying every route to try it
    /// cost some 5 k instructions a request.
    private var routesBySegments: [[Int]] = []
    /// Checks `.token` routes; without a token it lets every caller in.
    public let authenticator: APIAuthenticator
    /// Keeps browsers on other sites, and names other than alertd's, off TCP.
    public let origins: APIOriginPolicy

    public init(authenticator: APIAuthenticator = APIAuthenticator(token: nil), origins: APIOriginPolicy = APIOriginPolicy()) {
        self.authenticator = authenticator
        self.origins = origins
    }

    /// Adds a route. `onRefusal` is told the code of each request to it
    /// that is refused, wherever: intake routes count refused submissions
    /// with it, those the server or the router refuse before the route runs
    /// among them.
    public mutating func add(
        _ method: String, _ pattern: String, access: APIAccess, errors: APIErrorStyle = .alertd,
        onRefusal: (@Sendable (_ code: String, _ count: Int) -> Void)? = nil, _ handler: @escaping Handler
    ) {
        let segments = pattern.split(separator: "/").map { s -> Segment in
            s.hasPrefix("{") && s.hasSuffix("}") ? .parameter(String(s.dropFirst().dropLast())) : .literal(String(s))
        }
        while routesBySegments.count <= segments.count { routesBySegments.append([]) }
        routesBySegments[segments.count].append(routes.count)
        routes.append(Route(method: method, pattern: pattern, access: access, errors: errors, segments: segments, handler: handler,
                            onRefusal: onRefusal))
    }

    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let candidates = candidates(for: request)
        do {
            let (route, params, caller) = try admit(request, candidates)
            let router = self
            return try await route.handler(APIRequest(http: request, parameters: params, caller: caller,
                                                      stillAllowed: { (try? router.authorize(request, route.access, counting: false)) != nil }))
        } catch {
            Self.route(serving: request.method, in: candidates)?.onRefusal?(error.code, error.refusedSubmissions)
            // A path's routes share a style: even its 401 and 405 speak it.
            return (request.listener == .tcp ? error.withoutStoreDetail : error).response(in: candidates.first?.0.errors ?? .alertd)
        }
    }

    /// What ``handle(_:)`` would answer the request `build` makes, without
    /// reading its body: its 401, 403, 404, 405 or 421; nil when its route
    /// would run. For ``HTTPServer/Screen``, so a TCP caller without the
    /// token cannot make the daemon hold a body of up to
    /// `limits.max_body_bytes` first. With no token configured, or on the
    /// Unix socket, every caller is let in and there is nothing to screen.
    public func screen(_ build: () -> HTTPRequest) -> HTTPResponse? {
        // Asked first, before the request is built: most daemons have no token.
        guard !authenticator.isOpen else { return nil }
        let head = build()
        guard head.listener == .tcp else { return nil }
        let candidates = candidates(for: head)
        do {
            _ = try admit(head, candidates)
            return nil
        } catch {
            Self.route(serving: head.method, in: candidates)?.onRefusal?(error.code, error.refusedSubmissions)
            return error.response(in: candidates.first?.0.errors ?? .alertd)
        }
    }

    /// The answer to an error the HTTP server gives by itself for a request
    /// to `target` (``HTTPServer/ErrorAnswer``), in the style of the route
    /// it was for: Alertmanager's clients read Alertmanager's shape there.
    public func errorAnswer(method: String, target: String, status: Int, code: String, message: String) -> HTTPResponse {
        let candidates = candidates(forPath: HTTPRequestTarget(target).path)
        Self.route(serving: method, in: candidates)?.onRefusal?(code, 1)
        return APIError(status: status, code: code, message: message).response(in: candidates.first?.0.errors ?? .alertd)
    }

    /// The route of `candidates` that serves `method`, if one does.
    private static func route(serving method: String, in candidates: [(Route, [String: String], Int)]) -> Route? {
        candidates.first { serves($0.0, method) }?.0
    }

    /// The routes whose pattern `request`'s path fits, most literal first.
    private func candidates(for request: HTTPRequest) -> [(Route, [String: String], Int)] {
        candidates(forPath: request.path)
    }

    private func candidates(forPath path: String) -> [(Route, [String: String], Int)] {
        // Split as bytes: split into Characters, the path cost 5 k instructions a request.
        let parts = path.utf8.split(separator: UInt8(ascii: "/")).map { String(Substring($0)) }
        // Literal segments win over parameters, so `/v1/alerts/replay` could never be read as an id.
        let sameLength = parts.count < routesBySegments.count ? routesBySegments[parts.count] : []
        return sameLength.compactMap { i -> (Route, [String: String], Int)? in
            guard let (params, literals) = Self.match(routes[i].segments, parts) else { return nil }
            return (routes[i], params, literals)
        }.sorted { $0.2 > $1.2 }
    }

    /// Everything asked of a request before its route runs, all of it from
    /// its head: the route, its parameters and who is calling.
    private func admit(_ request: HTTPRequest, _ candidates: [(Route, [String: String], Int)]) throws(APIError) -> (Route, [String: String], APICaller) {
        do throws(APIError) {
            try origins.checkHost(request)
        } catch {
            // The right token is no rebinding page's: let it name the daemon as
            // it likes. Judged and counted as every guess is: a foreign Host
            // was a way round the limit on wrong tokens, and, once an address
            // was held back, its answer still told a right token from a wrong one.
            let wrongHost = error
            guard request.listener == .tcp, !authenticator.isOpen, request.headers["Authorization"] != nil else { throw wrongHost }
            let token: APIToken?
            do throws(APIError) { token = try admittedBearer(request, counting: true) } catch {
                throw error.status == 429 ? error : wrongHost
            }
            guard token != nil else { throw wrongHost }
        }
        if let (route, params, _) = candidates.first(where: { Self.serves($0.0, request.method) }) {
            let caller = try authorize(request, route.access)
            try origins.checkBrowser(request, access: route.access)
            return (route, params, caller)
        }
        // Only a path that belongs to open routes alone may tell an anonymous
        // caller it exists: anything else, unknown paths included, needs a token first.
        if candidates.isEmpty || candidates.contains(where: { $0.0.access.scope != nil }) { _ = try authenticate(request) }
        let allowed = candidates.map(\.0.method)
        if !allowed.isEmpty { throw .methodNotAllowed(request.method, path: request.path, allowed: allowed) }
        throw .notFound("There is nothing at \(request.path). alertd's API lives under /v1, the Alertmanager-compatible one (silences "
                        + "included) under /api/v2; see docs/API.md.")
    }

    /// Applies a route's access rule: the caller, holding the route's scope.
    private func authorize(_ request: HTTPRequest, _ access: APIAccess, counting: Bool = true) throws(APIError) -> APICaller {
        // An action link's handler checks the link's signature itself; a public route needs nothing.
        guard let scope = access.scope else { return .peer(of: request) }
        let caller = try authenticate(request, counting: counting)
        guard caller.scopes.allows(scope) else { throw .scopeMissing(scope, caller: caller) }
        return caller
    }

    /// Who is calling a token route: the socket's peer; on TCP, the bearer
    /// token's holder, anyone when no token is configured, or the holder of
    /// a console session, which counts only from alertd's own pages.
    /// Without `counting` (a stream's look again at a token it was let in
    /// with, which guesses nothing) a wrong token is not counted against its
    /// address, nor is the address's wait asked.
    package func authenticate(_ request: HTTPRequest, counting: Bool = true) throws(APIError) -> APICaller {
        guard request.listener == .tcp, !authenticator.isOpen else { return APICaller(name: APICaller.peer(of: request).name, scopes: .all) }
        if request.headers["Authorization"] != nil, let token = try admittedBearer(request, counting: counting) {
            return APICaller(name: token.name, scopes: token.scopes)
        }
        if let (_, token) = authenticator.sessions.session(of: request, secure: origins.securesCookies), authenticator.isCurrent(token) {
            try origins.checkSession(request)
            return APICaller(name: token.name, scopes: token.scopes, viaSession: true)
        }
        throw .unauthorized
    }

    /// The bearer token `request` holds, through the limit on wrong ones:
    /// counted with the console's sign-ins, a bearer token being the same secret.
    private func admittedBearer(_ request: HTTPRequest, counting: Bool) throws(APIError) -> APIToken? {
        let address = counting ? FailedTokenThrottle.key(for: request) : nil
        return try authenticator.throttle.admit(address, code: "too_many_failed_tokens", message: {
            "Too many wrong tokens from this address; try again in \($0) s."
        }) { () throws(APIError) in try authenticator.bearer(request) }
    }

    private static func serves(_ route: Route, _ method: String) -> Bool {
        route.method == method || (method == "HEAD" && route.method == "GET")
    }

    package static func match(_ segments: [Segment], _ parts: [String]) -> ([String: String], Int)? {
        guard segments.count == parts.count else { return nil }
        var params: [String: String] = [:]
        var literals = 0
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let l):
                guard l == part else { return nil }
                literals += 1
            case .parameter(let name):
                params[name] = part
            }
        }
        return (params, literals)
    }
}

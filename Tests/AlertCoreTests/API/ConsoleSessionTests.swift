import Foundation
import Synchronization
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdStore
@testable import AlertdDelivery
@testable import AlertdAPI

/// Named tokens with scopes, and the console's session cookie, at the
/// router: who may do what, what a decision records, and that the cookie
/// counts only on requests alertd's own pages send.
@Suite struct ConsoleSessionTests {
    static let secrets = ["alice": "alice-secret-0123456789", "rita": "rita-secret-0123456789", "sam": "sam-secret-0123456789"]
    static func tokens() -> [APIToken] {
        [APIToken(name: "alice", secret: secrets["alice"]!, scopes: APIScopes([.read, .decide])),
         APIToken(name: "rita", secret: secrets["rita"]!, scopes: APIScopes([.read])),
         APIToken(name: "sam", secret: secrets["sam"]!, scopes: APIScopes([.send]))]
    }

    let authenticator = APIAuthenticator(tokens: ConsoleSessionTests.tokens())
    let router: APIRouter

    init() {
        router = APIFixture.router(authenticator: authenticator)
    }

    static let host = "127.0.0.1:9190"
    static let own = "http://127.0.0.1:9190"

    func request(_ method: String, _ target: String, json: String? = nil, bearer: String? = nil, cookie: String? = nil,
                 headers extra: [(String, String)] = [], from address: String = "127.0.0.1") -> HTTPRequest {
        var headers: HTTPHeaders = ["Host": Self.host]
        if json != nil { headers.add("Content-Type", "application/json") }
        if let bearer { headers.add("Authorization", "Bearer \(bearer)") }
        if let cookie { headers.add("Cookie", "theme=dark; \(ConsoleSessions.cookieName(secure: false))=\(cookie)") }
        for (n, v) in extra { headers.add(n, v) }
        return HTTPRequest(method: method, target: target, headers: headers, body: Data((json ?? "").utf8),
                           peer: .tcp(address: address), listener: .tcp, localAddress: "127.0.0.1")
    }

    /// An alert sent with sam's token.
    func sendAlert() async throws -> String {
        let r = await router.handle(request("POST", "/v1/alerts", json: #"{"title": "Deploy?"}"#, bearer: Self.secrets["sam"]))
        return try #require(APIFixture.json(r)?["id"] as? String)
    }

    @Test func eachTokenDoesWhatItsScopesAllowAndDecisionsNameIt() async throws {
        let id = try await sendAlert()
        // sam may send, not read.
        let samReads = await router.handle(request("GET", "/v1/alerts", bearer: Self.secrets["sam"]))
        #expect(samReads.status == 403)
        #expect(APIFixture.errorCode(samReads) == "scope_missing")
        let message = try #require(try? HTTPErrorBody.decode(APIFixture.body(samReads)).message)
        #expect(message.contains("`read`") && message.contains("`sam`"))
        // rita reads, but may not decide; the alert stays open.
        #expect(await router.handle(request("GET", "/v1/alerts/\(id)", bearer: Self.secrets["rita"])).status == 200)
        let ritaDecides = await router.handle(request("POST", "/v1/alerts/\(id)/confirm", json: "{}", bearer: Self.secrets["rita"]))
        #expect(ritaDecides.status == 403)
        #expect(APIFixture.errorCode(ritaDecides) == "scope_missing")
        #expect(await router.handle(request("POST", "/v1/deliveries/replay", json: "", bearer: Self.secrets["alice"])).status == 403)
        // alice decides, and the decision records her name.
        let decided = await router.handle(request("POST", "/v1/alerts/\(id)/confirm", json: #"{"comment": "go"}"#, bearer: Self.secrets["alice"]))
        #expect(decided.status == 200)
        let decision = try #require(APIFixture.json(decided)?["decision"] as? [String: Any])
        #expect(decision["actor"] as? String == "alice")
        #expect(decision["comment"] as? String == "go")
        // An unknown token is a 401 whatever the route's scope.
        #expect(await router.handle(request("GET", "/v1/alerts", bearer: "nobody-0123456789abcdef")).status == 401)
    }

    @Test func adminIncludesEveryScopeAndTheSocketHoldsThemAll() async throws {
        let admin = APIAuthenticator(tokens: [APIToken(name: "root", secret: "root-secret-0123456789", scopes: APIScopes([.admin]))])
        let router = APIFixture.router(authenticator: admin)
        let sent = await router.handle(request("POST", "/v1/alerts", json: #"{"title": "x"}"#, bearer: "root-secret-0123456789"))
        #expect(sent.status == 202)
        #expect(await router.handle(request("GET", "/v1/alerts", bearer: "root-secret-0123456789")).status == 200)
        #expect(await router.handle(request("POST", "/v1/deliveries/replay", json: "", bearer: "root-secret-0123456789")).status == 200)
        #expect(await router.handle(APIFixture.request("POST", "/v1/deliveries/replay", as: .socket)).status == 200)
    }

    /// Signs in as `name`; the cookie's value and the whole header.
    func signIn(_ name: String, origin: String? = ConsoleSessionTests.own) async throws -> (value: String, header: String) {
        var extra: [(String, String)] = []
        if let origin { extra.append(("Origin", origin)) }
        let r = await router.handle(request("POST", "/ui/session", json: #"{"token": "\#(Self.secrets[name]!)"}"#, headers: extra))
        #expect(r.status == 200, "\(String(decoding: APIFixture.body(r), as: UTF8.self))")
        #expect(APIFixture.json(r)?["name"] as? String == name)
        let header = try #require(r.headers["Set-Cookie"])
        let value = try #require(header.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last)
        return (String(value), header)
    }

    @Test func aSessionCookieIsHttpOnlyStrictAndStandsForItsTokenOnlyFromOwnPages() async throws {
        let id = try await sendAlert()
        let (cookie, header) = try await signIn("alice")
        for attribute in ["Path=/", "HttpOnly", "SameSite=Strict", "Max-Age=43200"] { #expect(header.contains(attribute), "\(header)") }
        #expect(!header.contains("Secure"))
        #expect(cookie.count >= 40)

        // Reading needs no Origin: a GET changes nothing, and no other site can read the answer.
        let me = await router.handle(request("GET", "/ui/session", cookie: cookie))
        #expect(APIFixture.json(me)?["name"] as? String == "alice")
        #expect(APIFixture.json(me)?["scopes"] as? [String] == ["read", "decide"])
        // A second live session's cookie, as a page on another port could plant
        // with a longer path (sent first): neither counts.
        let (other, _) = try await signIn("rita")
        let name = ConsoleSessions.cookieName(secure: false)
        #expect(await router.handle(request("GET", "/ui/session", headers: [("Cookie", "\(name)=\(other); \(name)=\(cookie)")])).status == 401)
        // One that is no live session is passed over: planted beside the holder's, it had locked them out.
        for pair in ["\(name)=x; \(name)=\(cookie)", "\(name)=\(cookie); \(name)=", "\(name)=\(cookie); \(name)=\(cookie)"] {
            let me = await router.handle(request("GET", "/ui/session", headers: [("Cookie", pair)]))
            #expect(APIFixture.json(me)?["name"] as? String == "alice", "\(pair)")
        }
        #expect(await router.handle(request("GET", "/v1/alerts", cookie: cookie, headers: [("Sec-Fetch-Site", "same-origin")])).status == 200)
        // A page on another port of the same host is the same site: the browser sends the cookie, alertd refuses it.
        let sameSite = await router.handle(request("GET", "/v1/alerts", cookie: cookie, headers: [("Sec-Fetch-Site", "same-site")]))
        #expect(sameSite.status == 403)

        let confirm = "/v1/alerts/\(id)/confirm"
        // Forgeries: no Origin at all, another origin, a form's content type, another site's fetch metadata.
        let forged: [(String?, [(String, String)], Int)] = [
            ("{}", [], 403),
            ("{}", [("Origin", "http://127.0.0.1:8000")], 403),
            ("{}", [("Origin", "null")], 403),
            (nil, [("Origin", Self.own), ("Content-Type", "text/plain")], 415),
            (nil, [("Origin", Self.own), ("Content-Type", "application/x-www-form-urlencoded")], 415),
            ("{}", [("Sec-Fetch-Site", "same-site")], 403),
        ]
        for (json, extra, status) in forged {
            let r = await router.handle(request("POST", confirm, json: json, cookie: cookie, headers: extra))
            #expect(r.status == status, "\(extra): \(String(decoding: APIFixture.body(r), as: UTF8.self))")
        }
        #expect((APIFixture.json(await router.handle(request("GET", "/v1/alerts/\(id)", cookie: cookie))))?["state"] as? String == "open")
        // From alertd's own page, with JSON: it decides, as alice.
        let own = await router.handle(request("POST", confirm, json: #"{"comment": "from the console"}"#, cookie: cookie,
                                              headers: [("Origin", Self.own), ("Sec-Fetch-Site", "same-origin")]))
        #expect(own.status == 200)
        #expect((APIFixture.json(own)?["decision"] as? [String: Any])?["actor"] as? String == "alice")

        // Signing out ends the session and clears the cookie.
        let out = await router.handle(request("DELETE", "/ui/session", json: "", cookie: cookie, headers: [("Origin", Self.own)]))
        #expect(out.status == 204)
        #expect(out.headers["Set-Cookie"]?.contains("Max-Age=0") == true)
        #expect(await router.handle(request("GET", "/v1/alerts", cookie: cookie)).status == 401)
    }

    @Test func signInRefusesBadTokensForeignPagesAndTokensThatCannotRead() async throws {
        let wrong = await router.handle(request("POST", "/ui/session", json: #"{"token": "not-a-token-0123456789"}"#))
        #expect(wrong.status == 401)
        #expect(APIFixture.errorCode(wrong) == "invalid_token")
        #expect(wrong.headers["Set-Cookie"] == nil)
        let sendOnly = await router.handle(request("POST", "/ui/session", json: #"{"token": "\#(Self.secrets["sam"]!)"}"#))
        #expect(sendOnly.status == 403)
        #expect(APIFixture.errorCode(sendOnly) == "scope_missing")
        let foreign = await router.handle(request("POST", "/ui/session", json: #"{"token": "\#(Self.secrets["rita"]!)"}"#,
                                                  headers: [("Origin", "http://evil.example")]))
        #expect(foreign.status == 403)
        let form = await router.handle(request("POST", "/ui/session", headers: [("Content-Type", "application/x-www-form-urlencoded")]))
        #expect(form.status == 415)
    }

    @Test func aReloadThatDropsOrChangesTheTokenEndsItsSessions() async throws {
        let (alice, _) = try await signIn("alice")
        let (rita, _) = try await signIn("rita")
        var changed = Self.tokens().filter { $0.name != "alice" }
        changed[0] = APIToken(name: "rita", secret: "rita-new-secret-0123456789", scopes: APIScopes([.read]))
        authenticator.replace(with: changed)
        #expect(await router.handle(request("GET", "/v1/alerts", cookie: alice)).status == 401)
        #expect(await router.handle(request("GET", "/v1/alerts", cookie: rita)).status == 401)
        #expect(await router.handle(request("GET", "/v1/alerts", bearer: Self.secrets["alice"])).status == 401)
        #expect(await router.handle(request("GET", "/v1/alerts", bearer: "rita-new-secret-0123456789")).status == 200)
        // Ended for good: a later reload restoring the tokens (a revert) brings no session back.
        authenticator.replace(with: Self.tokens())
        #expect(await router.handle(request("GET", "/v1/alerts", cookie: alice)).status == 401)
        #expect(await router.handle(request("GET", "/v1/alerts", cookie: rita)).status == 401)
    }

    /// A read-only token signing in a thousand times ends only its own
    /// oldest sessions, not everyone else's.
    @Test func oneTokenSigningInOverAndOverSignsNoOneElseOut() {
        let sessions = ConsoleSessions()
        let (alice, rita) = (Self.tokens()[0], Self.tokens()[1])
        let kept = sessions.open(for: alice).id
        let first = sessions.open(for: rita).id
        var last = first
        for _ in 0..<ConsoleSessions.capacity { last = sessions.open(for: rita).id }
        #expect(sessions.token(session: kept) == alice)
        #expect(sessions.token(session: last) == rita)
        #expect(sessions.token(session: first) == nil)
    }

    /// Ten wrong tokens from one address, and that address waits out the
    /// minute, even with a right one; another address is not held up, nor
    /// is loopback (a proxy in front puts every browser behind it).
    @Test func failedSignInsFromOneAddressAreThrottled() async throws {
        for address in ["192.0.2.9", "127.0.0.1", "::1"] {
            for _ in 0..<FailedTokenThrottle.maxFailures {
                let wrong = await router.handle(request("POST", "/ui/session", json: #"{"token": "guess-0123456789"}"#, from: address))
                #expect(wrong.status == 401)
            }
        }
        for address in ["127.0.0.1", "::1"] {
            let proxied = await router.handle(request("POST", "/ui/session", json: #"{"token": "\#(Self.secrets["rita"]!)"}"#, from: address))
            #expect(proxied.status == 200, "\(address)")
        }
        let held = await router.handle(request("POST", "/ui/session", json: #"{"token": "\#(Self.secrets["rita"]!)"}"#, from: "192.0.2.9"))
        #expect(held.status == 429)
        #expect(APIFixture.errorCode(held) == "too_many_sign_ins")
        #expect(Int(held.headers["Retry-After"] ?? "") ?? 0 > 0)
        let other = await router.handle(request("POST", "/ui/session", json: #"{"token": "\#(Self.secrets["rita"]!)"}"#, from: "192.0.2.8"))
        #expect(other.status == 200)
        // A bearer token is the same secret: wrong ones count with sign-ins, and
        // past the limit no token is taken from that address, a right one included.
        for _ in 0..<FailedTokenThrottle.maxFailures {
            #expect(await router.handle(request("GET", "/v1/alerts", bearer: "guess-0123456789", from: "198.51.100.7")).status == 401)
        }
        let guessed = await router.handle(request("GET", "/v1/alerts", bearer: Self.secrets["rita"], from: "198.51.100.7"))
        #expect(guessed.status == 429)
        #expect(APIFixture.errorCode(guessed) == "too_many_failed_tokens")
        #expect(Int(guessed.headers["Retry-After"] ?? "") ?? 0 > 0)
        #expect(await router.handle(request("POST", "/ui/session", json: #"{"token": "\#(Self.secrets["rita"]!)"}"#, from: "198.51.100.7")).status == 429)
        #expect(await router.handle(request("GET", "/v1/alerts", bearer: Self.secrets["rita"], from: "198.51.100.8")).status == 200)
        // Under a Host alertd does not answer to, a token is let in when it is
        // right: a wrong one counts all the same, and past the limit the answer
        // no longer tells a right token from a wrong one.
        func foreign(_ bearer: String?) -> HTTPRequest {
            var r = request("GET", "/v1/alerts", bearer: bearer, from: "203.0.113.5")
            r.headers.set("Host", "evil.invalid")
            return r
        }
        #expect(await router.handle(foreign(Self.secrets["rita"])).status == 200)
        for _ in 0..<FailedTokenThrottle.maxFailures { #expect(await router.handle(foreign("guess-0123456789")).status == 421) }
        #expect(await router.handle(foreign(Self.secrets["rita"])).status == 429)
        #expect(await router.handle(foreign("guess-0123456789")).status == 429)
        #expect(await router.handle(request("GET", "/v1/alerts", bearer: Self.secrets["rita"], from: "203.0.113.5")).status == 429)
        // An IPv6 host rotating through its /64 is one client.
        for i in 0..<FailedTokenThrottle.maxFailures {
            #expect(await router.handle(request("GET", "/v1/alerts", bearer: "guess-0123456789", from: "2001:db8:1:2::\(i + 1)")).status == 401)
        }
        #expect(await router.handle(request("GET", "/v1/alerts", bearer: Self.secrets["rita"], from: "2001:db8:1:2:ffff::9")).status == 429)
        #expect(await router.handle(request("GET", "/v1/alerts", bearer: Self.secrets["rita"], from: "2001:db8:1:3::1")).status == 200)
        #expect(await router.handle(request("GET", "/v1/alerts", bearer: Self.secrets["rita"], from: "::ffff:198.51.100.7")).status == 429)
        let throttle = FailedTokenThrottle()
        let now = Date()
        for _ in 0..<FailedTokenThrottle.maxFailures { throttle.failed(from: "::1", now: now) }
        #expect(throttle.retryAt(for: "::1", now: now) == now.addingTimeInterval(FailedTokenThrottle.window))
        #expect(throttle.retryAt(for: "::1", now: now.addingTimeInterval(FailedTokenThrottle.window)) == nil)
    }

    /// Guesses sent at once on many connections: each is judged only after
    /// the ones before it were counted, so no more than the limit are judged.
    @Test func parallelGuessesAreJudgedNoMoreThanTheLimit() {
        let throttle = FailedTokenThrottle()
        let judged = Mutex(0)
        let refused = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4 * FailedTokenThrottle.maxFailures) { _ in
            do throws(APIError) {
                try throttle.admit("192.0.2.44", code: "too_many_failed_tokens", message: { "wait \($0) s" }) { () throws(APIError) in
                    judged.withLock { $0 += 1 }
                    usleep(2_000)  // a slow judgement widens the window a check apart from its count left open
                    throw .unauthorized
                }
            } catch {
                if error.status == 429 { refused.withLock { $0 += 1 } }
            }
        }
        #expect(judged.withLock { $0 } == FailedTokenThrottle.maxFailures)
        #expect(refused.withLock { $0 } == 3 * FailedTokenThrottle.maxFailures)
    }

    /// A live event stream looks at its token again now and then. That look
    /// guesses nothing: other clients' wrong tokens from its address do not
    /// end it, and its own look with a token a reload removed is not counted
    /// against the address.
    @Test func aStreamsLookAgainAtItsTokenIsNotThrottled() async throws {
        let kept = Mutex<(@Sendable () -> Bool)?>(nil)
        var router = router
        router.add("GET", "/test/stream", access: .token(.read)) { req in
            kept.withLock { $0 = req.stillAllowed }
            return HTTPResponse(status: 200)
        }
        #expect(await router.handle(request("GET", "/test/stream", bearer: Self.secrets["rita"], from: "198.51.100.20")).status == 200)
        let stillAllowed = try #require(kept.withLock { $0 })
        for _ in 0..<FailedTokenThrottle.maxFailures {
            #expect(await router.handle(request("GET", "/v1/alerts", bearer: "guess-0123456789", from: "198.51.100.20")).status == 401)
        }
        #expect(stillAllowed(), "others' wrong tokens from the stream's address do not end it")

        #expect(await router.handle(request("GET", "/test/stream", bearer: Self.secrets["rita"], from: "198.51.100.21")).status == 200)
        let removed = try #require(kept.withLock { $0 })
        authenticator.replace(with: Self.tokens().filter { $0.name != "rita" } + [APIToken(name: "rita", secret: "rita-new-secret-0123456789", scopes: APIScopes([.read]))])
        for _ in 0..<(2 * FailedTokenThrottle.maxFailures) { #expect(!removed(), "a removed token ends the stream") }
        #expect(await router.handle(request("GET", "/v1/alerts", bearer: "rita-new-secret-0123456789", from: "198.51.100.21")).status == 200,
                "the stream's own looks were not counted against its address")
    }

    @Test func sessionsExpire() {
        let sessions = ConsoleSessions(lifetime: .seconds(60))
        let token = Self.tokens()[0]
        let now = Date()
        let (id, expires) = sessions.open(for: token, now: now)
        #expect(expires == now.addingTimeInterval(60))
        #expect(sessions.token(session: id, now: now.addingTimeInterval(59)) == token)
        #expect(sessions.token(session: id, now: now.addingTimeInterval(61)) == nil)
        #expect(sessions.token(session: id, now: now) == nil, "an expired session is gone, not just hidden")
    }

    /// The dead-deliveries page's query: a state that is not one is refused with the others.
    @Test func deliveryStateMustBeADeliveryState() async throws {
        let r = await router.handle(request("GET", "/v1/alerts?delivery_state=gone&limit=0", bearer: Self.secrets["rita"]))
        #expect(r.status == 400)
        let body = try HTTPErrorBody.decode(APIFixture.body(r))
        #expect(body.code == "invalid_query")
        #expect(body.details?.map(\.code) == ["invalid_delivery_state", "invalid_limit"])
        #expect(await router.handle(request("GET", "/v1/alerts?delivery_state=dead", bearer: Self.secrets["rita"])).status == 200)
        // Given twice, the second was neither checked nor used; only `label` repeats.
        for query in ["state=open&state=bogus", "limit=1000&limit=abc", "state=confirmed&state=open", "cursor=a&cursor=b"] {
            let twice = await router.handle(request("GET", "/v1/alerts?" + query, bearer: Self.secrets["rita"]))
            #expect(try HTTPErrorBody.decode(APIFixture.body(twice)).details?.first?.code == "repeated_parameter", "\(query)")
        }
        #expect(await router.handle(request("GET", "/v1/alerts?label=a=1&label=b=2", bearer: Self.secrets["rita"])).status == 200)
    }

    /// With no token configured TCP is open, and so is the console: nothing to sign in with.
    @Test func withoutTokensTheConsoleNeedsNoSignIn() async throws {
        let open = APIFixture.router()
        let me = await open.handle(request("GET", "/ui/session"))
        #expect(me.status == 200)
        #expect(APIFixture.json(me)?["session"] as? Bool == false)
        #expect(APIFixture.json(me)?["scopes"] as? [String] == ["read", "send", "decide", "admin"])
        let signIn = await open.handle(request("POST", "/ui/session", json: #"{"token": "anything-0123456789"}"#))
        #expect(signIn.status == 409)
        #expect(APIFixture.errorCode(signIn) == "no_tokens_configured")
    }

    /// Behind an https `public_url` the cookie is `Secure` and named
    /// `__Host-…`, which a browser takes only from a secure origin: a page
    /// on a plain-HTTP port of the host can no longer set it, and a cookie
    /// of the plain name is not read.
    @Test func theCookieIsSecureAndHostOnlyBehindAnHTTPSPublicURL() async throws {
        let router = APIFixture.router(links: APIFixture.signer, authenticator: authenticator)
        let r = await router.handle(request("POST", "/ui/session", json: #"{"token": "\#(Self.secrets["rita"]!)"}"#))
        let header = try #require(r.headers["Set-Cookie"])
        #expect(header.hasPrefix("__Host-alertd_session=") && header.contains("; Path=/") && header.hasSuffix("; Secure"), "\(header)")
        let id = String(header.dropFirst("__Host-alertd_session=".count).prefix { $0 != ";" })
        let hostOnly = await router.handle(request("GET", "/ui/session", headers: [("Cookie", "__Host-alertd_session=\(id)")]))
        #expect(APIFixture.json(hostOnly)?["name"] as? String == "rita")
        let plain = await router.handle(request("GET", "/ui/session", headers: [("Cookie", "alertd_session=\(id)")]))
        #expect(plain.status == 401)
    }

    @Test func consoleFilesCarryAStrictContentSecurityPolicy() async throws {
        for path in ["/ui/", "/ui/console.js", "/ui/console.css"] {
            let r = await router.handle(request("GET", path))
            #expect(r.status == 200, "\(path)")
            let csp = try #require(r.headers["Content-Security-Policy"])
            #expect(csp.contains("default-src 'self'") && !csp.contains("unsafe"), "\(csp)")
            #expect(r.headers["X-Content-Type-Options"] == "nosniff")
            #expect(r.headers["X-Frame-Options"] == "DENY")
        }
        let page = String(decoding: APIFixture.body(await router.handle(request("GET", "/ui/"))), as: UTF8.self)
        // Nothing inline for the policy to refuse: no script body, no style attribute or element.
        #expect(!page.contains("<script>") && !page.contains("style=") && !page.contains("<style"))
        #expect(await router.handle(request("GET", "/ui/nothing.js")).status == 404)
    }
}

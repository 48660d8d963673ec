import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdStore
@testable import AlertdDelivery
@testable import AlertdAPI

/// Who may call what: each route declares its access and the router enforces
/// it. Over TCP with a token configured, only health and the signed action
/// links are open; the Unix socket is trusted by its file mode.
@Suite struct APIAccessTests {
    static let router = APIFixture.router(token: APIFixture.token, links: APIFixture.signer)

    /// Every route with its path parameters filled in. `/v1/events` gets a
    /// bad `since`, answered before a stream is opened that nothing would end.
    static func target(_ route: APIRouter.Route) -> String {
        if route.pattern == "/v1/events" { return "/v1/events?since=never" }
        return route.pattern.replacingOccurrences(of: "{id}", with: APIFixture.unknownID).replacingOccurrences(of: "{action}", with: "confirm")
    }

    @Test func theAccessTable() {
        let table = Dictionary(uniqueKeysWithValues: Self.router.routes.map { ("\($0.method) \($0.pattern)", $0.access) })
        let open: [String: APIAccess] = [
            "GET /v1/health": .public,
            "GET /-/healthy": .public,
            "GET /-/ready": .public,
            "GET /v1/alerts/{id}/actions/{action}": .actionLink,
            "POST /v1/alerts/{id}/actions/{action}": .actionLink,
            "GET /ui": .public,
            "GET /ui/{file}": .public,
            "POST /ui/session": .public,
            "DELETE /ui/session": .public,
            // Sending, deciding and administering each need their own scope; reading the rest.
            "POST /v1/alerts": .token(.send),
            "POST /api/v2/alerts": .token(.send),
            "POST /v1/ingest/alertmanager": .token(.send),
            "POST /v1/alerts/{id}/confirm": .token(.decide),
            "POST /v1/alerts/{id}/cancel": .token(.decide),
            "POST /v1/alerts/{id}/resolve": .token(.decide),
            "POST /v1/alerts/resolve": .token(.decide),
            "POST /v1/alerts/{id}/replay": .token(.admin),
            "POST /v1/deliveries/replay": .token(.admin),
            "POST /api/v2/silences": .token(.admin),
            "DELETE /api/v2/silence/{id}": .token(.admin),
        ]
        for (route, access) in table {
            #expect(access == open[route, default: .token(.read)], "\(route)")
            if access.scope == .read { #expect(route.hasPrefix("GET "), "\(route)") }
        }
        #expect(table["GET /metrics"] == .token(.read))
        #expect(table["GET /v1/events"] == .token(.read))
    }

    @Test func aTokenRouteRefusesTCPWithoutTheToken() async throws {
        let routes = Self.router.routes.filter { $0.access.scope != nil }
        #expect(routes.count == 24)
        for route in routes {
            // No token, and a token refused: each told as it is (the second one's message says it was sent).
            let callers: [(APIFixture.Caller, APIError)] = [
                (.tcp(), .unauthorized), (.tcp(authorization: "Bearer s3cret-token-0123456780"), .tokenRefused),
                (.tcp(authorization: APIFixture.token), .tokenRefused),
            ]
            for (caller, error) in callers {
                let response = await Self.router.handle(APIFixture.request(route.method, Self.target(route), as: caller))
                #expect(response.status == 401, "\(route.method) \(route.pattern) as \(caller)")
                #expect(response.headers["WWW-Authenticate"] == error.headers["WWW-Authenticate"])
                #expect(response.headers["WWW-Authenticate"]?.hasPrefix(#"Bearer realm="alertd""#) == true)
                switch route.errors {
                case .alertd:
                    #expect(APIFixture.errorCode(response) == "unauthorized")
                    #expect(HTTPErrorBody.decodeMessage(response) == error.message)
                case .alertmanager:
                    // Alertmanager's clients read a JSON string.
                    #expect(try JSONDecoder().decode(String.self, from: APIFixture.body(response)) == error.message)
                }
            }
            for caller: APIFixture.Caller in [.tcpWithToken, .tcp(authorization: "bearer \(APIFixture.token)"), .socket] {
                let response = await Self.router.handle(APIFixture.request(route.method, Self.target(route), as: caller))
                #expect(response.status != 401, "\(route.method) \(route.pattern) as \(caller)")
            }
        }
    }

    /// An event id is digits (docs/API.md); `+5` and `-0` are refused, not read as numbers.
    @Test func anEventIdIsDigitsOnly() async throws {
        for since in ["%2B5", "-0", "5x", "", "0x10", "1&since=2"] {
            let response = await Self.router.handle(APIFixture.request("GET", "/v1/events?since=\(since)"))
            #expect(response.status == 400, "\(since)")
            #expect(APIFixture.errorCode(response) == "invalid_query", "\(since)")
        }
        // A listing's limit too: `+5` was read as 5.
        let signed = await Self.router.handle(APIFixture.request("GET", "/v1/alerts?limit=%2B5"))
        #expect(signed.status == 400)
    }

    @Test func openRoutesNeedNoBearerToken() async throws {
        #expect(await Self.router.handle(APIFixture.request("GET", "/v1/health", as: .tcp())).status == 200)
        #expect(await Self.router.handle(APIFixture.request("HEAD", "/v1/health", as: .tcp())).status == 200)
        // The link's own signature is checked instead: a valid one reaches the store...
        let link = await Self.router.handle(APIFixture.request("GET", APIFixture.actionLink(APIFixture.unknownID), as: .tcp()))
        #expect(link.status == 404)
        #expect(APIFixture.errorCode(link) == "alert_not_found")
        // ...and a forged one is refused by the handler, not by the token check.
        let forged = await Self.router.handle(APIFixture.request(
            "POST", "/v1/alerts/\(APIFixture.unknownID)/actions/confirm?expires=9999999999&token=forged", as: .tcp()))
        #expect(forged.status == 403)
        #expect(APIFixture.errorCode(forged) == "invalid_action_link")
    }

    /// An unknown path tells an anonymous caller nothing; a wrong method on an
    /// open path may say which methods it takes.
    @Test func pathsNoRouteServes() async throws {
        let unknown = await Self.router.handle(APIFixture.request("GET", "/v1/nothing", as: .tcp()))
        #expect(unknown.status == 401)
        let unknownWithToken = await Self.router.handle(APIFixture.request("GET", "/v1/nothing", as: .tcpWithToken))
        #expect(unknownWithToken.status == 404)
        #expect(APIFixture.errorCode(unknownWithToken) == "not_found")

        #expect(await Self.router.handle(APIFixture.request("DELETE", "/v1/alerts", as: .tcp())).status == 401)
        let wrongMethod = await Self.router.handle(APIFixture.request("DELETE", "/v1/alerts", as: .tcpWithToken))
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["Allow"] == "POST, GET")

        let healthPost = await Self.router.handle(APIFixture.request("POST", "/v1/health", as: .tcp()))
        #expect(healthPost.status == 405)
        #expect(healthPost.headers["Allow"] == "GET")
        let linkDelete = await Self.router.handle(APIFixture.request("DELETE", APIFixture.actionLink(APIFixture.unknownID), as: .tcp()))
        #expect(linkDelete.status == 405)
        // An encoded slash does not part a segment: `<id>%2Fconfirm` confirmed
        // the alert. It is one segment, which only GET takes (a 404 as the
        // alert's confirm, had it been parted).
        for encoded in ["%2F", "%2f"] {
            let slash = await Self.router.handle(
                APIFixture.request("POST", "/v1/alerts/\(APIFixture.unknownID)\(encoded)confirm", json: "{}", as: .tcpWithToken))
            #expect(slash.status == 405, "\(encoded)")
            #expect(slash.headers["Allow"] == "GET", "\(encoded)")
        }
        #expect(HTTPRequestTarget("/v1/a%2Fb%20c").path == "/v1/a%2Fb c")
    }

    @Test func withoutAConfiguredTokenTCPIsOpen() async throws {
        let router = APIFixture.router()
        #expect(await router.handle(APIFixture.request("GET", "/v1/alerts", as: .tcp())).status == 200)
        #expect(await router.handle(APIFixture.request("GET", "/v1/nothing", as: .tcp())).status == 404)
    }

    /// A decision records who took it as the transport and the token check vouch for it.
    @Test func theDecisionsActorIsHowTheCallerGotIn() async {
        func actor(router: APIRouter, _ caller: APIFixture.Caller) async -> String? {
            let submitted = await router.handle(APIFixture.request("POST", "/v1/alerts", json: #"{"title": "Deploy?"}"#, as: caller))
            guard let id = APIFixture.json(submitted)?["id"] as? String else { return nil }
            // The JSON type without a body: over TCP without a token it is what shows no web form sent it.
            let decided = await router.handle(APIFixture.request("POST", "/v1/alerts/\(id)/confirm", json: "", as: caller))
            return (APIFixture.json(decided)?["decision"] as? [String: Any])?["actor"] as? String
        }
        #expect(await actor(router: Self.router, .tcpWithToken) == "token")
        #expect(await actor(router: Self.router, .socket) == "uid:1000")
        #expect(await actor(router: APIFixture.router(), .tcp()) == "tcp:127.0.0.1")
    }

    /// A comment's limit counts Unicode scalars, as every limit does: `a`
    /// and 300,000 combining marks was one character, and its 600 KB event
    /// outgrew every event stream's buffer.
    @Test func aDecisionsCommentIsCountedInScalars() async throws {
        let router = APIFixture.router()
        let submitted = await router.handle(APIFixture.request("POST", "/v1/alerts", json: #"{"title": "Deploy?"}"#, as: .socket))
        let id = try #require(APIFixture.json(submitted)?["id"] as? String)
        let marks = "a" + String(repeating: "\\u0301", count: 1_000)
        let refused = await router.handle(APIFixture.request("POST", "/v1/alerts/\(id)/confirm", json: #"{"comment": "\#(marks)"}"#, as: .socket))
        #expect(refused.status == 400)
        #expect(APIFixture.errorCode(refused) == "invalid_body")
        let open = await router.handle(APIFixture.request("GET", "/v1/alerts/\(id)", as: .socket))
        #expect(APIFixture.json(open)?["state"] as? String == "open")
        let decided = await router.handle(APIFixture.request("POST", "/v1/alerts/\(id)/confirm", json: #"{"comment": "ok\u0301"}"#, as: .socket))
        #expect(decided.status == 200)
    }
}

private extension HTTPErrorBody {
    static func decodeMessage(_ response: HTTPResponse) -> String? {
        try? decode(APIFixture.body(response)).message
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdStore
@testable import AlertdSQLiteStore
@testable import AlertdDelivery
@testable import AlertdAPI

/// A store that fails makes every route that reads or writes it answer 503
/// with the store's code and a `Retry-After`: never a 404, which would tell
/// a client an alert is gone when it could not even be looked at.
@Suite struct StoreFailureAnswerTests {
    /// One request that reaches the store, and the route it goes to.
    struct Call: Sendable, CustomTestStringConvertible {
        var method: String
        var pattern: String
        var target: String
        var json: String?

        var testDescription: String { "\(method) \(target.split(separator: "?").first ?? "")" }
    }

    static let id = APIFixture.unknownID

    static let calls: [Call] = [
        Call(method: "POST", pattern: "/v1/alerts", target: "/v1/alerts", json: #"{"title": "Disk full"}"#),
        Call(method: "POST", pattern: "/v1/alerts", target: "/v1/alerts", json: #"[{"title": "Disk full"}]"#),
        Call(method: "GET", pattern: "/v1/alerts", target: "/v1/alerts?state=open"),
        Call(method: "GET", pattern: "/v1/alerts/{id}", target: "/v1/alerts/\(id)"),
        Call(method: "POST", pattern: "/v1/alerts/{id}/confirm", target: "/v1/alerts/\(id)/confirm"),
        Call(method: "POST", pattern: "/v1/alerts/{id}/cancel", target: "/v1/alerts/\(id)/cancel", json: #"{"comment": "not now"}"#),
        Call(method: "POST", pattern: "/v1/alerts/{id}/resolve", target: "/v1/alerts/\(id)/resolve"),
        Call(method: "POST", pattern: "/v1/alerts/resolve", target: "/v1/alerts/resolve", json: #"{"dedup_key": "disk-full:db1"}"#),
        Call(method: "POST", pattern: "/v1/alerts/{id}/replay", target: "/v1/alerts/\(id)/replay"),
        Call(method: "POST", pattern: "/v1/deliveries/replay", target: "/v1/deliveries/replay"),
        Call(method: "GET", pattern: "/v1/alerts/{id}/actions/{action}", target: APIFixture.actionLink(id)),
        Call(method: "POST", pattern: "/v1/alerts/{id}/actions/{action}", target: APIFixture.actionLink(id, .cancel)),
        Call(method: "GET", pattern: "/v1/events", target: "/v1/events"),
        Call(method: "GET", pattern: "/v1/events", target: "/v1/events?since=now"),
    ]

    @Test(arguments: calls) func aFailingStoreIsA503WithTheStoresCode(_ call: Call) async throws {
        let router = APIFixture.router(store: FailingAlertStore(), links: APIFixture.signer)
        let response = await router.handle(APIFixture.request(call.method, call.target, json: call.json))
        #expect(response.status == 503)
        #expect(APIFixture.errorCode(response) == "store_io")
        #expect(response.headers["Retry-After"] == "5")
        #expect(response.headers["Content-Type"] == "application/json")

        // On the socket, the store's own words; over TCP (an action link needs
        // no token) the kind of failure, not what the store quotes of its server or file.
        let message = try HTTPErrorBody.decode(APIFixture.body(response)).message
        #expect(message.contains("disk I/O error"))
        let tcp = await router.handle(APIFixture.request(call.method, call.target, json: call.json, as: .tcp(authorization: "Bearer any")))
        #expect(tcp.status == 503 && APIFixture.errorCode(tcp) == "store_io" && tcp.headers["Retry-After"] == "5")
        let tcpMessage = try HTTPErrorBody.decode(APIFixture.body(tcp)).message
        #expect(!tcpMessage.contains("disk I/O error") && tcpMessage.contains("alertd's log says why"), "\(tcpMessage)")

        // And the reference says so.
        let operation = try OpenAPIDocumentTests.paths()[call.pattern]?[call.method.lowercased()] as? [String: Any]
        #expect((operation?["responses"] as? [String: Any])?["503"] != nil, "docs/openapi.json does not document 503 on \(call.method) \(call.pattern)")
    }

    /// The same calls on a store that works, for an alert it does not hold:
    /// the 404s the failing store must not be mistaken for.
    @Test func aStoreThatAnswersStillGives404ForAnUnknownAlert() async throws {
        let router = APIFixture.router(links: APIFixture.signer)
        for call in Self.calls where call.pattern.contains("{id}") {
            let response = await router.handle(APIFixture.request(call.method, call.target, json: call.json))
            #expect(response.status == 404, "\(call.testDescription)")
            #expect(APIFixture.errorCode(response) == "alert_not_found", "\(call.testDescription)")
        }
    }

    /// A query too large for SQLite (one condition per `label`, under a
    /// depth limit of 1,000) is the client's mistake, a 400 before the store
    /// is asked, not a 503 that makes clients retry for ever.
    @Test func aListingWithTooManyLabelFiltersIsRefusedNotAStoreFailure() async throws {
        let dir = TemporaryDirectory()
        let router = APIFixture.router(store: try SQLiteAlertStore(path: dir.path + "/alertd.db"))
        func listing(_ count: Int) -> String { "/v1/alerts?" + (0..<count).map { "label=l\($0)=v" }.joined(separator: "&") }
        #expect(await router.handle(APIFixture.request("GET", listing(AlertsAPI.maxLabelFilters))).status == 200)
        let refused = await router.handle(APIFixture.request("GET", listing(1_000)))
        #expect(refused.status == 400)
        #expect(try HTTPErrorBody.decode(APIFixture.body(refused)).details?.map(\.code) == ["too_many_labels"])
    }

    /// A store that needs an operator is not worth asking again in seconds.
    @Test func aStoreThatNeedsAnOperatorAsksForALongerWait() async throws {
        let corrupt = FailingAlertStore(error: StoreError(code: .corrupt, message: "Stored data could not be read back."))
        let response = await APIFixture.router(store: corrupt).handle(APIFixture.request("GET", "/v1/alerts/\(Self.id)"))
        #expect(response.status == 503)
        #expect(APIFixture.errorCode(response) == "store_corrupt")
        #expect(response.headers["Retry-After"] == "60")
    }

    /// A browser pressing an action page's button gets a page, even when the store is down.
    @Test func anActionLinkFromABrowserAnswersAPage() async throws {
        let router = APIFixture.router(store: FailingAlertStore(), links: APIFixture.signer)
        var request = APIFixture.request("POST", APIFixture.actionLink(Self.id))
        request.headers.add("Accept", "text/html")
        let response = await router.handle(request)
        #expect(response.status == 503)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(String(decoding: APIFixture.body(response), as: UTF8.self).contains("That did not work (HTTP 503)."))
    }

    @Test func aRefusedSubmissionIsCountedByItsCode() async throws {
        let metrics = DaemonMetrics()
        let router = APIFixture.router(store: FailingAlertStore(), metrics: metrics)
        _ = await router.handle(APIFixture.request("POST", "/v1/alerts", json: #"{"title": "Disk full"}"#))
        _ = await router.handle(APIFixture.request("POST", "/v1/alerts", json: #"{"title": ""}"#))
        let families = try ExpositionParser.parse(metrics.render(counts: nil))
        func rejected(_ reason: String) -> Double? {
            families["alertd_alerts_rejected_total"]?.samples.first { $0.labels == ["reason": reason] }?.value
        }
        #expect(rejected("store_io") == 1)
        #expect(rejected("invalid_alert") == 1)
    }

    /// Health reports a failing store in its own shape rather than as an error.
    @Test func healthReportsTheStoreInItsOwnShape() async throws {
        let response = await APIFixture.router(store: FailingAlertStore()).handle(APIFixture.request("GET", "/v1/health"))
        #expect(response.status == 503)
        #expect(APIFixture.json(response)?["store"] as? String == "unavailable")
        #expect((APIFixture.json(response)?["reason"] as? String)?.contains("disk I/O error") == true)
        // Over TCP, without a token, the reason names no path or server.
        let tcp = await APIFixture.router(store: FailingAlertStore()).handle(APIFixture.request("GET", "/v1/health", as: .tcp(authorization: "Bearer any")))
        #expect(tcp.status == 503)
        #expect(APIFixture.json(tcp)?["reason"] as? String == "The store does not answer; alertd's log says why.")
    }

    /// A store that does not answer at all (a frozen disk) is reported
    /// within the probe's deadline, and the probes after at once, while
    /// the one read is still out; `/metrics` still answers. They all hung.
    @Test func theProbesAnswerWhileTheStoreDoesNot() async throws {
        let router = APIFixture.router(store: FailingAlertStore(countsHang: true))
        let clock = ContinuousClock()
        var health = HTTPResponse(status: 0)
        // Probes at once share the one read, and all are let go at its deadline.
        let first = await clock.measure {
            let answers = await withTaskGroup(of: HTTPResponse.self) { group in
                for _ in 0..<8 { group.addTask { await router.handle(APIFixture.request("GET", "/v1/health")) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.allSatisfy { $0.status == 503 })
            health = answers[0]
        }
        #expect(health.status == 503 && first < .seconds(10), "\(first)")
        #expect(APIFixture.json(health)?["store"] as? String == "unavailable")
        let reason = APIFixture.json(health)?["reason"] as? String
        #expect(reason?.contains("has not answered for") == true && reason?.contains("frozen") == true, "\(reason ?? "")")
        var ready = HTTPResponse(status: 0), metrics = HTTPResponse(status: 0)
        let later = await clock.measure {
            ready = await router.handle(APIFixture.request("GET", "/-/ready", as: .tcp(authorization: "Bearer any")))
            metrics = await router.handle(APIFixture.request("GET", "/metrics"))
        }
        #expect(ready.status == 503 && metrics.status == 200 && later < .seconds(1), "\(ready.status) \(metrics.status) \(later)")
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdHTTPServer
@testable import AlertdLogging
@testable import AlertdStore
@testable import AlertdSQLiteStore
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

#if canImport(Glibc)
import Glibc
#endif

/// Confirm and cancel end to end: decisions through the API and signed
/// links, handler calls, expiry, escalation, the URL policy and the event
/// stream, against the real daemon.
@Suite struct ActionsIntegrationTests {
    /// A daemon whose handler calls may reach the test's loopback receivers.
    func daemon(allow: [String] = ["127.0.0.1"], extra: [String: Any] = [:]) throws -> TestDaemon {
        var config: [String: Any] = [
            "actions": ["allow": allow, "timeout": "2s"],
            "retry": ["initial_delay": "100ms", "factor": 2, "max_delay": "500ms", "jitter": false],
        ]
        for (k, v) in extra { config[k] = v }
        return try TestDaemon(config: config)
    }

    func json(_ r: HTTPClientResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: r.body)) as? [String: Any] ?? [:]
    }

    func decisionAlert(_ handler: WebhookReceiver, title: String = "Deploy to prod?", extra: [String: Any] = [:]) -> [String: Any] {
        var alert: [String: Any] = [
            "title": title,
            "confirm": ["label": "Deploy", "url": handler.url + "/confirm"],
            "cancel": ["label": "Abort", "url": handler.url + "/cancel"],
        ]
        for (k, v) in extra { alert[k] = v }
        return alert
    }

    /// A handler answering `503` with `Retry-After: 9223372036854775807`
    /// crashed the daemon where it gave up (the wait rounded to Int64), and
    /// again after every restart while the call stayed pending: anyone who
    /// may send an alert names its handler, so anyone could keep alertd down.
    @Test func aHandlersEndlessRetryAfterEndsTheCallNotTheDaemon() async throws {
        let (server, base) = try startLoopbackServer { _ in
            HTTPResponse(status: 503, headers: ["Retry-After": "9223372036854775807"], body: Data("busy".utf8))
        }
        let d = try daemon()
        try await d.start()
        let id = try await d.send(["title": "endless", "confirm": ["label": "Go", "url": base + "/hook"]])
        #expect(try await d.request("POST", "/v1/alerts/\(id)/confirm").status == 200)
        var delivery: [String: Any] = [:]
        let ended = try await eventually(.seconds(10)) {
            delivery = (try await d.show(id)["deliveries"] as? [[String: Any]] ?? []).first { $0["presenter"] as? String == "handler:confirm" } ?? [:]
            return delivery["state"] as? String == "dead"
        }
        #expect(ended, "\(delivery)")
        #expect((delivery["last_error"] as? String)?.contains("the receiver asked to retry after 36500d") == true, "\(delivery)")
        #expect(try await d.request("GET", "/v1/health").status == 200)
        await server.stop()
    }

    @Test func eachWayOfConfirmingCallsTheHandlerOnceAndLaterDecisionsGet409() async throws {
        let handler = try WebhookReceiver()
        let chat = try WebhookReceiver()
        let d = try linkingDaemon(chat: chat)
        try await d.start()

        // Through the API.
        let viaAPI = try await d.send(decisionAlert(handler))
        let confirmed = try await d.request("POST", "/v1/alerts/\(viaAPI)/confirm", json: ["comment": "ship it"])
        #expect(confirmed.status == 200)
        #expect(json(confirmed)["state"] as? String == "confirmed")
        #expect((json(confirmed)["decision"] as? [String: Any])?["actor"] as? String == "uid:\(getuid())")
        // Through a signed link, as a chat button would.
        let viaLink = try await d.send(decisionAlert(handler, title: "second"))
        let link = try await actionLink(chat, viaLink, "confirm")
        #expect(link.hasPrefix("/v1/alerts/\(viaLink)/actions/confirm?expires="))
        let linked = try await d.request("POST", link, tcp: true)
        #expect(linked.status == 200, "\(String(decoding: linked.body, as: UTF8.self))")

        #expect(await handler.wait { $0.count == 2 })
        for id in [viaAPI, viaLink] {
            let calls = handler.received.filter { $0.alertID == id }
            #expect(calls.count == 1)
            let call = try #require(calls.first)
            #expect(call.request.path == "/hook/confirm")
            #expect(call.json["type"] as? String == "decision")
            let decision = try #require(call.json["decision"] as? [String: Any])
            #expect(decision["outcome"] as? String == "confirmed")
            #expect(decision["action"] as? String == "confirm")
            #expect(call.request.headers["webhook-id"] == "\(id).confirm")
        }
        let byLink = try #require(handler.received.first { $0.alertID == viaLink }?.json["decision"] as? [String: Any])
        #expect(byLink["by"] as? String == "link")
        let byAPI = try #require(handler.received.first { $0.alertID == viaAPI }?.json["decision"] as? [String: Any])
        #expect(byAPI["comment"] as? String == "ship it")

        // Second decisions: 409 with who decided, and no call.
        let again = try await d.request("POST", "/v1/alerts/\(viaAPI)/confirm")
        #expect(again.status == 409)
        #expect((json(again)["error"] as? [String: Any])?["code"] as? String == "already_decided")
        #expect((json(again)["alert"] as? [String: Any])?["state"] as? String == "confirmed")
        #expect(try await d.request("POST", "/v1/alerts/\(viaAPI)/cancel").status == 409)
        #expect(try await d.request("POST", link, tcp: true).status == 409)
        try await Task.sleep(for: .milliseconds(300))
        #expect(handler.received.count == 2)
        await handler.stop()
        await chat.stop()
    }

    /// A daemon that offers action links and delivers every alert to a chat receiver.
    func linkingDaemon(chat: WebhookReceiver) throws -> TestDaemon {
        try daemon(extra: [
            "api": ["public_url": "$BASE_URL"],
            "presenters": ["chat": ["type": "webhook", "url": chat.url]],
        ])
    }

    /// The signed link for `action`, as the chat receiver got it in the webhook payload.
    func actionLink(_ chat: WebhookReceiver, _ id: String, _ action: String) async throws -> String {
        _ = await chat.wait { $0.contains { $0.alertID == id } }
        guard let payload = chat.received.first(where: { $0.alertID == id })?.json,
              let alert = payload["alert"] as? [String: Any], let a = alert[action] as? [String: Any],
              let link = a["link"] as? String else {
            throw TestDaemon.Failure("no \(action) link for \(id) in the webhook payload")
        }
        return Self.pathAndQuery(link)
    }

    static func pathAndQuery(_ url: String) -> String {
        let c = URLComponents(string: url)!
        return c.path + "?" + (c.percentEncodedQuery ?? "")
    }

    /// A handler URL's `user:password@` is used for the call (as HTTP basic
    /// auth) and shown nowhere: not by the API, not in a presenter's payload,
    /// not by `alertctl show`, not to the handler itself. Its query's values
    /// (a signed `?sig=`) are the handler's alone too.
    @Test func handlerCredentialsAreUsedForTheCallAndShownNowhere() async throws {
        let handler = try WebhookReceiver()
        let chat = try WebhookReceiver()
        let d = try linkingDaemon(chat: chat)
        try await d.start()
        let secretURL = handler.url.replacingOccurrences(of: "http://", with: "http://ops:s3cret@") + "/confirm?sig=q-s3cret&job=7"
        let shownURL = handler.url.replacingOccurrences(of: "http://", with: "http://***@") + "/confirm?sig=***&job=***"
        let id = try await d.send(["title": "Deploy?", "confirm": ["label": "Deploy", "url": secretURL]])

        let detail = try await d.request("GET", "/v1/alerts/\(id)")
        let list = try await d.request("GET", "/v1/alerts")
        for body in [detail.body, list.body] { #expect(!String(decoding: body, as: UTF8.self).contains("s3cret")) }
        let spec = try #require(json(detail)["spec"] as? [String: Any])
        #expect((spec["confirm"] as? [String: Any])?["url"] as? String == shownURL)
        let shown = try await d.alertctl(["show", id])
        #expect(shown.exitCode == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains(shownURL) && !shown.stdout.contains("s3cret"), "\(shown.stdout)")

        #expect(await chat.wait { $0.contains { $0.alertID == id } })
        let payload = try #require(chat.received.first { $0.alertID == id })
        #expect(!String(decoding: payload.request.body, as: UTF8.self).contains("s3cret"))
        #expect(((payload.json["alert"] as? [String: Any])?["confirm"] as? [String: Any])?["url"] as? String == shownURL)

        #expect(try await d.request("POST", "/v1/alerts/\(id)/confirm").status == 200)
        #expect(await handler.wait { $0.count == 1 })
        let call = try #require(handler.received.first)
        #expect(call.request.headers["authorization"] == "Basic " + Data("ops:s3cret".utf8).base64EncodedString())
        #expect(call.request.path.hasSuffix("/confirm") && call.request.query == "sig=q-s3cret&job=7", "\(call.request.path) \(call.request.query)")
        #expect(!String(decoding: call.request.body, as: UTF8.self).contains("s3cret"))
        await handler.stop()
        await chat.stop()
    }

    /// A `GET` call has no body, so its signature covers its query, and
    /// alertd's parameters replace a sender's of the same name. Appended,
    /// the sender's `decision=cancelled&by=mallory` came first and was what
    /// a handler read; the signature covered a body never sent, so nothing
    /// told a handler alertd's call from anybody's; the rebuilt query
    /// decoded `%2B` and `%3B` a template had encoded; and a `;` kept let a
    /// parser that splits on it read a `by` of the sender's.
    @Test func aGETHandlerCallIsSignedOverItsQueryAndNamesTheDecisionOnce() async throws {
        let secret = "whsec_" + Data("a GET handler's secret".utf8).base64EncodedString()
        let handler = try WebhookReceiver()
        var config = ["allow": ["127.0.0.1"], "timeout": "2s", "secret": secret] as [String: Any]
        config["max_concurrency"] = 2
        let d = try daemon(extra: ["actions": config])
        try await d.start()
        let url = handler.url + "/confirm?decision=cancelled&v=a%2Bb%3Bc&by=mallory&w=1;by=semi&alert_id=00000000-0000-7000-8000-000000000000"
        let id = try await d.send(["title": "Deploy?", "confirm": ["label": "Deploy", "url": url, "method": "GET"]])
        #expect(try await d.request("POST", "/v1/alerts/\(id)/confirm").status == 200)
        #expect(await handler.wait { $0.count == 1 })
        let call = try #require(handler.received.first).request
        #expect(call.method == "GET")
        #expect(call.body.isEmpty)
        // A `;` kept is encoded: split on `;` too, `w=1;by=semi` had been a `by` of the sender's.
        #expect(call.query == "v=a%2Bb%3Bc&w=1%3Bby=semi&alert_id=\(id)&decision=confirmed&by=uid%3A\(getuid())", "\(call.query)")
        let signer = try StandardWebhookSigner(secret: secret)
        let webhookID = try #require(call.headers["webhook-id"])
        let timestamp = try #require(call.headers["webhook-timestamp"].flatMap { Int64($0) })
        #expect(signer.verify(signatureHeader: call.headers["webhook-signature"] ?? "", id: webhookID, timestamp: timestamp,
                              body: Data(call.query.utf8)))
        #expect(call.headers["content-type"] == nil)
        await handler.stop()
    }

    @Test func aHundredRacingDecisionsCallOneHandlerOnce() async throws {
        let handler = try WebhookReceiver()
        let d = try daemon()
        try await d.start()
        let id = try await d.send(decisionAlert(handler))
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<100 {
                group.addTask { try await d.request("POST", "/v1/alerts/\(id)/\(i.isMultiple(of: 2) ? "confirm" : "cancel")").status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 200 }.count == 1)
        #expect(statuses.filter { $0 == 409 }.count == 99)
        #expect(await handler.wait { $0.count >= 1 })
        try await Task.sleep(for: .milliseconds(400))
        #expect(handler.received.count == 1)
        await handler.stop()
    }

    @Test func aDecisionAcknowledgedBeforeKillNineStillCallsItsHandlerOnce() async throws {
        let port = try TestDaemon.freePort()
        let url = "http://127.0.0.1:\(port)/hook"
        let d = try daemon()
        try await d.start()
        let id = try await d.send(["title": "Deploy?", "confirm": ["label": "Deploy", "url": url + "/confirm"]])
        // The handler is down: the call fails and waits for a retry.
        #expect(try await d.request("POST", "/v1/alerts/\(id)/confirm").status == 200)
        await d.kill9()
        let handler = try WebhookReceiver(port: port)
        try await d.start()
        #expect(await handler.wait(timeout: .seconds(10)) { $0.count >= 1 })
        try await Task.sleep(for: .milliseconds(800))
        let calls = handler.received.filter { $0.alertID == id }
        #expect(calls.count == 1)
        #expect(calls.first?.request.headers["webhook-id"] == "\(id).confirm")
        await handler.stop()
    }

    @Test func expiryCallsCancelWithReasonExpiredAndEscalationFiresOnce() async throws {
        let handler = try WebhookReceiver()
        let pager = try WebhookReceiver()
        let d = try daemon(extra: [
            "presenters": [
                "log": ["type": "log", "path": "alerts.log"],
                "pager": ["type": "webhook", "url": pager.url],
            ],
            "routes": [["match": ["labels": ["team": "ops"]], "presenters": ["log"], "escalate": ["after": "1s", "presenters": ["pager"]]]],
            "default_route": ["presenters": ["log"]],
        ])
        try await d.start()
        let expiring = try await d.send(decisionAlert(handler, extra: ["expires_after": 1]))
        let escalating = try await d.send(["title": "still broken", "labels": ["team": "ops"]])
        let settled = try await d.send(["title": "fixed fast", "labels": ["team": "ops"]])
        #expect(try await d.request("POST", "/v1/alerts/\(settled)/resolve").status == 200)

        #expect(await handler.wait(timeout: .seconds(5)) { $0.count >= 1 })
        let call = try #require(handler.received.first)
        #expect(call.request.path == "/hook/cancel")
        let decision = try #require(call.json["decision"] as? [String: Any])
        #expect(decision["outcome"] as? String == "expired")
        #expect(decision["reason"] as? String == "expired")
        #expect(try await d.show(expiring)["state"] as? String == "expired")

        #expect(await pager.wait(timeout: .seconds(5)) { $0.count >= 1 })
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(pager.received.map(\.alertID) == [escalating])
        await handler.stop()
        await pager.stop()
    }

    /// An escalation still to come follows its route as reloaded: taken out
    /// of the route (with its presenter), it fired all the same, and the
    /// delivery to the presenter no longer configured ended dead; moved to
    /// another presenter, it went to the old one.
    @Test func escalationsStillToComeFollowAReload() async throws {
        let pager = try WebhookReceiver()
        let oncall = try WebhookReceiver()
        func config(_ routes: [[String: Any]], presenters: [String: Any]) -> [String: Any] {
            ["presenters": presenters.merging(["log": ["type": "log", "path": "alerts.log"]]) { a, _ in a },
             "routes": routes, "default_route": ["presenters": ["log"]]]
        }
        let both: [String: Any] = ["pager": ["type": "webhook", "url": pager.url], "oncall": ["type": "webhook", "url": oncall.url]]
        let d = try daemon(extra: config([
            ["match": ["labels": ["team": "ops"]], "presenters": ["log"], "escalate": ["after": "2s", "presenters": ["pager"]]],
            ["match": ["labels": ["team": "db"]], "presenters": ["log"], "escalate": ["after": "2s", "presenters": ["pager"]]],
        ], presenters: both))
        try await d.start()
        let dropped = try await d.send(["title": "ops", "labels": ["team": "ops"]])
        let moved = try await d.send(["title": "db", "labels": ["team": "db"]])
        try await d.reload(config([
            ["match": ["labels": ["team": "ops"]], "presenters": ["log"]],
            ["match": ["labels": ["team": "db"]], "presenters": ["log"], "escalate": ["after": "2s", "presenters": ["oncall"]]],
        ], presenters: ["oncall": ["type": "webhook", "url": oncall.url]]))
        #expect(d.log.contains("escalations still to come follow their routes as configured"), "\(d.log)")
        #expect(await oncall.wait(timeout: .seconds(10)) { $0.count >= 1 })
        try await Task.sleep(for: .seconds(1))
        #expect(oncall.received.map(\.alertID) == [moved])
        #expect(pager.received.isEmpty)
        let presenters = (try await d.show(dropped)["deliveries"] as? [[String: Any]] ?? []).compactMap { $0["presenter"] as? String }
        #expect(presenters == ["log"])
        await pager.stop()
        await oncall.stop()
    }

    @Test func aTamperedOrExpiredLinkIs403AndChangesNothing() async throws {
        let handler = try WebhookReceiver()
        let chat = try WebhookReceiver()
        let d = try linkingDaemon(chat: chat)
        try await d.start()
        let id = try await d.send(decisionAlert(handler))
        let link = try await actionLink(chat, id, "confirm")
        let parts = URLComponents(string: "http://x" + link)!
        let token = parts.queryItems!.first { $0.name == "token" }!.value!
        let expires = parts.queryItems!.first { $0.name == "expires" }!.value!
        let tampered = String(token.dropLast()) + (token.hasSuffix("A") ? "B" : "A")
        let past = String(Int(Date().timeIntervalSince1970) - 10)
        let variants = [
            "/v1/alerts/\(id)/actions/confirm?expires=\(expires)&token=\(tampered)",
            "/v1/alerts/\(id)/actions/cancel?expires=\(expires)&token=\(token)",
            "/v1/alerts/\(id)/actions/confirm?expires=\(past)&token=\(token)",
            "/v1/alerts/\(id)/actions/confirm",
        ]
        for v in variants {
            let r = try await d.request("POST", v, tcp: true)
            #expect(r.status == 403, "\(v)")
        }
        #expect(try await d.show(id)["state"] as? String == "open")
        #expect(handler.received.isEmpty)
        // The untouched link still works, and a GET only shows the page.
        let page = try await d.request("GET", link, tcp: true)
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("<form method=\"post\">"))
        // Opened from chat on a phone: drawn at the phone's width.
        #expect(String(decoding: page.body, as: UTF8.self).contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"))
        #expect(try await d.show(id)["state"] as? String == "open")
        #expect(try await d.request("POST", link, tcp: true).status == 200)
        await handler.stop()
        await chat.stop()
    }

    @Test func handlersAtInternalAddressesAreRefusedWithoutAConnection() async throws {
        let receiver = try WebhookReceiver()
        let p = receiver.port
        let d = try daemon(allow: [])
        try await d.start()
        // Literal addresses are refused at submission already (HandlerCallIsolationTests);
        // a name is refused on connecting, whatever it resolves to.
        let urls = [
            "http://localhost:\(p)/hook",
        ]
        var ids: [String] = []
        for url in urls {
            let id = try await d.send(["title": "ssrf", "confirm": ["label": "Go", "url": url]])
            #expect(try await d.request("POST", "/v1/alerts/\(id)/confirm").status == 200)
            ids.append(id)
        }
        for (id, url) in zip(ids, urls) {
            let deadline = ContinuousClock.now + .seconds(10)
            var delivery: [String: Any] = [:]
            while ContinuousClock.now < deadline {
                delivery = (try await d.show(id)["deliveries"] as? [[String: Any]] ?? []).first { $0["presenter"] as? String == "handler:confirm" } ?? [:]
                if delivery["state"] as? String == "dead" { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(delivery["state"] as? String == "dead", "\(url): \(delivery)")
            #expect((delivery["last_error"] as? String)?.contains("refused") == true, "\(url): \(delivery)")
            // The decision itself stands.
            #expect(try await d.show(id)["state"] as? String == "confirmed")
        }
        #expect(receiver.received.isEmpty)
        await receiver.stop()

        // Listed explicitly, loopback works.
        let allowed = try WebhookReceiver()
        let d2 = try daemon(allow: ["http://127.0.0.1:\(allowed.port)/"])
        try await d2.start()
        let id = try await d2.send(["title": "ok", "confirm": ["label": "Go", "url": allowed.url]])
        #expect(try await d2.request("POST", "/v1/alerts/\(id)/confirm").status == 200)
        #expect(await allowed.wait { $0.count == 1 })
        await allowed.stop()
    }

    @Test func theEventStreamResumesWithoutGapsOrRepeats() async throws {
        let d = try daemon()
        try await d.start()
        for i in 0..<5 { _ = try await d.send(["title": "first \(i)"]) }
        let first = try await sse(d, headers: [])
        #expect(!first.isEmpty)
        for i in 0..<5 { _ = try await d.send(["title": "second \(i)"]) }
        let last = try #require(first.last?.id)
        let second = try await sse(d, headers: ["-H", "Last-Event-ID: \(last)"])
        let ids = (first + second).map(\.id)
        #expect(ids == Array(1...(ids.last ?? 0)), "ids: \(ids)")
        #expect(second.filter { $0.type == "alert.created" }.count >= 5)
        let viaQuery = try await sse(d, headers: [], query: "?since=\(last)")
        #expect(viaQuery.map(\.id) == second.map(\.id).prefix(viaQuery.count).map { $0 })
        // An id past the newest is another store's (wiped, restored): the
        // stream starts over rather than staying silent until ids pass it.
        let elsewhere = try await sse(d, headers: ["-H", "Last-Event-ID: \((ids.last ?? 0) + 100)"])
        #expect(elsewhere.first?.id == 1, "ids: \(elsewhere.map(\.id))")
    }

    /// Reads `/v1/events` with curl for a moment and parses the frames.
    func sse(_ d: TestDaemon, headers: [String], query: String = "") async throws -> [(id: Int, type: String)] {
        let r = try await TestBinaries.run("/usr/bin/curl", ["-sN", "--max-time", "1.5", "--unix-socket", d.socketPath] + headers
                                                          + ["http://localhost/v1/events\(query)"])
        var out: [(Int, String)] = []
        var id: Int?
        for line in r.stdout.split(separator: "\n") {
            if line.hasPrefix("id: ") { id = Int(line.dropFirst(4)) }
            if line.hasPrefix("event: "), let i = id { out.append((i, String(line.dropFirst(7)))) }
        }
        return out
    }
}

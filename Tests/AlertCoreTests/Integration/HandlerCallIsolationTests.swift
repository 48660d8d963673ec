import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdDelivery
@testable import AlertdDaemon

#if canImport(Glibc)
import Glibc
#endif

/// Handler URLs come from alert submitters; these tests try to use them to
/// reach what only the operator may reach, against the real daemon on real
/// sockets: through a webhook's pooled connection, through a proxy from the
/// environment, with dot segments past an allowed prefix, with a literal
/// internal address, and they look for credentials in errors and logs.
/// Address cases run in a network namespace when the machine allows one
/// (see ``IsolatedNetwork``).
@Suite(.serialized) struct HandlerCallIsolationTests {
    /// The handler delivery of `action` on `id` once it has settled (delivered or dead).
    func settledHandlerDelivery(_ d: TestDaemon, _ id: String, _ action: String = "confirm") async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(10)
        var delivery: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            delivery = (try await d.show(id)["deliveries"] as? [[String: Any]] ?? [])
                .first { $0["presenter"] as? String == "handler:\(action)" } ?? [:]
            if ["dead", "delivered"].contains(delivery["state"] as? String) { return delivery }
            try await Task.sleep(for: .milliseconds(50))
        }
        return delivery
    }

    func decide(_ d: TestDaemon, _ id: String) async throws {
        let r = try await d.request("POST", "/v1/alerts/\(id)/confirm")
        #expect(r.status == 200, "\(String(decoding: r.body, as: UTF8.self))")
    }

    func alert(_ handler: String, title: String = "Go?") -> [String: Any] {
        ["title": title, "confirm": ["label": "Go", "url": handler]]
    }

    func json(_ r: HTTPClientResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: r.body)) as? [String: Any] ?? [:]
    }

    /// The `invalid_alert` details of a 422 answer.
    func details(_ r: HTTPClientResponse) -> [[String: Any]] {
        (json(r)["error"] as? [String: Any])?["details"] as? [[String: Any]] ?? []
    }

    // MARK: 1. Connection pools

    @Test func aHandlerCallNeverRidesAWebhookKeepAliveConnection() async throws {
        let net = IsolatedNetwork("pool")
        let inner = try await net.receiver(on: net.internalAddress)
        // The operator's webhook may reach the internal host; handlers may not (empty allow list).
        let d = try net.daemon(config: [
            "presenters": ["internal": ["type": "webhook", "url": inner.url(name: net.internalName, path: "/hook")]],
            "actions": ["timeout": "2s"],
        ])
        try await d.start()
        let id = try await d.send(alert(inner.url(name: net.internalName, path: "/admin/delete")))
        // The webhook delivery leaves a keep-alive connection to that host and port in its pool.
        #expect(await inner.wait { $0.contains { $0.alertID == id } })
        try await decide(d, id)

        let delivery = try await settledHandlerDelivery(d, id)
        #expect(delivery["state"] as? String == "dead", "\(delivery)")
        #expect((delivery["last_error"] as? String)?.hasPrefix("refused: ") == true, "\(delivery)")
        // The alert and its follow-up (the alert closed) went to the webhook; nothing else reached the host.
        #expect(Set(inner.received.map(\.request.path)) == ["/hook"], "\(inner.received.map(\.request.path))")
        await inner.stop()
    }

    @Test func aPooledHandlerConnectionIsCheckedAgainstThePolicyInForce() async throws {
        let net = IsolatedNetwork("recheck")
        let inner = try await net.receiver(on: net.internalAddress)
        let d = try net.daemon(config: ["actions": ["allow": [net.internalName, net.internalAddress], "timeout": "2s"]])
        try await d.start()
        let first = try await d.send(alert(inner.url(name: net.internalName, path: "/hook/first")))
        try await decide(d, first)
        #expect(try await settledHandlerDelivery(d, first)["state"] as? String == "delivered")

        // The operator takes the address off the list. The handler client
        // outlives the reload and keeps its connection to the host alive.
        try await d.reload(["actions": ["allow": [net.internalName], "timeout": "2s"]])
        let second = try await d.send(alert(inner.url(name: net.internalName, path: "/hook/second")))
        try await decide(d, second)
        let delivery = try await settledHandlerDelivery(d, second)
        #expect(delivery["state"] as? String == "dead", "\(delivery)")
        #expect((delivery["last_error"] as? String)?.contains("refused: \(net.internalAddress) is") == true, "\(delivery)")
        #expect(inner.received.map(\.request.path) == ["/hook/first"])
        await inner.stop()
    }

    /// A URL prefix with a literal internal address opens that address
    /// for URLs within the prefix only. With a host entry besides, a name
    /// resolving to the address had reached every port and path on it.
    @Test func aURLPrefixOpensItsAddressOnlyWithinThePrefix() async throws {
        let net = IsolatedNetwork("prefix")
        let hooks = try await net.receiver(on: net.internalAddress)
        let other = try await net.receiver(on: net.internalAddress)
        let d = try net.daemon(config: ["actions": [
            "allow": ["http://\(net.internalAddress):\(hooks.port)/hook/", net.internalName], "timeout": "2s",
        ]])
        try await d.start()
        let outside = try await d.send(alert(other.url(name: net.internalName, path: "/internal/admin")))
        try await decide(d, outside)
        let refused = try await settledHandlerDelivery(d, outside)
        #expect(refused["state"] as? String == "dead", "\(refused)")
        #expect((refused["last_error"] as? String)?.contains("only for URLs within http://\(net.internalAddress):\(hooks.port)/hook/") == true,
                "\(refused)")
        let offPath = try await d.send(alert(hooks.url(name: net.internalName, path: "/admin")))
        try await decide(d, offPath)
        #expect(try await settledHandlerDelivery(d, offPath)["state"] as? String == "dead")

        let within = try await d.send(alert(hooks.url(name: net.internalName, path: "/hook/deploy")))
        try await decide(d, within)
        #expect(try await settledHandlerDelivery(d, within)["state"] as? String == "delivered")
        #expect(other.received.isEmpty)
        #expect(hooks.received.map(\.request.path) == ["/hook/deploy"])
        await hooks.stop()
        await other.stop()
    }

    // MARK: 2. Proxies from the environment

    @Test func proxyVariablesDoNotCarryHandlerCalls() async throws {
        let net = IsolatedNetwork("proxy")
        let proxy = try await net.receiver(on: net.proxyAddress)
        let allowed = try await net.receiver(on: net.allowedAddress)
        let inner = try await net.receiver(on: net.internalAddress)
        // On loopback the proxy needs listing to be reachable at all; the call must avoid it anyway.
        let allow = [net.allowedAddress, net.internalName] + (net.proxyIsInternal ? [net.proxyAddress] : [])
        let d = try net.daemon(config: ["actions": ["allow": allow, "timeout": "2s"]])
        let proxyURL = "http://\(net.proxyAddress):\(proxy.port)"
        var environment = ["NO_PROXY": "", "no_proxy": ""]
        for name in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] { environment[name] = proxyURL }
        try await d.start(environment: environment)

        let direct = try await d.send(alert(allowed.url + "/ok"))
        try await decide(d, direct)
        #expect(try await settledHandlerDelivery(d, direct)["state"] as? String == "delivered")
        #expect(allowed.received.map(\.request.path) == ["/hook/ok"])

        let inside = try await d.send(alert(inner.url(name: net.internalName, path: "/secret")))
        try await decide(d, inside)
        let refused = try await settledHandlerDelivery(d, inside)
        #expect(refused["state"] as? String == "dead", "\(refused)")
        // On loopback the name resolves to ::1 as well; either refusal may be the last one.
        let reason = refused["last_error"] as? String ?? ""
        #expect(reason.hasPrefix("refused: ") && (reason.contains("is a private network address") || reason.contains("is a loopback address")),
                "\(refused)")
        #expect(inner.received.isEmpty)
        #expect(proxy.received.isEmpty, "the proxy got \(proxy.received.map(\.request.path))")
        for r in [proxy, allowed, inner] { await r.stop() }
    }

    /// The other half of the rule: an operator's webhook still goes through
    /// the proxy alertd's environment names, and without one goes straight
    /// (libcurl is told once at start whether the environment names any).
    @Test func webhookPresentersGoThroughTheEnvironmentsProxy() async throws {
        let proxy = try WebhookReceiver()
        let target = try WebhookReceiver()
        let viaProxy = try TestDaemon(config: ["presenters": ["relay": ["type": "webhook", "url": target.url]]])
        var environment = ["http_proxy": "http://127.0.0.1:\(proxy.port)"]
        for name in ["HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"] { environment[name] = "" }
        try await viaProxy.start(environment: environment)
        let proxied = try await viaProxy.send(["title": "Through the proxy"])
        #expect(await proxy.wait { $0.contains { $0.alertID == proxied } })
        // A proxy is asked for the whole URL; the receiver never sees the request.
        #expect(proxy.received.first { $0.alertID == proxied }?.request.headers["Host"] == "127.0.0.1:\(target.port)")
        #expect(target.received.isEmpty)

        // Every variable empty, which libcurl reads as unset: the path that tells libcurl so at start.
        let direct = try TestDaemon(config: ["presenters": ["relay": ["type": "webhook", "url": target.url]]])
        var none: [String: String] = [:]
        for name in environment.keys { none[name] = "" }
        try await direct.start(environment: none)
        let straight = try await direct.send(["title": "Straight there"])
        #expect(await target.wait { $0.contains { $0.alertID == straight } })
        #expect(!proxy.received.contains { $0.alertID == straight })
        for r in [proxy, target] { await r.stop() }
    }

    // MARK: 3. Dot segments

    @Test func dotSegmentsCannotLeaveAnAllowedPrefix() async throws {
        let net = IsolatedNetwork("dots")
        let target = try await net.receiver(on: net.allowedAddress)
        let origin = "http://\(net.allowedAddress):\(target.port)"
        let d = try net.daemon(config: ["actions": ["allow": [origin + "/hooks/"], "timeout": "2s"]])
        try await d.start()

        // Refused at submission, each with the field at fault.
        let escapes = ["/hooks/../admin/delete", "/hooks/%2e%2e/admin/delete", "/hooks/%2E%2E/admin/delete",
                       "/hooks/.%2e/admin/delete", "/hooks/x/../../admin/delete", "/hooks/..%2Fadmin/delete",
                       "/hooks/..;/admin/delete"]
        for escape in escapes {
            let r = try await d.request("POST", "/v1/alerts", json: alert(origin + escape))
            #expect(r.status == 422, "\(escape): \(r.status)")
            #expect(details(r).contains { $0["code"] as? String == "handler_url_not_allowed" && $0["field"] as? String == "confirm.url" },
                    "\(escape): \(String(decoding: r.body, as: UTF8.self))")
        }
        // A dot segment that stays inside is resolved, and the server gets exactly the checked path.
        let inside = try await d.send(alert(origin + "/hooks/x/%2e%2e/restart"))
        try await decide(d, inside)
        #expect(try await settledHandlerDelivery(d, inside)["state"] as? String == "delivered")
        #expect(target.received.map(\.request.path) == ["/hooks/restart"])

        // Accepted while the whole origin was allowed, refused when called under the narrower list.
        try await d.reload(["actions": ["allow": [origin + "/"], "timeout": "2s"]])
        let early = try await d.send(alert(origin + "/hooks/%2e%2e/admin/delete"))
        try await d.reload(["actions": ["allow": [origin + "/hooks/"], "timeout": "2s"]])
        try await decide(d, early)
        let delivery = try await settledHandlerDelivery(d, early)
        #expect(delivery["state"] as? String == "dead", "\(delivery)")
        #expect((delivery["last_error"] as? String)?.contains("\(origin)/admin/delete is not on the actions.allow list") == true, "\(delivery)")
        #expect(target.received.map(\.request.path) == ["/hooks/restart"])
        await target.stop()
    }

    // MARK: 4. Refused at submission

    @Test func literalInternalAddressesAreRefusedAtSubmission() async throws {
        let net = IsolatedNetwork("intake")
        let d = try net.daemon(config: ["actions": ["allow": [net.allowedAddress, "*.example"], "timeout": "2s"]])
        try await d.start()
        let refused = [
            "http://169.254.169.254/latest/meta-data/", "http://2130706433:8080/hook", "http://0177.0.0.1:8080/hook",
            "http://0x7f.1/hook", "http://[::ffff:127.0.0.1]:8080/hook", "http://[::1]/hook", "http://10.0.0.1/hook",
        ]
        for url in refused {
            let r = try await d.request("POST", "/v1/alerts", json: [
                "title": "ssrf", "confirm": ["label": "Go", "url": "https://ops.example/ok"], "cancel": ["label": "No", "url": url],
            ])
            #expect(r.status == 422, "\(url): \(r.status)")
            #expect((json(r)["error"] as? [String: Any])?["code"] as? String == "invalid_alert")
            let problems = details(r)
            #expect(problems.count == 1, "\(url): \(problems)")
            #expect(problems.first?["code"] as? String == "handler_url_not_allowed", "\(url): \(problems)")
            #expect(problems.first?["field"] as? String == "cancel.url", "\(url): \(problems)")
            #expect((problems.first?["message"] as? String)?.contains("actions.allow") == true, "\(url): \(problems)")
        }
        // In a batch only the offending item is refused; listed addresses and names pass.
        let batch = try await d.request("POST", "/v1/alerts", json: [
            alert("http://127.0.0.1:9/hook"), alert("http://\(net.allowedAddress):9/hook"), alert("https://ops.example/hook"),
        ])
        #expect(batch.status == 202)
        let results = json(batch)["results"] as? [[String: Any]] ?? []
        #expect(results.map { $0["id"] != nil } == [false, true, true], "\(results)")
        #expect(((results.first?["error"] as? [String: Any])?["details"] as? [[String: Any]])?.first?["field"] as? String == "confirm.url")
        #expect(try await d.request("GET", "/v1/alerts").status == 200)
    }

    @Test func aNameForAnInternalAddressIsRefusedWhenCalled() async throws {
        let net = IsolatedNetwork("names")
        guard let metadata = net.metadata else {
            print("[names] skipped: needs the namespace's link-local address and hosts file")
            return
        }
        let service = try await net.receiver(on: metadata.address)
        let d = try net.daemon(config: ["actions": ["timeout": "2s"]])
        try await d.start()
        // A name is not refused at submission: it resolves only when called.
        let id = try await d.send(alert(service.url(name: metadata.name, path: "/latest/meta-data/")))
        try await decide(d, id)
        let delivery = try await settledHandlerDelivery(d, id)
        #expect(delivery["state"] as? String == "dead", "\(delivery)")
        #expect((delivery["last_error"] as? String)?.contains("refused: 169.254.169.254 is a link-local address") == true, "\(delivery)")
        #expect(service.received.isEmpty)
        await service.stop()
    }

    // MARK: Secrets in errors and logs

    @Test func credentialsInAHandlerURLStayOutOfErrorsAndLogs() async throws {
        let net = IsolatedNetwork("secrets")
        let handler = try await net.receiver(on: net.allowedAddress, script: [404])
        let d = try net.daemon(config: ["actions": ["allow": [net.allowedAddress], "timeout": "2s"]])
        try await d.start()
        let url = "http://ops:s3cret-pw@\(net.allowedAddress):\(handler.port)/hook"
        let id = try await d.send(alert(url))
        try await decide(d, id)
        let delivery = try await settledHandlerDelivery(d, id)
        #expect(delivery["state"] as? String == "dead", "\(delivery)")
        let error = try #require(delivery["last_error"] as? String)
        #expect(error == "HTTP 404 from http://***@\(net.allowedAddress):\(handler.port)/hook", "\(error)")
        #expect(d.log.contains("delivery dead"))
        #expect(!d.log.contains("s3cret-pw"), "\(d.log)")
        // The credentials still went to the handler, where they belong.
        #expect(handler.received.first?.request.headers["Authorization"] == "Basic " + Data("ops:s3cret-pw".utf8).base64EncodedString())
        await handler.stop()
    }
}

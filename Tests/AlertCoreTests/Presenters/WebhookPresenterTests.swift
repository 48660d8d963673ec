import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdCrypto
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdHTTPServer
@testable import AlertdLogging
@testable import AlertdStore
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

@Suite struct WebhookPresenterTests {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    let client = HTTPClient()

    func makeAlert() throws -> Alert {
        let spec = try AlertSpec.Builder()
            .title("Disk full on db1")
            .message("/var is at 98%")
            .severity(.critical)
            .label("host", "db1")
            .label("env", "prod")
            .confirm("Expand", handler: "https://ops.example/expand")
            .cancel("Ignore", handler: "https://ops.example/ignore", method: .put)
            .dedupKey("disk-db1")
            .expires(after: .minutes(30))
            .build().get()
        return Alert(spec: spec, at: Date(timeIntervalSince1970: 1_719_835_200.123))
    }

    func presenter(_ url: String, secret: String? = nil, timeout: Duration = .seconds(10)) throws -> WebhookPresenter {
        try WebhookPresenter(
            name: "test-hook", configuration: .init(url: url, secret: secret, timeout: timeout, headers: ["Authorization": "Bearer t"]),
            client: client)
    }

    /// A relative `secret_file` is in the state directory, as every other
    /// presenter's `*_file`; one that is missing says where it was looked for.
    @Test func aRelativeSecretFileIsInTheStateDirectory() throws {
        let dir = TemporaryDirectory()
        try writeSecretFile(Self.secret + "\n", to: dir.path + "/hook.secret")
        let configuration = try ServiceFixtures.configuration(WebhookPresenterConfiguration.self,
                                                              ["url": "http://127.0.0.1:9/x", "secret_file": "hook.secret"])
        let context = PresenterContext(httpClient: client, stateDirectory: dir.path)
        #expect(throws: Never.self) { try configuration.makePresenter(name: "h", context: context) }
        #expect(throws: PresenterSetupError("the secret file \(dir.path)/elsewhere.secret does not exist; create it or fix the path")) {
            try ServiceFixtures.configuration(WebhookPresenterConfiguration.self, ["url": "http://127.0.0.1:9/x", "secret_file": "elsewhere.secret"])
                .makePresenter(name: "h", context: context)
        }
        let cwd = try #require(CurrentProcess.workingDirectory)
        #expect(SecretFileError(path: "x.secret", problem: .missing).message
            == "the secret file x.secret does not exist (looked for in the working directory, \(cwd)); create it or fix the path")
    }

    @Test func signatureMatchesTheSpecsWorkedExample() throws {
        let signer = try StandardWebhookSigner(secret: Self.secret)
        let body = Data(#"{"test": 2432232314}"#.utf8)
        let signature = signer.signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: body)
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        #expect(signer.verify(signatureHeader: "v1,bm90IGl0 " + signature, id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: body))
        #expect(!signer.verify(signatureHeader: signature, id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_331, body: body))
    }

    /// Alertmanager's body: an alert on its own is a group of one keyed by
    /// all its labels; its follow-up lists it resolved, ended when it closed.
    @Test func alertmanagersBodyShowsAnAlertAsAlertmanagerDoes() throws {
        let spec = try AlertSpec.Builder().title("Disk full on db1").message("/var is at 98%")
            .labels(["host": "db1", "env": "prod", "generator_url": "http://prometheus.example/graph"])
            .expires(after: .minutes(30)).build().get()
        var alert = Alert(spec: spec, at: Date(timeIntervalSince1970: 1_719_835_200.123))
        let firing = try #require(try JSONSerialization.jsonObject(
            with: AlertmanagerWebhookPayload(alert: alert, receiver: "bridge", externalURL: "https://alertd.example").encoded()) as? [String: Any])
        #expect(J(firing)["version"].string == "4")
        #expect(J(firing)["status"].string == "firing")
        #expect(J(firing)["receiver"].string == "bridge")
        #expect(J(firing)["groupKey"].string == #"{}:{env="prod", host="db1"}"#)
        #expect(J(firing)["groupLabels"].object as? [String: String] == ["env": "prod", "host": "db1"])
        #expect(J(firing)["commonLabels"].object as? [String: String] == ["env": "prod", "host": "db1"])
        #expect(J(firing)["commonAnnotations"].object as? [String: String] == ["summary": "Disk full on db1", "description": "/var is at 98%"])
        #expect(J(firing)["truncatedAlerts"].int == 0)
        let shown = J(firing)["alerts"][0]
        #expect(shown["labels"].object as? [String: String] == ["env": "prod", "host": "db1"])
        #expect(shown["generatorURL"].string == "http://prometheus.example/graph")
        // A native alert's fingerprint takes in its id (its labels alone are
        // not what it is): its own, and the same in every listing.
        #expect(shown["fingerprint"].string == AlertmanagerView(alert).fingerprint)
        #expect(shown["fingerprint"].string != LabelFingerprint(["env": "prod", "host": "db1"]).description)
        #expect(shown["fingerprint"].string?.count == 16)
        #expect(shown["startsAt"].string == "2024-07-01T12:00:00.123Z")
        // Firing, it has no end, as Alertmanager's webhook says it, whatever its expiry.
        #expect(shown["endsAt"].string == "0001-01-01T00:00:00Z")

        alert.state = .resolved
        alert.decision = AlertDecision(outcome: .resolved, actor: "alertmanager-api", at: Date(timeIntervalSince1970: 1_719_835_500))
        let resolved = try #require(try JSONSerialization.jsonObject(
            with: AlertmanagerWebhookPayload(alert: alert, receiver: "bridge", externalURL: "").encoded()) as? [String: Any])
        #expect(J(resolved)["status"].string == "resolved")
        #expect(J(resolved)["alerts"][0]["status"].string == "resolved")
        #expect(J(resolved)["alerts"][0]["endsAt"].string == "2024-07-01T12:05:00.000Z")
        #expect(AlertmanagerWebhookPayload.common([["a": "1", "b": "2"], ["a": "1", "b": "3"], ["a": "1"]]) == ["a": "1"])
    }

    /// Past `max_alerts` a group notification lists what fires first and counts the rest, as Alertmanager's does.
    @Test func alertmanagersBodyListsAtMostMaxAlerts() throws {
        func alert(_ name: String, closed: Bool) throws -> Alert {
            var a = Alert(spec: try AlertSpec.Builder().title(name).labels(["alertname": "NodeDown", "host": name]).build().get())
            if closed {
                a.state = .resolved
                a.decision = AlertDecision(outcome: .resolved, actor: "alertd", at: Date())
            }
            return a
        }
        let n = AlertGroupNotification(
            groupID: AlertGroupID(route: "rack", labels: [AlertLabel(name: "alertname", value: "NodeDown")]), route: "rack", groupLabels: [AlertLabel(name: "alertname", value: "NodeDown")],
            sequence: 2, reason: .changed, firing: try ["a", "b", "c"].map { try alert($0, closed: false) },
            closed: try ["d", "e"].map { try alert($0, closed: true) })
        func body(_ max: Int) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: AlertmanagerWebhookPayload(n, receiver: "r", externalURL: "", maxAlerts: max).encoded())
                as? [String: Any])
        }
        let all = try body(0)
        #expect(J(all)["alerts"].array.count == 5 && J(all)["truncatedAlerts"].int == 0)
        #expect(J(all)["groupKey"].string == #"{}/{route="rack"}:{alertname="NodeDown"}"#)
        let cut = try body(4)
        #expect(J(cut)["alerts"].array.compactMap { J($0)["labels"]["host"].string } == ["a", "b", "c", "d"])
        #expect(J(cut)["alerts"].array.compactMap { J($0)["status"].string } == ["firing", "firing", "firing", "resolved"])
        #expect(J(cut)["truncatedAlerts"].int == 1)
        #expect(J(cut)["status"].string == "firing")
        #expect(J(cut)["commonLabels"].object as? [String: String] == ["alertname": "NodeDown"])
        #expect(ServiceFixtures.read(WebhookPresenterConfiguration.self, ["url": "http://127.0.0.1/", "max_alerts": 5]).0?.maxAlerts == 5)
    }

    /// An alert that resolved and fired again within one interval is two
    /// alerts in alertd and one label set to Alertmanager's receivers:
    /// listed both firing and resolved, a receiver going in order closed
    /// what fires. Alertmanager never lists a fingerprint twice.
    @Test func alertmanagersBodyListsAFingerprintOnce() throws {
        let labels = ["alertname": "NodeDown", "host": "a"]
        let again = Alert(spec: try AlertSpec.Builder().title("a").labels(labels).build().get())
        var before = Alert(spec: try AlertSpec.Builder().title("a").labels(labels).build().get())
        before.state = .resolved
        before.decision = AlertDecision(outcome: .resolved, actor: "alertd", at: Date())
        var other = Alert(spec: try AlertSpec.Builder().title("b").labels(["alertname": "NodeDown", "host": "b"]).build().get())
        other.state = .resolved
        other.decision = AlertDecision(outcome: .resolved, actor: "alertd", at: Date())
        let n = AlertGroupNotification(
            groupID: AlertGroupID(route: "rack", labels: [AlertLabel(name: "alertname", value: "NodeDown")]), route: "rack", groupLabels: [AlertLabel(name: "alertname", value: "NodeDown")],
            sequence: 3, reason: .changed, firing: [again], closed: [before, other])
        let body = try #require(try JSONSerialization.jsonObject(with: AlertmanagerWebhookPayload(n, receiver: "r", externalURL: "").encoded())
            as? [String: Any])
        let listed = J(body)["alerts"].array.map { (J($0)["labels"]["host"].string, J($0)["status"].string) }
        #expect(listed.map(\.0) == ["a", "b"] && listed.map(\.1) == ["firing", "resolved"])
        #expect(J(body)["status"].string == "firing")
    }

    @Test func theFormatIsChecked() {
        #expect(ServiceFixtures.read(WebhookPresenterConfiguration.self, ["url": "http://127.0.0.1/", "format": "alertmanager",
                                                                          "external_url": "https://alertd.example"]).1.isEmpty)
        #expect(ServiceFixtures.read(WebhookPresenterConfiguration.self, ["url": "http://127.0.0.1/", "format": "alertmanager", "external_url": ""]).1
            .isEmpty)
        #expect(ServiceFixtures.read(WebhookPresenterConfiguration.self, ["url": "http://127.0.0.1/", "format": "xml"]).1
            == [#"presenters.p.format: must be one of "alertd", "alertmanager", got "xml""#])
        #expect(ServiceFixtures.read(WebhookPresenterConfiguration.self, ["url": "http://127.0.0.1/", "external_url": "https://a.example"]).1
            == [#"presenters.p.external_url: is only for "format": "alertmanager""#])
        // Headers alertd sets itself are refused, not dropped unseen.
        #expect(ServiceFixtures.read(WebhookPresenterConfiguration.self, ["url": "http://127.0.0.1/",
                                                                          "headers": ["content-type": "text/plain", "Webhook-Id": "x", "X-Team": "ops"]]).1
            == ["presenters.p.headers: `Webhook-Id` is set by alertd on every request and cannot be replaced; leave it out",
                "presenters.p.headers: `content-type` is set by alertd on every request and cannot be replaced; leave it out"])
        // So are those that frame the body or manage the connection (a receiver read `Content-Length: 5` of a longer body); Host may be set.
        #expect(ServiceFixtures.read(WebhookPresenterConfiguration.self, ["url": "http://127.0.0.1/",
                                                                          "headers": ["Content-Length": "5", "transfer-encoding": "chunked", "Host": "hooks.internal"]]).1
            == ["presenters.p.headers: `Content-Length` frames the request or manages the connection, which alertd does itself; leave it out",
                "presenters.p.headers: `transfer-encoding` frames the request or manages the connection, which alertd does itself; leave it out"])
    }

    @Test func rejectsUnusableSecrets() {
        for secret in ["whsec_", "whsec_not base64!", "whsec_c2hvcnQ="] {
            let error = #expect(throws: WebhookConfigurationError.self) { try presenter("http://127.0.0.1/", secret: secret) }
            #expect(error?.code == "invalid_webhook_secret", "\(secret)")
            #expect(error?.message.contains("whsec_") == true)
        }
        // One without the prefix is not told about "the part after whsec_".
        let bare = #expect(throws: WebhookConfigurationError.self) { try presenter("http://127.0.0.1/", secret: "hello") }
        #expect(bare?.message.hasPrefix("The webhook secret cannot be used: it is not base64 (nor `whsec_` and base64).") == true, "\(bare?.message ?? "")")
    }

    @Test func deliversThePayloadIntactAndSigned() async throws {
        let recorder = RequestRecorder()
        let (server, base) = try startLoopbackServer { request in
            await recorder.record(request)
            return HTTPResponse(status: 204)
        }
        defer { Task { await server.stop() } }
        let alert = try makeAlert()
        let delivery = DeliveryContext(
            deliveryID: "dlv_123", attempt: 2, actionLinks: [.confirm: "https://alertd.example/a/1/confirm?sig=abc"])
        let before = Int64(Date().timeIntervalSince1970)

        let outcome = try await presenter(base + "/hook", secret: Self.secret).present(alert, delivery: delivery)
        #expect(outcome == .delivered)

        let request = try #require(await recorder.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/hook")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.headers["User-Agent"] == "alertd/\(AlertdVersion.current)")
        #expect(request.headers["Authorization"] == "Bearer t")

        let payload = try JSONDecoder().decode(WebhookPayload.self, from: request.body)
        #expect(payload.version == 1)
        #expect(payload.type == .alert)
        #expect(payload.delivery == .init(id: "dlv_123", attempt: 2))
        #expect(payload.alert.id == alert.id.rawValue)
        #expect(payload.alert.state == .open)
        #expect(payload.alert.title == "Disk full on db1")
        #expect(payload.alert.message == "/var is at 98%")
        #expect(payload.alert.severity == .critical)
        #expect(payload.alert.labels == ["host": "db1", "env": "prod"])
        #expect(payload.alert.dedupKey == "disk-db1")
        #expect(payload.alert.expiresAfter == 1800)
        #expect(payload.alert.confirm == .init(
            AlertAction(label: "Expand", url: "https://ops.example/expand"), link: "https://alertd.example/a/1/confirm?sig=abc"))
        #expect(payload.alert.cancel == .init(AlertAction(label: "Ignore", url: "https://ops.example/ignore", method: .put)))
        #expect(abs(payload.alert.createdAt.timeIntervalSince(alert.createdAt)) < 0.001)

        // The wire format itself: snake_case keys, RFC 3339 UTC with milliseconds, no link when there is none.
        let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(Set(json.keys) == ["version", "type", "alert", "delivery"])
        let alertJSON = try #require(json["alert"] as? [String: Any])
        #expect(Set(alertJSON.keys) == [
            "id", "created_at", "state", "title", "message", "severity", "labels", "dedup_key", "expires_after", "confirm", "cancel",
        ])
        #expect(alertJSON["created_at"] as? String == "2024-07-01T12:00:00.123Z")
        #expect((alertJSON["cancel"] as? [String: Any])?.keys.sorted() == ["label", "method", "url"])

        // The signature, recomputed here from the spec's definition.
        let id = try #require(request.headers["webhook-id"])
        let timestamp = try #require(request.headers["webhook-timestamp"].flatMap { Int64($0) })
        #expect(id == "dlv_123")
        #expect(timestamp >= before && timestamp <= Int64(Date().timeIntervalSince1970) + 1)
        let key = try #require(Data(base64Encoded: String(Self.secret.dropFirst("whsec_".count))))
        let mac = HMACSHA256.authenticate(key: Array(key), message: Array("\(id).\(timestamp).".utf8) + Array(request.body))
        #expect(request.headers["webhook-signature"] == "v1," + Data(mac).base64EncodedString())
    }

    @Test func sendsUnsignedWithoutASecret() async throws {
        let recorder = RequestRecorder()
        let (server, base) = try startLoopbackServer { request in
            await recorder.record(request)
            return HTTPResponse(status: 200)
        }
        defer { Task { await server.stop() } }
        let outcome = try await presenter(base + "/hook").present(try makeAlert(), delivery: .init(deliveryID: "d1"))
        #expect(outcome == .delivered)
        let request = try #require(await recorder.requests.first)
        #expect(request.headers["webhook-signature"] == nil)
    }

    @Test func serverErrorIsRetryable() async throws {
        let (server, base) = try startLoopbackServer { _ in .text(status: 500, "boom") }
        defer { Task { await server.stop() } }
        let outcome = try await presenter(base + "/hook").present(try makeAlert(), delivery: .init(deliveryID: "d1"))
        #expect(outcome == .retryableFailure(reason: "HTTP 500 from \(base): boom", retryAfter: nil))
    }

    @Test func notFoundIsPermanent() async throws {
        let (server, base) = try startLoopbackServer { _ in .text(status: 404, "no") }
        defer { Task { await server.stop() } }
        let outcome = try await presenter(base + "/hook").present(try makeAlert(), delivery: .init(deliveryID: "d1"))
        #expect(outcome == .permanentFailure(reason: "HTTP 404 from \(base): no"))
    }

    @Test func tooManyRequestsHonoursRetryAfter() async throws {
        let (server, base) = try startLoopbackServer { _ in HTTPResponse(status: 429, headers: ["Retry-After": "7"]) }
        defer { Task { await server.stop() } }
        let outcome = try await presenter(base + "/hook").present(try makeAlert(), delivery: .init(deliveryID: "d1"))
        #expect(outcome == .retryableFailure(reason: "HTTP 429 from \(base)", retryAfter: .seconds(7)))
    }

    /// A webhook URL's path and query are often its credential (a chat's
    /// /hooks/<key>, ?token=), and reasons reach read-only API clients and
    /// logs: a reason names the receiver by its origin.
    @Test func reasonsNameTheReceiverByItsOriginAlone() async throws {
        // The receiver repeats the URL it was called at, user info and all.
        let (server, base) = try startLoopbackServer { request in
            .text(status: 500, "boom at http://hookuser:HOOKPASS@\(request.headers["Host"] ?? "")\(request.path)?\(request.query)")
        }
        defer { Task { await server.stop() } }
        let secretURL = base.replacingOccurrences(of: "http://", with: "http://hookuser:HOOKPASS@") + "/hooks/PATHSECRET?apikey=QUERYSECRET"
        let answered = try await presenter(secretURL).present(try makeAlert(), delivery: .init(deliveryID: "d1"))
        #expect("\(answered)".contains("HTTP 500 from \(base): boom at"), "\(answered)")
        let closed = try ClosedPort()
        let unanswered = try await presenter("http://u:HOOKPASS@127.0.0.1:\(closed.port)/hooks/PATHSECRET?apikey=QUERYSECRET")
            .present(try makeAlert(), delivery: .init(deliveryID: "d1"))
        for outcome in [answered, unanswered] {
            for secret in ["HOOKPASS", "PATHSECRET", "QUERYSECRET"] { #expect(!"\(outcome)".contains(secret), "\(outcome)") }
        }
    }

    @Test func retryAfterMayBeAnHTTPDate() {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        let headers: HTTPHeaders = ["Retry-After": "Sun, 06 Nov 1994 08:50:07 GMT"]
        #expect(headers.retryAfter(relativeTo: now) == .seconds(30))
        #expect((["Retry-After": "Sunday, 06-Nov-94 08:49:47 GMT"] as HTTPHeaders).retryAfter(relativeTo: now) == .seconds(10))
        #expect((["Retry-After": "Sun Nov  6 08:49:57 1994"] as HTTPHeaders).retryAfter(relativeTo: now) == .seconds(20))
        #expect((["Retry-After": "Sun, 06 Nov 1994 08:00:00 GMT"] as HTTPHeaders).retryAfter(relativeTo: now) == .zero)
        #expect((["Retry-After": "soon"] as HTTPHeaders).retryAfter(relativeTo: now) == nil)
    }

    @Test func redirectIsPermanentAndNotFollowed() async throws {
        let recorder = RequestRecorder()
        let (server, base) = try startLoopbackServer { request in
            await recorder.record(request)
            return HTTPResponse(status: 302, headers: ["Location": "/moved"])
        }
        defer { Task { await server.stop() } }
        let outcome = try await presenter(base + "/hook").present(try makeAlert(), delivery: .init(deliveryID: "d1"))
        guard case .permanentFailure(let reason) = outcome else {
            Issue.record("expected a permanent failure, got \(outcome)")
            return
        }
        #expect(reason.hasPrefix("HTTP 302 from \(base)"))
        #expect(await recorder.paths == ["/hook"])
    }

    /// A hostile receiver's `Location` is its own text in alertd's words:
    /// it reached `last_error`, events and terminals whole, escapes and all.
    @Test func aRedirectsTargetIsShownShortAndPlain() {
        let location = "/x\u{1B}]0;pwn\u{07}\u{202E}" + String(repeating: "y", count: 90_000)
        let outcome = WebhookPresenter.outcome(for: HTTPClientResponse(status: 302, headers: ["Location": location], body: Data()),
                                               url: "http://127.0.0.1:9/hook", now: Date())
        guard case .permanentFailure(let reason) = outcome else {
            Issue.record("expected a permanent failure, got \(outcome)")
            return
        }
        #expect(TextPolicy.firstRefused(in: reason, .line) == nil)
        #expect(reason.count < 500)
        #expect(reason.contains("redirect to /x"))
    }

    /// A dead letter says what the receiver said was wrong, as a chat
    /// service's does: `last_error` was "HTTP 400 from …" alone. Not from
    /// an HTML error page, nor for a handler call.
    @Test func aRefusalCarriesWhatTheReceiverSaid() {
        func reason(_ status: Int, _ body: String, type: String = "application/json", reading: Bool = true) -> String {
            let response = HTTPClientResponse(status: status, headers: ["Content-Type": type], body: Data(body.utf8))
            switch WebhookPresenter.outcome(for: response, url: "http://127.0.0.1:9/hook?key=s3cret", now: Date(),
                                            naming: URLRedaction.origin, readingErrors: reading) {
            case .permanentFailure(let reason), .retryableFailure(let reason, _): return reason
            default: return "delivered"
            }
        }
        #expect(reason(400, #"{"error": "bad"}"#) == "HTTP 400 from http://127.0.0.1:9: bad")
        #expect(reason(422, #"{"error": {"message": "no such channel"}}"#) == "HTTP 422 from http://127.0.0.1:9: no such channel")
        #expect(reason(503, "down for\nmaintenance", type: "text/plain") == "HTTP 503 from http://127.0.0.1:9: down for maintenance")
        #expect(reason(502, "<html><title>502</title></html>", type: "text/html") == "HTTP 502 from http://127.0.0.1:9")
        #expect(reason(502, "\n <!DOCTYPE html><html>…</html>", type: "text/plain") == "HTTP 502 from http://127.0.0.1:9")
        #expect(reason(422, #"{"errors": [{"message": "a"}, "b", 3]}"#) == "HTTP 422 from http://127.0.0.1:9: a; b; 3")
        #expect(reason(400, #"{"error": "bad"}"#, reading: false) == "HTTP 400 from http://127.0.0.1:9")
        #expect(reason(400, "the url was http://127.0.0.1:9/hook?key=s3cret", type: "text/plain").contains("s3cret") == false)
        #expect(reason(204, "") == "delivered")
    }

    /// What the receiver quotes back of the request's credentials is hidden:
    /// the signing secret, a credential header's value, the URL's path and
    /// query in any case. They reached `last_error` and the log.
    @Test func aRefusalHidesTheCredentialsTheReceiverQuotes() async throws {
        let secret = "whsec_U0lHTklOR1NFQ1JFVEJZVEVTMDEyMzQ1Njc4OQ=="
        let (server, base) = try startLoopbackServer { request in
            .text(status: 401, "bad signature for \(secret) (raw \(secret.dropFirst(6))); saw \(request.headers["Authorization"] ?? "") "
                + "and token HEADERTOKEN123 at \(request.path.lowercased())?\(request.query.lowercased())")
        }
        defer { Task { await server.stop() } }
        let config = WebhookPresenterConfiguration(url: base + "/SECRETPATH/k?token=a%2Bb%2FcQSECRET", secret: secret,
                                                   headers: ["Authorization": "Bearer HEADERTOKEN123", "X-Env": "prod"])
        let presenter = try WebhookPresenter(name: "hook", configuration: config)
        let outcome = try await presenter.present(try makeAlert(), delivery: .init(deliveryID: "d1"))
        guard case .permanentFailure(let reason) = outcome else {
            Issue.record("expected a permanent failure, got \(outcome)")
            return
        }
        #expect(reason.hasPrefix("HTTP 401 from \(base): bad signature for ***"), "\(reason)")
        for shown in ["U0lHTklOR1NF", "HEADERTOKEN123", "secretpath", "cqsecret"] {
            #expect(!reason.lowercased().contains(shown.lowercased()), "\(shown): \(reason)")
        }
    }

    @Test func hungServerIsRetryableWithinTheTimeout() async throws {
        let silent = try SilentListener()
        let url = "http://127.0.0.1:\(silent.port)/hook"
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = try await presenter(url, timeout: .seconds(1)).present(try makeAlert(), delivery: .init(deliveryID: "d1"))
        #expect(clock.now - start < .seconds(3))
        #expect(outcome == .retryableFailure(reason: "no response from http://127.0.0.1:\(silent.port) within 1s"))
    }

    @Test func refusedConnectionIsRetryable() async throws {
        let closed = try ClosedPort()
        let outcome = try await presenter("http://127.0.0.1:\(closed.port)/hook").present(try makeAlert(), delivery: .init(deliveryID: "d1"))
        #expect(outcome == .retryableFailure(reason: "connection refused by 127.0.0.1:\(closed.port)"))
    }

    /// A reply that is not HTTP (TLS on a plain port, a proxy's garbage) is
    /// the receiver's fault, maybe for a moment: retried, not ended as a bad URL.
    @Test func aReplyThatIsNotHTTPIsRetryable() async throws {
        let garbage = try GarbageListener(reply: [0x16, 0x03, 0x01, 0x00, 0x2a] + Array("not HTTP at all\r\n\r\n".utf8))
        let outcome = try await presenter("http://127.0.0.1:\(garbage.port)/hook").present(try makeAlert(), delivery: .init(deliveryID: "d1"))
        guard case .retryableFailure(let reason, _) = outcome else {
            Issue.record("expected a retryable failure, got \(outcome)")
            return
        }
        #expect(reason.contains("127.0.0.1:\(garbage.port)") && reason.contains("HTTP/0.9"), "\(reason)")
    }

    @Test func unusableURLIsPermanent() async throws {
        for url in ["", "ftp://example.com/hook", "::not a url::"] {
            let outcome = try await presenter(url).present(try makeAlert(), delivery: .init(deliveryID: "d1"))
            guard case .permanentFailure = outcome else {
                Issue.record("\(url): expected a permanent failure, got \(outcome)")
                continue
            }
        }
    }
}

@Suite struct WebhookPayloadEncodingTests {
    @Test func theHandWrittenEncodingIsTheEncodableOne() throws {
        let full = try AlertSpec.Builder().title("Disk \"full\" \\ on db1").message("m\n\\n").severity(.error)
            .labels(["b": "2", "a": "ü"]).confirm("Go", handler: "https://x.example/go?a=1&b=2")
            .cancel("Stop", handler: "https://x.example/stop", method: .put).dedupKey("k").expires(after: .minutes(5)).build().get()
        let bare = try AlertSpec.Builder().title("t").build().get()
        var decided = Alert(spec: full)
        decided.state = .expired
        let decision = AlertDecision(outcome: .expired, actor: "alertd", at: Date(), comment: "late \"again\"")
        let payloads = [
            WebhookPayload(alert: Alert(spec: full), delivery: DeliveryContext(deliveryID: "d1", attempt: 3, actionLinks: [.confirm: "https://a/l?t=1"])),
            WebhookPayload(alert: Alert(spec: bare), delivery: DeliveryContext(deliveryID: "d2")),
            WebhookPayload(decision: decision, action: .cancel, alert: decided, delivery: DeliveryContext(deliveryID: "d3")),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for payload in payloads {
            let reference = try JSONSerialization.jsonObject(with: try encoder.encode(payload)) as? NSDictionary
            let fast = try JSONSerialization.jsonObject(with: try payload.encoded()) as? NSDictionary
            #expect(fast == reference)
            // Read back and written again, byte for byte (times are kept to the millisecond).
            let again = try JSONDecoder().decode(WebhookPayload.self, from: try payload.encoded())
            #expect(try again.encoded() == (try payload.encoded()))
        }
    }
}

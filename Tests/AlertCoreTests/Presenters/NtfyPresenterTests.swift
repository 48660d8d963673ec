import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdDelivery

/// The `ntfy` presenter against a stand-in for ntfy's JSON publishing API
/// (https://docs.ntfy.sh/publish/#publish-as-json), and end to end: a
/// notification's button decides the alert in the real daemon.
@Suite struct NtfyPresenterTests {
    /// What ntfy checks of a JSON publish, and the credentials it wants.
    static func contract(authorization: String?) -> @Sendable (HTTPRequest) -> [String] {
        { request in
            var problems: [String] = []
            if request.headers["Authorization"] != authorization {
                problems.append("Authorization \(request.headers["Authorization"] ?? "none"), expected \(authorization ?? "none")")
            }
            // ntfy reads a JSON body up to twice its message limit (server.go, transformBodyJSON), and
            // takes one that fills it as past it (util.Peek: LimitReached when read == limit): 413.
            if request.body.count >= 8_192 { problems.append("a JSON body of \(request.body.count) bytes, not under ntfy's 8192") }
            return problems + ServiceFixtures.jsonContract(request, path: "/") { json in
                var problems: [String] = []
                let body = J(json)
                if body["topic"].string?.range(of: "^[-_A-Za-z0-9]{1,64}$", options: .regularExpression) == nil {
                    problems.append("topic \(body["topic"].value ?? "none") is not a topic name")
                }
                // The same for the message: 4,096 bytes became an attachment.
                if (body["message"].string?.utf8.count ?? 0) >= 4_096 { problems.append("a message of 4096 bytes or more") }
                if let p = body["priority"].int, !(1...5).contains(p) { problems.append("priority \(p)") }
                if body["tags"].exists && !(body["tags"].value is [String]) { problems.append("tags must be strings") }
                let actions = body["actions"].array.map(J.init)
                if actions.count > 3 { problems.append("\(actions.count) actions, at most 3") }
                for action in actions {
                    if !["view", "http", "broadcast"].contains(action["action"].string ?? "") { problems.append("action type") }
                    if (action["label"].string ?? "").isEmpty { problems.append("action label") }
                    if action["action"].string == "http" {
                        if !(action["url"].string ?? "").hasPrefix("http") { problems.append("http action url") }
                        if !["GET", "POST", "PUT", "DELETE"].contains(action["method"].string ?? "POST") { problems.append("http action method") }
                    }
                }
                return problems
            }
        }
    }

    static let accepted = HTTPResponse.json(body: Data(#"{"id":"hwQ2YpKdmg","event":"message"}"#.utf8))

    @Test func publishesJSONToTheServerRootWithPriorityTagsAndHTTPActions() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract(authorization: "Bearer tk_secret"))
        let p = try ServiceFixtures.presenter(NtfyPresenterConfiguration.self, [
            "url": receiver.base + "/alertd-ops", "token": "tk_secret", "tags": ["db"], "click": "https://grafana.example/d/1",
        ])
        #expect(await p.present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery) == .delivered)
        let got = try #require(receiver.received.first)
        #expect(got.problems.isEmpty, "\(got.problems)")
        let body = J(got.json)
        #expect(body["topic"].string == "alertd-ops")
        #expect(body["title"].string == "Disk <full> & db1")
        #expect(body["message"].string == "/var is at 98% <b>now</b> & rising\n\nenv: prod\nhost: db1")
        #expect(body["priority"].int == 5)
        #expect(body["tags"].value as? [String] == ["rotating_light", "critical", "db"])
        #expect(body["click"].string == "https://grafana.example/d/1")
        let actions = body["actions"].array.map(J.init)
        #expect(actions.map { $0["action"].string } == ["http", "http"])
        #expect(actions.map { $0["label"].string } == ["Expand", "Ignore"])
        #expect(actions.map { $0["url"].string } == [ServiceFixtures.confirmLink, ServiceFixtures.cancelLink])
        #expect(actions.map { $0["method"].string } == ["POST", "POST"])
        #expect(actions.map { $0["clear"].bool } == [true, true])
    }

    @Test func priorityFollowsSeverityAndLongMessagesAreCut() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract(authorization: nil))
        let p = try ServiceFixtures.presenter(NtfyPresenterConfiguration.self, ["url": receiver.base + "/t"])
        for (severity, priority) in [(Severity.info, 3), (.warning, 4), (.error, 4), (.critical, 5)] {
            let alert = try ServiceFixtures.alert(message: String(repeating: "ü", count: 3_000), severity: severity)
            #expect(await p.present(alert, delivery: DeliveryContext(deliveryID: "d")) == .delivered)
            let body = J(try #require(receiver.received.last).json)
            #expect(body["priority"].int == priority)
            // No links, no buttons: the message ends saying how to decide, whole.
            #expect(!body["actions"].exists)
            let message = try #require(body["message"].string)
            #expect(message.contains(TextLimit.bodyMarker + "\n\n"))
            #expect(message.hasSuffix("\n\nExpand: alertctl confirm \(alert.id.rawValue)\nIgnore: alertctl cancel \(alert.id.rawValue)"), "\(message.suffix(200))")
        }
        #expect(receiver.received.allSatisfy { $0.problems.isEmpty })
        // Quotes and backslashes are written twice in JSON: the body, not only the message, fits.
        for filler in ["\"", "\\", "\t"] {
            let alert = try ServiceFixtures.alert(message: String(repeating: filler, count: 5_000))
            #expect(await p.present(alert, delivery: DeliveryContext(deliveryID: "d")) == .delivered)
            let got = try #require(receiver.received.last)
            #expect(got.problems.isEmpty, "\(got.problems)")
            #expect(J(got.json)["message"].string?.contains(TextLimit.bodyMarker) == true)
        }
        // A message that just fits is sent whole; one byte more and it is cut.
        for (size, cut) in [(4_095, false), (4_096, true)] {
            let alert = try ServiceFixtures.alert(message: String(repeating: "m", count: size), labels: [:], actions: false)
            #expect(await p.present(alert, delivery: DeliveryContext(deliveryID: "d")) == .delivered)
            let got = try #require(receiver.received.last)
            #expect(got.problems.isEmpty, "\(got.problems)")
            #expect(J(got.json)["message"].string?.hasSuffix(TextLimit.bodyMarker) == cut, "\(size)")
        }
    }

    @Test func basicAuthenticationWithThePasswordFromAFile() async throws {
        let dir = TemporaryDirectory()
        try writeSecretFile("s3cret\n", to: dir.path + "/ntfy-password")
        let expected = "Basic " + Data("alertd:s3cret".utf8).base64EncodedString()
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract(authorization: expected))
        let p = try ServiceFixtures.presenter(NtfyPresenterConfiguration.self, [
            "url": receiver.base + "/t", "username": "alertd", "password_file": dir.path + "/ntfy-password",
        ])
        #expect(await p.present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery) == .delivered)
        #expect(receiver.received.first?.problems == [])
    }

    /// A service (or a proxy before it) that quotes the request's
    /// `Authorization` back: the Basic credentials are hidden encoded as
    /// they are, as a URL's password is, which curl sends the same way.
    @Test func anEchoedBasicAuthorizationIsHidden() async throws {
        let dir = TemporaryDirectory()
        try writeSecretFile("NTFYPASS8secret\n", to: dir.path + "/ntfy-password")
        let header = "Basic " + Data("u:NTFYPASS8secret".utf8).base64EncodedString()
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract(authorization: header))
        receiver.script([.json(status: 502, body: Data(#"{"code":50200,"http":502,"error":"upstream refused Authorization: \#(header)"}"#.utf8))])
        let p = try ServiceFixtures.presenter(NtfyPresenterConfiguration.self, [
            "url": receiver.base + "/t", "username": "u", "password_file": dir.path + "/ntfy-password",
        ])
        #expect(await p.present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery)
            == .retryableFailure(reason: "HTTP 502 from ntfy (\(receiver.base)): upstream refused Authorization: Basic ***"))
        let url = "https://ops:hunter2%21x@ntfy.example/t"
        let echoed = "Basic " + Data("ops:hunter2!x".utf8).base64EncodedString() + ", base64url " + Base64URL.encode(Array("ops:hunter2!x".utf8))
        #expect(PresenterSecrets().including(passwordOf: url).hidden(in: "\(echoed); hunter2%21x, hunter2!x; Basic dXNlcjpvdGhlcg==")
            == "Basic ***, base64url ***; ***, ***; Basic dXNlcjpvdGhlcg==")
    }

    @Test func errorsAreJudgedWithNtfysOwnWords() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract(authorization: nil))
        receiver.script([
            HTTPResponse(status: 429, headers: ["Retry-After": "12", "Content-Type": "application/json"],
                         body: Data(#"{"code":42901,"http":429,"error":"limit reached: too many requests"}"#.utf8)),
            .json(status: 403, body: Data(#"{"code":40301,"http":403,"error":"forbidden"}"#.utf8)),
            .json(status: 502, body: Data(#"{"code":50200,"http":502,"error":"upstream"}"#.utf8)),
        ])
        let p = try ServiceFixtures.presenter(NtfyPresenterConfiguration.self, ["url": receiver.base + "/t"])
        let alert = try ServiceFixtures.alert()
        let target = "ntfy (\(receiver.base))"
        #expect(await p.present(alert, delivery: ServiceFixtures.delivery)
            == .retryableFailure(reason: "HTTP 429 from \(target): limit reached: too many requests", retryAfter: .seconds(12)))
        #expect(await p.present(alert, delivery: ServiceFixtures.delivery) == .permanentFailure(reason: "HTTP 403 from \(target): forbidden"))
        #expect(await p.present(alert, delivery: ServiceFixtures.delivery) == .retryableFailure(reason: "HTTP 502 from \(target): upstream"))
    }

    @Test func theTopicComesFromTheURL() {
        #expect(NtfyPresenterConfiguration.split(topicURL: "https://ntfy.sh/mytopic")! == ("https://ntfy.sh/", "mytopic"))
        #expect(NtfyPresenterConfiguration.split(topicURL: "http://127.0.0.1:8080/ntfy/alerts_1")! == ("http://127.0.0.1:8080/ntfy/", "alerts_1"))
        #expect(ServiceFixtures.read(NtfyPresenterConfiguration.self, ["url": "https://ntfy.sh/a"]).1.isEmpty)
        for url in ["https://ntfy.sh/", "https://ntfy.sh/bad-topic!", "https://ntfy.sh/t?x=1"] {
            #expect(ServiceFixtures.read(NtfyPresenterConfiguration.self, ["url": url]).1.first?.hasPrefix("presenters.p.url: must end in the topic") == true, "\(url)")
        }
        // A space is no URL at all, in any presenter's url.
        #expect(ServiceFixtures.read(NtfyPresenterConfiguration.self, ["url": "https://ntfy.sh/bad topic"]).1
            == ["presenters.p.url: must be a http:// or https:// URL with a host, with no spaces or control characters (write a space as %20)"])
        #expect(ServiceFixtures.read(NtfyPresenterConfiguration.self, ["url": "https://ntfy.sh/a", "username": "u"]).1
            == ["presenters.p: give username and password (or password_file) together"])
        #expect(ServiceFixtures.read(NtfyPresenterConfiguration.self, ["url": "https://ntfy.sh/a", "token": "t", "username": "u", "password": "p"]).1
            == ["presenters.p: give token or username and password, not both"])
    }

    /// The daemon publishes to ntfy with signed links in the buttons; the
    /// phone's POST of a button's link decides the alert and calls its handler.
    @Test func aButtonInTheNotificationDecidesTheAlertInTheDaemon() async throws {
        let ntfy = try ServiceReceiver(success: Self.accepted, contract: Self.contract(authorization: "Bearer tk_e2e"))
        let handler = try WebhookReceiver()
        let d = try TestDaemon(config: [
            "api": ["public_url": "$BASE_URL"],
            "actions": ["allow": ["127.0.0.1"], "timeout": "2s"],
            "presenters": ["phone": ["type": "ntfy", "url": ntfy.base + "/oncall", "token": "tk_e2e"]],
        ])
        try await d.start()
        let id = try await d.send([
            "title": "Restart db1?", "severity": "error",
            "confirm": ["label": "Restart", "url": handler.url + "/restart"], "cancel": ["label": "Leave", "url": handler.url + "/leave"],
        ])
        #expect(await ntfy.wait(for: 1))
        let published = try #require(ntfy.received.first)
        #expect(published.problems.isEmpty, "\(published.problems)")
        let restart = J(published.json)["actions"][0]
        #expect(restart["label"].string == "Restart")
        let link = try #require(restart["url"].string)
        #expect(link.hasPrefix(d.baseURL + "/v1/alerts/\(id)/actions/confirm?"))

        // What the ntfy app does when the button is tapped.
        let tapped = try await HTTPClient.shared.send(HTTPClientRequest(url: link, method: try #require(restart["method"].string)))
        #expect(tapped.status == 200, "\(String(decoding: tapped.body, as: UTF8.self))")
        #expect(try await d.show(id)["state"] as? String == "confirmed")
        #expect(await handler.wait { $0.count == 1 })
        #expect(handler.received.first?.request.path == "/hook/restart")
        await handler.stop()
    }
}

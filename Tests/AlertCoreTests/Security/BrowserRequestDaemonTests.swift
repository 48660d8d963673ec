import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdDelivery

/// A web page in someone's browser must not be able to act on the TCP
/// listener: not by posting a form to it (CSRF), and not by pointing its
/// own name at it (DNS rebinding). alertctl, curl and scripts keep working,
/// the signed action link's page keeps working from alertd itself, and the
/// Unix socket, which no browser reaches, is left as it was.
@Suite(.serialized) struct BrowserRequestDaemonTests {
    static let formPost: HTTPHeaders = ["Origin": "http://evil.example", "Content-Type": "application/x-www-form-urlencoded"]

    func daemon(publicURL: String = "https://alerts.example", token: String? = nil) async throws -> TestDaemon {
        var api: [String: Any] = ["public_url": publicURL]
        let d = try TestDaemon(config: ["api": api])
        if let token {
            let path = d.dir.path + "/api-token"
            try writeSecretFile(token, to: path)
            api["token_file"] = path
            try JSONSerialization.data(withJSONObject: [
                "presenters": ["log": ["type": "log", "path": "alerts.log"]], "api": api,
            ]).write(to: URL(fileURLWithPath: d.configPath))
        }
        try await d.start()
        return d
    }

    func code(_ r: HTTPClientResponse) -> String? {
        (((try? JSONSerialization.jsonObject(with: r.body)) as? [String: Any])?["error"] as? [String: Any])?["code"] as? String
    }

    /// The review's forgery: an empty decision POST with a form's content type.
    @Test func formPostsAndForeignOriginsCannotDecideOrReplayOverTCP() async throws {
        let d = try await daemon()
        let id = try await d.send(["title": "Deploy?"])
        for path in ["/v1/alerts/\(id)/confirm", "/v1/deliveries/replay"] {
            let forged = try await d.request("POST", path, body: Data(), headers: Self.formPost, tcp: true)
            #expect(forged.status == 403, "\(path)")
            #expect(code(forged) == "cross_origin_request")
            // No Origin (a browser that leaves it out) and a type a form or a no-cors fetch can send: 415.
            for type in ["application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x"] {
                let plain = try await d.request("POST", path, body: Data(), headers: ["Content-Type": type], tcp: true)
                #expect(plain.status == 415, "\(path) \(type)")
                #expect(code(plain) == "unsupported_media_type")
            }
            let none = try await d.request("POST", path, body: Data(), tcp: true)
            #expect(none.status == 415, "\(path) without a type")
            // Sec-Fetch-Site tells another site sent it, even with the JSON type.
            let sameSite = try await d.request("POST", path, body: Data(),
                                               headers: ["Content-Type": "application/json", "Sec-Fetch-Site": "same-site"], tcp: true)
            #expect(sameSite.status == 403)
        }
        #expect(try await d.show(id)["state"] as? String == "open")

        // A program sends the JSON type (with or without a body) and no Origin: fine.
        #expect(try await d.request("POST", "/v1/deliveries/replay", body: Data(), headers: ["Content-Type": "application/json"], tcp: true).status == 200)
        let decided = try await d.request("POST", "/v1/alerts/\(id)/confirm", body: Data(), headers: ["Content-Type": "application/json"], tcp: true)
        #expect(decided.status == 200)
        // A cross-site read is refused too, not only writes.
        let read = try await d.request("GET", "/v1/alerts", headers: ["Origin": "http://evil.example"], tcp: true)
        #expect(read.status == 403)

        // The Unix socket is unaffected: no browser reaches it.
        let other = try await d.send(["title": "Second"])
        #expect(try await d.request("POST", "/v1/alerts/\(other)/cancel", body: Data(), headers: Self.formPost).status == 200)
        // alertctl over TCP still works (it sends the JSON type even without a body).
        let third = try await d.send(["title": "Third"])
        let cli = try await TestBinaries.run(try TestBinaries.alertctl, ["confirm", "--url", d.baseURL, third], environment: [:])
        #expect(cli.exitCode == 0, "\(cli.stderr)")
    }

    /// No form sends `DELETE`, and a script on another origin only after a
    /// CORS check alertd never passes: a bare one (what `amtool silence
    /// expire` sends) needs no JSON type, while a page's is still refused.
    @Test func aBareDeleteLikeAmtoolsExpiresASilenceOverTCP() async throws {
        let d = try await daemon()
        func silence() async throws -> String {
            let r = try await d.request("POST", "/api/v2/silences", json: [
                "matchers": [["name": "alertname", "value": "Disk", "isRegex": false]], "startsAt": "2026-01-01T00:00:00Z",
                "endsAt": "2099-01-01T00:00:00Z", "createdBy": "test", "comment": "maintenance",
            ], tcp: true)
            #expect(r.status == 200, "\(String(decoding: r.body, as: UTF8.self))")
            return try #require((try JSONSerialization.jsonObject(with: r.body) as? [String: Any])?["silenceID"] as? String)
        }
        func state(_ id: String) async throws -> String? {
            let r = try await d.request("GET", "/api/v2/silence/\(id)", tcp: true)
            return (try JSONSerialization.jsonObject(with: r.body) as? [String: Any])?["status"].flatMap { ($0 as? [String: Any])?["state"] as? String }
        }
        let first = try await silence()
        let fromPage = try await d.request("DELETE", "/api/v2/silence/\(first)", headers: ["Origin": "http://evil.example"], tcp: true)
        #expect(fromPage.status == 403)
        #expect(try await state(first) == "active")

        let amtool = try ExternalProgram.path(of: "amtool")
        let home = d.dir.path + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let expire = try await TestBinaries.run(amtool, ["silence", "expire", "--alertmanager.url=\(d.baseURL)", first],
                                                environment: ["HOME": home])
        #expect(expire.exitCode == 0, "\(expire.stderr)")
        #expect(try await state(first) == "expired")
    }

    /// DNS rebinding: the page's own name, now pointing at 127.0.0.1, is in `Host`.
    /// A TCP caller without the token is refused on its request's head: its
    /// body is never read. 300 of them each sending a body of the 1 MiB
    /// limit once grew the daemon by 320 MB before any got its 401.
    @Test func aBodyWithoutTheTokenIsNotRead() async throws {
        let d = try await daemon(token: "s3cret-token-for-tests")
        let head = "POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n"
        // Only the head is sent: the answer comes without waiting for the megabyte.
        let anonymous = try RawSocket(port: d.port)
        anonymous.send(head + "\r\n")
        let (refused, closed) = await anonymous.readToEnd()
        #expect(refused.hasPrefix("HTTP/1.1 401 "), "\(refused)")
        #expect(refused.contains("\"code\":\"unauthorized\""), "\(refused)")
        #expect(closed)
        let wrong = try RawSocket(port: d.port)
        wrong.send(head + "Authorization: Bearer not-the-token\r\n\r\n")
        #expect(await wrong.readToEnd().text.hasPrefix("HTTP/1.1 401 "))
        // With the token the same head is read to its end, body and all.
        let body = #"{"title":"screened"}"#
        let holder = try RawSocket(port: d.port)
        holder.send("POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: Bearer s3cret-token-for-tests\r\n"
                    + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body)
        #expect(await holder.readToEnd().text.hasPrefix("HTTP/1.1 202 "))
        // An open route (health) is not screened, and the Unix socket never is.
        #expect(try await d.request("GET", "/v1/health", tcp: true).status == 200)
        #expect(try await d.request("POST", "/v1/alerts", json: ["title": "local"]).status == 202)
    }

    @Test func hostMustNameThisDaemon() async throws {
        let d = try await daemon()
        for host in ["evil.example", "evil.example:\(d.port)", "127.0.0.1.nip.io:\(d.port)", "alerts.example.evil.example"] {
            for path in ["/v1/health", "/v1/alerts"] {
                let r = try await d.request("GET", path, headers: ["Host": host], tcp: true)
                #expect(r.status == 421, "\(host) \(path)")
                #expect(code(r) == "unknown_host")
            }
        }
        for host in ["127.0.0.1:\(d.port)", "localhost:\(d.port)", "LOCALHOST", "localhost.", "[::1]:\(d.port)", "alerts.example", "Alerts.Example:443"] {
            #expect(try await d.request("GET", "/v1/alerts", headers: ["Host": host], tcp: true).status == 200, "\(host)")
        }
        #expect(try await d.request("GET", "/v1/alerts", headers: ["Host": "evil.example"]).status == 200, "the socket")

        // With a token, the right token lets any name through: no rebinding page has it.
        let token = "s3cret-token-0123456789"
        let guarded = try await daemon(token: token)
        let named = try await guarded.request("GET", "/v1/alerts", headers: ["Host": "alertd.internal", "Authorization": "Bearer \(token)"], tcp: true)
        #expect(named.status == 200)
        #expect(try await guarded.request("GET", "/v1/health", headers: ["Host": "alertd.internal"], tcp: true).status == 421)
    }

    /// The signed link, as alertd's own page serves and posts it.
    func link(_ d: TestDaemon, _ id: String, _ action: ActionKind = .confirm) throws -> String {
        let key = try #require(FileManager.default.contents(atPath: d.stateDir + "/action-links.key"))
        let expires = Int64(Date().timeIntervalSince1970) + 3600
        let token = ActionLinkSigner(key: Array(key), publicURL: d.baseURL).token(try #require(AlertID(id)), action, expires)
        return "/v1/alerts/\(id)/actions/\(action.rawValue)?expires=\(expires)&token=\(token)"
    }

    @Test func theActionPageIsLockedDownAndItsOwnFormStillDecides() async throws {
        let d = try await daemon(publicURL: "$BASE_URL")
        let confirm: [String: Any] = ["label": "Deploy", "url": "https://ops.example/deploy"]
        // A letter that prepends itself to the next character (U+0D4E) and a
        // combining mark each make one Character with a `<`: escaped by
        // Characters, these tags came through (a redirect away, a form that
        // swallowed the page's own).
        let message = "Please confirm. \u{0D4E}<meta http-equiv=refresh content=0;url=http://evil.example/ \u{0D4E}> <\u{0301}form>"
        let id = try await d.send(["title": "Deploy <b>4.2</b>?", "message": message, "confirm": confirm])
        let path = try link(d, id)

        let page = try await d.request("GET", path, headers: ["Accept": "text/html"], tcp: true)
        #expect(page.status == 200)
        // By bytes: a search by Characters cannot see a `<` glued to its neighbour.
        let has = { (text: String) in page.body.range(of: Data(text.utf8)) != nil }
        #expect(!has("<meta http") && !has("<\u{0301}") && !has("\u{0D4E}>"), "\(String(decoding: page.body, as: UTF8.self))")
        #expect(has("\u{0D4E}&lt;meta") && has("&lt;\u{0301}form&gt;"), "\(String(decoding: page.body, as: UTF8.self))")
        #expect(page.headers["Content-Security-Policy"] == "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
        #expect(page.headers["Cache-Control"] == "no-store")
        #expect(page.headers["X-Content-Type-Options"] == "nosniff")
        #expect(page.headers["Referrer-Policy"] == "no-referrer")
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("<form method=\"post\">") && html.contains("Deploy &lt;b&gt;4.2&lt;/b&gt;?"))

        // Posted from another site, or from an opaque origin another site made: refused.
        let formType = "application/x-www-form-urlencoded"
        for headers: HTTPHeaders in [["Origin": "http://evil.example", "Content-Type": formType],
                                     ["Origin": "null", "Sec-Fetch-Site": "cross-site", "Content-Type": formType],
                                     ["Sec-Fetch-Site": "cross-site", "Content-Type": formType]] {
            let r = try await d.request("POST", path, body: Data(), headers: headers, tcp: true)
            #expect(r.status == 403, "\(headers)")
            #expect(code(r) == "cross_origin_request")
        }
        #expect(try await d.show(id)["state"] as? String == "open")

        // The page's own button: under `Referrer-Policy: no-referrer` a browser sends `Origin: null`.
        let posted = try await d.request("POST", path, body: Data(), headers: [
            "Origin": "null", "Sec-Fetch-Site": "same-origin", "Content-Type": formType, "Accept": "text/html",
        ], tcp: true)
        #expect(posted.status == 200)
        #expect(String(decoding: posted.body, as: UTF8.self).contains("Done: the alert is now confirmed."))
        #expect(posted.headers["Content-Security-Policy"] != nil && posted.headers["Cache-Control"] == "no-store")
        #expect(try await d.show(id)["state"] as? String == "confirmed")

        // A browser that names the page's origin instead is fine too.
        let second = try await d.send(["title": "Second", "confirm": confirm])
        let sameOrigin = try await d.request("POST", try link(d, second), body: Data(), headers: [
            "Origin": d.baseURL, "Content-Type": formType, "Accept": "text/html",
        ], tcp: true)
        #expect(sameOrigin.status == 200)
    }
}

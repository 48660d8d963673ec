import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdDaemon

/// `api.tokens_file` in the real daemon: held to the secret-file rules,
/// checked entry by entry without echoing a secret, picked up on SIGHUP,
/// and a reload that cannot read it keeps the tokens that work.
@Suite struct NamedTokenDaemonTests {
    static let alice = "alice-0123456789abcdef"
    static let aliceRotated = "alice-rotated-0123456789"
    static let bob = "bob-0123456789abcdef"
    static let admin = "admin-0123456789abcdef"

    func tokens(_ entries: [String: (String, [String])]) -> String {
        let object = entries.mapValues { ["token": $0.0, "scopes": $0.1] as [String: Any] }
        return String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    func call(_ d: TestDaemon, _ method: String, _ path: String, token: String, json: Any? = nil) async throws -> HTTPClientResponse {
        try await d.request(method, path, json: json, headers: ["Authorization": "Bearer \(token)"], tcp: true)
    }

    @Test func aTokensFileIsCheckedWithoutRevealingItsSecrets() async throws {
        let files = TemporaryDirectory()
        let path = files.path + "/tokens.json"
        try writeSecretFile(tokens(["alice": ("short-secret", ["read", "fly"]), "bad name": (Self.bob, ["read"])]), to: path)
        let d = try TestDaemon(config: ["api": ["tokens_file": path]])
        let check = try await d.checkConfig()
        #expect(check.exitCode == 65)
        #expect(check.stderr.contains("alice.token: is shorter than 16 characters"), "\(check.stderr)")
        #expect(check.stderr.contains("alice.scopes: must list one or more of read, send, decide, admin"), "\(check.stderr)")
        #expect(check.stderr.contains("`bad name`: a token's name"), "\(check.stderr)")
        #expect(!check.stderr.contains("short-secret") && !check.stderr.contains(Self.bob))

        try writeSecretFile("{\"alice\": {\"token\": \"\(Self.alice)\", \"scopes\": [\"read\"]", to: path)
        let broken = try await d.checkConfig()
        #expect(broken.stderr.contains("is not a JSON object of named tokens"), "\(broken.stderr)")
        #expect(!broken.stderr.contains(Self.alice))

        try writeSecretFile(tokens(["alice": (Self.alice, ["read"])]), to: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let readable = try await d.checkConfig()
        #expect(readable.stderr.contains("the secret file \(path) may be read by every user (mode 0644)"), "\(readable.stderr)")
    }

    /// An event stream is let in once, when it opens: it went on after its
    /// token was taken out and reloaded. It now ends at the next event it
    /// would have sent, and sends none of them.
    @Test func anEventStreamEndsWhenItsTokenIsRevoked() async throws {
        let files = TemporaryDirectory()
        let path = files.path + "/tokens.json"
        try writeSecretFile(tokens(["alice": (Self.alice, ["read"]), "bob": (Self.bob, ["read"])]), to: path)
        let config: [String: Any] = ["api": ["tokens_file": path]]
        let d = try TestDaemon(config: config)
        try await d.start()
        let curl = try ExternalProgram("curl", ["-sN", "--max-time", "30", "-H", "Authorization: Bearer \(Self.alice)",
                                                 d.baseURL + "/v1/events?since=now"], logPath: files.path + "/stream.txt")
        defer { curl.signal(SIGKILL) }
        try await Task.sleep(for: .milliseconds(300))
        let before = try await d.send(["title": "Seen"])
        #expect(try await eventually(.seconds(10)) { curl.log.contains(before) }, "\(curl.log)")

        try writeSecretFile(tokens(["bob": (Self.bob, ["read"])]), to: path)
        try await d.reload(config)
        let after = try await d.send(["title": "Not for alice"])
        #expect(await curl.waitForExit(timeout: .seconds(10)) != nil, "the stream went on: \(curl.log)")
        #expect(!curl.log.contains(after))
    }

    /// `send --wait` with a token that may send but not read asked people
    /// the question, then failed to follow the alert, exiting 1 as for a
    /// cancelled one. It now says so before sending anything.
    @Test func sendWaitWithATokenThatCannotReadSendsNothing() async throws {
        let files = TemporaryDirectory()
        let path = files.path + "/tokens.json"
        try writeSecretFile(tokens(["deploy": (Self.alice, ["send"]), "ci": (Self.bob, ["send", "read"])]), to: path)
        try writeSecretFile(Self.alice, to: files.path + "/deploy")
        try writeSecretFile(Self.bob, to: files.path + "/ci")
        let d = try TestDaemon(config: ["api": ["tokens_file": path]])
        try await d.start()
        func send(_ tokenFile: String) async throws -> TestBinaries.Result {
            try await TestBinaries.run(try TestBinaries.alertctl, [
                "--url", d.baseURL, "--token-file", files.path + "/" + tokenFile,
                "send", "--title", "Deploy?", "--confirm", "Yes=https://hooks.example/yes", "--wait", "--timeout", "1s",
            ])
        }
        let refused = try await send("deploy")
        // Not 1, which under --wait means a person said no: 77, the token's scope, nothing sent.
        #expect(refused.exitCode == 77)
        #expect(refused.stderr.contains("[scope_missing]"), "\(refused.stderr)")
        #expect(refused.stderr.contains("nothing was sent: --wait follows the alert, which needs the `read` scope too"), "\(refused.stderr)")
        #expect(refused.stdout.isEmpty, "\(refused.stdout)")
        #expect(try await d.alertctl(["list", "--json"]).stdout.contains("Deploy?") == false)

        let waited = try await send("ci")
        #expect(waited.exitCode == 2, "\(waited.stderr)")
        #expect(waited.stderr.contains("still open after"), "\(waited.stderr)")
    }

    @Test func namedTokensActWithinTheirScopesAndAReloadPicksUpChanges() async throws {
        let files = TemporaryDirectory()
        let path = files.path + "/tokens.json", single = files.path + "/token"
        try writeSecretFile(tokens(["alice": (Self.alice, ["read"])]), to: path)
        try writeSecretFile(Self.admin, to: single)
        let config: [String: Any] = ["api": ["tokens_file": path, "token_file": single]]
        let d = try TestDaemon(config: config)
        try await d.start()

        let first = try await d.send(["title": "Deploy?"])
        #expect(try await call(d, "GET", "/v1/alerts/\(first)", token: Self.alice).status == 200)
        let refused = try await call(d, "POST", "/v1/alerts/\(first)/confirm", token: Self.alice, json: [String: Any]())
        #expect(refused.status == 403)
        #expect(try HTTPErrorBody.decode(refused.body).code == "scope_missing")
        #expect(try await call(d, "GET", "/v1/alerts", token: Self.bob).status == 401)
        // api.token_file's token still does everything, as `token`.
        let byAdmin = try await call(d, "POST", "/v1/alerts/\(first)/confirm", token: Self.admin, json: [String: Any]())
        #expect(byAdmin.status == 200)
        #expect(try await d.show(first)["decision"].flatMap { ($0 as? [String: Any])?["actor"] as? String } == "token")

        // SIGHUP: alice may now decide, bob is new.
        try writeSecretFile(tokens(["alice": (Self.alice, ["read", "decide"]), "bob": (Self.bob, ["send"])]), to: path)
        try await d.reload(config)
        // The reload says which tokens it changed (it said `changed=nothing`), by name.
        #expect(d.log.contains("tokens added: bob; tokens changed: alice"), "\(d.log)")
        let second = try await d.send(["title": "Roll back?"])
        #expect(try await call(d, "POST", "/v1/alerts/\(second)/cancel", token: Self.alice, json: ["comment": "not now"]).status == 200)
        let decision = try #require(try await d.show(second)["decision"] as? [String: Any])
        #expect(decision["actor"] as? String == "alice")
        #expect(try await call(d, "POST", "/v1/alerts", token: Self.bob, json: ["title": "from bob"]).status == 202)
        let shown = try await d.alertctl(["show", second])
        #expect(shown.stdout.contains("cancelled by alice at 20"), "\(shown.stdout)")
        #expect(shown.stdout.contains("not now"), "\(shown.stdout)")

        // A reload that cannot read the file keeps the tokens in force.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let failures = d.log.components(separatedBy: "reload failed").count
        d.signal(SIGHUP)
        let deadline = ContinuousClock.now + .seconds(10)
        while d.log.components(separatedBy: "reload failed").count == failures, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(d.log.contains("may be read by every user"), "\(d.log)")
        #expect(try await call(d, "GET", "/v1/alerts", token: Self.alice).status == 200)

        // Rotating alice's secret retires the old one.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        try writeSecretFile(tokens(["alice": (Self.aliceRotated, ["read"])]), to: path)
        try await d.reload(config)
        #expect(try await call(d, "GET", "/v1/alerts", token: Self.alice).status == 401)
        #expect(try await call(d, "GET", "/v1/alerts", token: Self.aliceRotated).status == 200)
        #expect(try await call(d, "GET", "/v1/alerts", token: Self.bob).status == 401)
        #expect(d.log.contains("tokens removed: bob; tokens changed: alice"), "\(d.log)")
        for secret in [Self.alice, Self.aliceRotated, Self.bob, Self.admin] { #expect(!d.log.contains(secret)) }
    }
}

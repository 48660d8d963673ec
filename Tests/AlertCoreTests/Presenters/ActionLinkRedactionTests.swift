import Foundation
import Testing
@testable import AlertdDelivery

/// A signed link decides an alert for whoever holds it: it is shown whole
/// only on a real terminal, and logs (alertd's own, journald, alerts.log)
/// say that a link was offered without its token.
@Suite(.serialized) struct ActionLinkRedactionTests {
    static var presenters: [String: Any] { [
        "terminal": ["type": "terminal"],
        "log": ["type": "log", "path": "alerts.log"],
        // Standard error: the daemon's own log stream, journald under systemd.
        "stderr": ["type": "log", "format": "logfmt"],
        // Records the links as given, so the test knows the real tokens.
        "sink": ["type": "test", "record": "presented.jsonl"],
    ] }
    static var question: [String: Any] { [
        "title": "Restart nginx?",
        "confirm": ["label": "Restart", "url": "https://ops.example/restart"],
        "cancel": ["label": "Leave it", "url": "https://ops.example/noop"],
    ] }

    /// The tokens of the links the sink was given for `id`.
    func tokens(_ sink: TestPresenterLog, _ id: String) async throws -> [String] {
        #expect(await sink.wait { $0.contains { $0.alertID == id } })
        let links = try #require(sink.entries.first { $0.alertID == id }).actionLinks
        #expect(links.count == 2)
        return try links.values.map { link in
            let token = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "token" }?.value)
            #expect(token.count > 20 && token != ActionLinkSigner.redactedToken)
            return token
        }
    }

    @Test func theTokenIsReplacedAndTheRestKept() {
        let link = "https://alertd.example/v1/alerts/01972b3c/actions/confirm?expires=1767225600&token=c2VjcmV0LXRva2Vu"
        #expect(ActionLinkSigner.redacted(link) == "https://alertd.example/v1/alerts/01972b3c/actions/confirm?expires=1767225600&token=REDACTED")
        #expect(ActionLinkSigner.redacted("https://alertd.example/x?token=abc&expires=1") == "https://alertd.example/x?token=REDACTED&expires=1")
        #expect(ActionLinkSigner.redacted("alertctl confirm 0197") == "alertctl confirm 0197")
    }

    @Test func logsJournalAndAPipedTerminalCarryNoToken() async throws {
        let d = try TestDaemon(config: ["api": ["public_url": "https://alertd.example"], "presenters": Self.presenters])
        try await d.start()
        let id = try await d.send(Self.question)
        let tokens = try await tokens(TestPresenterLog(d), id)
        let alertsLog = d.stateDir + "/alerts.log"
        let deadline = ContinuousClock.now + .seconds(10)
        func written() -> Bool {
            let file = (try? String(contentsOfFile: alertsLog, encoding: .utf8)) ?? ""
            // The terminal block (its frame) and the stderr line, in alertd's output.
            return file.contains(id) && d.log.contains("╰") && d.log.contains("id=\(id)")
        }
        while !written(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(written(), "log:\n\(d.log)")
        let file = try String(contentsOfFile: alertsLog, encoding: .utf8)

        for token in tokens {
            #expect(!d.log.contains(token), "alertd's output (stdout and stderr) carries a token")
            #expect(!file.contains(token), "alerts.log carries a token")
        }
        // That a link was offered, and for what, is still said.
        let line = try #require(try JSONSerialization.jsonObject(with: Data(file.split(separator: "\n").last!.utf8)) as? [String: Any])
        let confirm = try #require(line["confirm_link"] as? String)
        #expect(confirm.hasPrefix("https://alertd.example/v1/alerts/\(id)/actions/confirm?expires="))
        #expect(confirm.hasSuffix("&token=REDACTED"))
        #expect((line["cancel_link"] as? String)?.hasSuffix("&token=REDACTED") == true)
        #expect(d.log.contains("confirm_link=\"https://alertd.example/v1/alerts/\(id)/actions/confirm?expires="))
        #expect(d.log.contains("/v1/alerts/\(id)/actions/cancel?expires="))
        #expect(d.log.components(separatedBy: "token=REDACTED").count >= 5, "two links on the terminal, two on stderr")
    }

    @Test func aRealTerminalShowsTheWholeLink() async throws {
        let tty = try PseudoTerminal()
        let d = try TestDaemon(config: [
            "api": ["public_url": "https://alertd.example"],
            "presenters": ["terminal": Self.presenters["terminal"]!, "sink": Self.presenters["sink"]!],
        ])
        // Wide enough that a link is never wrapped across lines.
        try await d.start(environment: ["COLUMNS": "400"], standardOutput: tty.replica)
        let id = try await d.send(Self.question)
        let sink = TestPresenterLog(d)
        _ = try await tokens(sink, id)
        // Each delivery signs its links when it starts, valid for the link
        // lifetime from then: the terminal's and the sink's carry the same
        // token when they started within the same second, and another
        // expiry, so another token, when a second ticked between them.
        for link in try #require(sink.entries.first { $0.alertID == id }).actionLinks.values {
            let given = try #require(URLComponents(string: link))
            let path = given.path
            // The box's last line: the link above it is whole by then.
            #expect(await tty.wait(for: path + "?expires="), "terminal output:\n\(tty.output)")
            #expect(await tty.wait(for: "╰"), "terminal output:\n\(tty.output)")
            let shown = try #require(Self.shownLink(tty.output, path: path), "terminal output:\n\(tty.output)")
            let expires = given.queryItems?.first { $0.name == "expires" }?.value
            let token = given.queryItems?.first { $0.name == "token" }?.value
            if shown.expires == expires {
                #expect(shown.token == token)
            } else {
                #expect(shown.token.count == token?.count && shown.token != ActionLinkSigner.redactedToken)
            }
        }
        #expect(!tty.output.contains("token=REDACTED"))
    }

    /// The expiry and token of the link for `path` in a terminal's output.
    static func shownLink(_ output: String, path: String) -> (expires: String, token: String)? {
        guard let start = output.range(of: path + "?expires=") else { return nil }
        let rest = output[start.upperBound...]
        let expires = rest.prefix { $0.isNumber }
        guard rest.dropFirst(expires.count).hasPrefix("&token=") else { return nil }
        let token = rest.dropFirst(expires.count + "&token=".count).prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        return (String(expires), String(token))
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdCurl
@testable import AlertdDelivery
@testable import AlertdDaemon

/// Action links that name the address they were sent to, end to end: a real
/// alertd mails an alert with actions through a real SMTP server (aiosmtpd),
/// one message per recipient, and the link clicked records who it was sent
/// to, in the API, alertctl and the handler call. Tampered links are
/// refused, and links without a recipient (all those sent before) still work.
@Suite(.serialized, .enabled(if: SMTPReceiver.available, "python3 with aiosmtpd is missing; run scripts/install-deps.sh --test"))
struct ActionLinkRecipientTests {
    func daemon(smtp: SMTPReceiver) throws -> TestDaemon {
        try TestDaemon(config: [
            "api": ["public_url": "$BASE_URL"],
            "actions": ["allow": ["127.0.0.1"], "timeout": "2s"],
            "presenters": ["mail": [
                "type": "email", "url": smtp.url, "from": "alertd@example.com",
                "to": ["alice@example.com", "Bob <bob@example.com>"], "tls": "none",
            ]],
            "default_route": ["presenters": ["mail"]],
        ])
    }

    func decisionAlert(_ handler: WebhookReceiver, title: String) -> [String: Any] {
        ["title": title, "confirm": ["label": "Deploy", "url": handler.url + "/confirm"],
         "cancel": ["label": "Abort", "url": handler.url + "/cancel"]]
    }

    func json(_ r: HTTPClientResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: r.body)) as? [String: Any] ?? [:]
    }

    /// The mails received so far, once `count` have arrived.
    func mails(_ smtp: SMTPReceiver, count: Int) async throws -> [SMTPReceiver.Mail] {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            let mails = try smtp.mails()
            if mails.count >= count { return mails }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestDaemon.Failure("expected \(count) mails, got \(try smtp.mails().count)")
    }

    /// The link labelled `label` in a mail's text part, as path and query.
    func link(_ mail: SMTPReceiver.Mail, _ label: String) throws -> String {
        let text = try #require(mail.parts.first?["content"] as? String)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("\(label): http") })
        return ActionsIntegrationTests.pathAndQuery(String(line.dropFirst(label.count + 2)))
    }

    @Test func eachRecipientGetsItsOwnLinksAndTheClickedOneRecordsItsAddress() async throws {
        let smtp = try await SMTPReceiver()
        let handler = try WebhookReceiver()
        let d = try daemon(smtp: smtp)
        try await d.start()
        // Sent as a script would, waiting for the answer.
        let waiting = Task {
            try await d.alertctl(["send", "--wait", "--timeout", "60s", "--title", "Deploy 4.2 to prod?",
                                  "--confirm", "Deploy=\(handler.url)/confirm", "--cancel", "Abort=\(handler.url)/cancel"])
        }

        // Two messages, one per recipient, each naming everyone in its headers but
        // sent to one address, with links signed for that address.
        let mails = try await mails(smtp, count: 2)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try smtp.mails().count == 2)
        let byRecipient = Dictionary(uniqueKeysWithValues: mails.map { ($0.recipients.joined(separator: ","), $0) })
        let alice = try #require(byRecipient["alice@example.com"])
        let bob = try #require(byRecipient["bob@example.com"])
        for mail in [alice, bob] {
            #expect(mail.parsed["to"] as? [String] == ["alice@example.com", "bob@example.com"])
        }
        let aliceConfirm = try link(alice, "Deploy")
        let bobConfirm = try link(bob, "Deploy")
        let id = String(bobConfirm.split(separator: "/")[2])
        #expect(bobConfirm.hasPrefix("/v1/alerts/\(id)/actions/confirm?"))
        #expect(alice.header("message_id") == "<\(id).0.alice-example.com@example.com>")
        #expect(bob.header("message_id") == "<\(id).0.bob-example.com@example.com>")
        #expect(aliceConfirm.contains("&to=alice%40example.com&token="))
        #expect(bobConfirm.contains("&to=bob%40example.com&token="))
        #expect(try link(bob, "Abort").contains("/actions/cancel?") && link(bob, "Abort").contains("to=bob%40example.com"))
        #expect(aliceConfirm.replacingOccurrences(of: "alice%40", with: "bob%40") != bobConfirm, "each recipient has its own signature")

        // Alice's link with Bob's address (or none) is refused, and decides nothing.
        let forged = aliceConfirm.replacingOccurrences(of: "to=alice%40example.com", with: "to=bob%40example.com")
        let stripped = aliceConfirm.replacingOccurrences(of: "&to=alice%40example.com", with: "")
        for tampered in [forged, stripped] {
            let refused = try await d.request("POST", tampered, tcp: true)
            #expect(refused.status == 403, "\(tampered)")
            let error = try #require(json(refused)["error"] as? [String: Any])
            #expect(error["code"] as? String == "invalid_action_link")
            #expect((error["message"] as? String)?.contains("signature does not match") == true)
        }
        #expect(try await d.request("GET", forged, tcp: true).status == 403)
        #expect(try await d.show(id)["state"] as? String == "open")

        // Bob's link: the page says who it was sent to; the POST decides for him.
        let page = try await d.request("GET", bobConfirm, tcp: true)
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("This link was sent to bob@example.com"))
        let decided = try await d.request("POST", bobConfirm, tcp: true)
        #expect(decided.status == 200, "\(String(decoding: decided.body, as: UTF8.self))")
        let decision = try #require(json(decided)["decision"] as? [String: Any])
        #expect(decision["actor"] as? String == "link")
        #expect(decision["recipient"] as? String == "bob@example.com")

        let shown = try #require(try await d.show(id)["decision"] as? [String: Any])
        #expect(shown["actor"] as? String == "link")
        #expect(shown["recipient"] as? String == "bob@example.com")
        #expect(shown["outcome"] as? String == "confirmed")

        let ctl = try await d.alertctl(["show", id])
        #expect(ctl.exitCode == 0, "\(ctl.stderr)")
        #expect(ctl.stdout.contains("confirmed via link by bob@example.com at "), "\(ctl.stdout)")

        #expect(await handler.wait { $0.count >= 1 })
        let call = try #require(handler.received.first)
        #expect(call.request.path == "/hook/confirm")
        let called = try #require(call.json["decision"] as? [String: Any])
        #expect(called["by"] as? String == "link")
        #expect(called["recipient"] as? String == "bob@example.com")

        // The event says so too, as `alertctl watch` reads it.
        let events = try await TestBinaries.run("/usr/bin/curl", ["-sN", "--max-time", "1.5", "--unix-socket", d.socketPath,
                                                                  "http://localhost/v1/events?since=0"])
        let confirmed = events.stdout.split(separator: "\n").first { $0.hasPrefix("data: ") && $0.contains("\"type\":\"alert.confirmed\"") }
        #expect(confirmed?.contains("\"recipient\":\"bob@example.com\"") == true, "\(events.stdout)")

        let waited = try await waiting.value
        #expect(waited.exitCode == 0, "\(waited.stderr)")
        #expect(waited.stdout.contains("confirmed via link by bob@example.com at "), "\(waited.stdout)")

        // Alice's own link now finds the alert decided.
        #expect(try await d.request("POST", aliceConfirm, tcp: true).status == 409)
        await handler.stop()
    }

    @Test func aLinkWithoutARecipientStillDecidesAndRecordsNone() async throws {
        let smtp = try await SMTPReceiver()
        let handler = try WebhookReceiver()
        let d = try daemon(smtp: smtp)
        try await d.start()
        let id = try await d.send(decisionAlert(handler, title: "Roll back?"))
        _ = try await mails(smtp, count: 2)
        // A link as alertd made them before links named recipients: same key, no `to`.
        let key = try #require(try ActionLinkSigner.loadKey(at: d.stateDir + "/action-links.key"))
        let signer = ActionLinkSigner(key: key, publicURL: d.baseURL)
        let old = ActionsIntegrationTests.pathAndQuery(
            signer.link(try #require(AlertID(id)), .cancel, expires: Int64(Date().timeIntervalSince1970) + 3600, recipient: nil))
        #expect(!old.contains("to="))
        #expect(old.hasPrefix("/v1/alerts/\(id)/actions/cancel?expires="))

        let decided = try await d.request("POST", old, tcp: true)
        #expect(decided.status == 200, "\(String(decoding: decided.body, as: UTF8.self))")
        let shown = try #require(try await d.show(id)["decision"] as? [String: Any])
        #expect(shown["actor"] as? String == "link")
        #expect(shown["recipient"] == nil)
        #expect(shown["outcome"] as? String == "cancelled")
        let ctl = try await d.alertctl(["show", id])
        #expect(ctl.stdout.contains("cancelled by link at "), "\(ctl.stdout)")
        #expect(await handler.wait { $0.count >= 1 })
        let called = try #require(handler.received.first?.json["decision"] as? [String: Any])
        #expect(called["by"] as? String == "link")
        #expect(called["recipient"] == nil)
        await handler.stop()
    }
}

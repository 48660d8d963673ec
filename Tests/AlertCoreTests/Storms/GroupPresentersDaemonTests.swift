import Foundation
import Testing
@testable import AlertModel
@testable import AlertdCrypto
@testable import AlertdHTTP
@testable import AlertdDelivery

/// Group notifications from the real daemon to stand-ins for Slack's Web
/// API, a Matrix homeserver, an SMTP server and a webhook receiver, each
/// holding every request to its documented contract: one notification per
/// presenter for a storm, reminders and the resolution threaded under the
/// first where the service can thread, and every action reachable.
@Suite(.serialized, .enabled(if: SMTPReceiver.available, "python3 with aiosmtpd is missing; run scripts/install-deps.sh --test"))
struct GroupPresentersDaemonTests {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    /// A webhook receiver's check: the Standard Webhooks signature over the
    /// exact body, and a group payload.
    static func hookContract(_ request: HTTPRequest) -> [String] {
        guard let signer = try? StandardWebhookSigner(secret: secret), let id = request.headers["webhook-id"],
              let timestamp = request.headers["webhook-timestamp"].flatMap({ Int64($0) }),
              signer.verify(signatureHeader: request.headers["webhook-signature"] ?? "", id: id, timestamp: timestamp, body: request.body)
        else { return ["the signature does not verify"] }
        return ServiceFixtures.jsonContract(request, path: "/hook") { json in
            J(json)["type"].string == "group" && J(json)["group"]["id"].string?.hasPrefix("g-") == true ? [] : ["not a group payload"]
        }
    }

    @Test func aStormIsOneThreadPerPresenterWithItsButtons() async throws {
        let slack = try ServiceReceiver(success: SlackPresenterTests.posted, contract: SlackPresenterTests.botContract)
        let matrix = try ServiceReceiver(success: MatrixPresenterTests.accepted, contract: MatrixPresenterTests.threadContract)
        let hook = try ServiceReceiver(contract: Self.hookContract)
        let smtp = try await SMTPReceiver()
        let everyone = ["chat", "room", "mail", "hook"]
        let d = try TestDaemon(config: [
            "api": ["public_url": "$BASE_URL"],
            "presenters": [
                "chat": ["type": "slack", "token": "xoxb-SECRET", "channel": "C0123456789", "api_url": slack.base + "/api"],
                "room": ["type": "matrix", "url": matrix.base, "room": "!ops:example.org", "token": "syt_SECRET"],
                "mail": ["type": "email", "url": smtp.url, "from": "alertd@example.com", "to": ["ops@example.com"]],
                "hook": ["type": "webhook", "url": hook.base + "/hook", "secret": Self.secret],
            ],
            "routes": [[
                "name": "rack", "match": ["labels": ["alertname": "NodeDown"]], "presenters": everyone,
                "group_by": ["alertname"], "group_wait": "1s", "group_interval": "1s", "repeat_interval": "3s",
            ]],
        ])
        try await d.start()

        // 200 alerts in one request; the first two ask a question.
        let alerts: [[String: Any]] = (0..<200).map { i in
            var a: [String: Any] = ["title": "Node n\(i) down", "labels": ["alertname": "NodeDown", "instance": "n\(i)"]]
            if i < 2 { a["confirm"] = ["label": "Drain", "url": "https://ops.example/drain"] }
            return a
        }
        let posted = try await d.request("POST", "/v1/alerts", json: alerts)
        #expect(posted.status == 202, "\(String(decoding: posted.body, as: UTF8.self))")
        let ids = ((try JSONSerialization.jsonObject(with: posted.body) as? [String: Any])?["results"] as? [[String: Any]] ?? [])
            .compactMap { $0["id"] as? String }
        #expect(ids.count == 200)

        // One notification each, after group_wait.
        for receiver in [slack, matrix, hook] { #expect(await receiver.wait(for: 1, timeout: .seconds(15))) }
        #expect(await eventually(.seconds(15)) { (try? smtp.mails().count) ?? 0 >= 1 })
        try await Task.sleep(for: .milliseconds(500))
        #expect(slack.received.count == 1 && matrix.received.count == 1 && hook.received.count == 1)
        let first = SlackPresenterTests.blocks(slack.received[0])
        #expect(first[0]["text"]["text"].string?.contains("[FIRING:200] alertname=NodeDown") == true)
        let buttons = first.filter { $0["type"].string == "actions" }.flatMap { $0["elements"].array.compactMap { J($0)["url"].string } }
        #expect(buttons.count == 2 && buttons.allSatisfy { $0.contains("/actions/confirm") }, "\(buttons)")
        #expect(first.contains { $0["elements"][0]["text"].string?.hasPrefix("+190 more firing · <http://127.0.0.1:") == true })
        let firstHook = J(hook.received[0].json)["group"]
        #expect(firstHook["reason"].string == "first" && firstHook["counts"]["firing"].int == 200)
        #expect(firstHook["firing"].array.filter { J($0)["confirm"]["link"].exists }.count == 2)

        // A reminder after repeat_interval, in each thread.
        for receiver in [slack, matrix, hook] { #expect(await receiver.wait(for: 2, timeout: .seconds(15))) }
        #expect(J(slack.received[1].json)["thread_ts"].string == SlackPresenterTests.ts)
        #expect(J(matrix.received[1].json)["m.relates_to"]["event_id"].string == "$abc")
        #expect(J(hook.received[1].json)["group"]["reason"].string == "reminder")

        // Every alert resolves: one resolution each, in the thread.
        for id in ids { #expect(try await d.request("POST", "/v1/alerts/\(id)/resolve", json: [String: Any]()).status == 200) }
        #expect(await eventually(.seconds(15)) { hook.received.contains { J($0.json)["group"]["reason"].string == "resolved" } })
        #expect(await eventually(.seconds(15)) { slack.received.contains { SlackPresenterTests.blocks($0).first?["text"]["text"].string?.contains("[RESOLVED]") == true } })
        #expect(await eventually(.seconds(15)) { matrix.received.contains { J($0.json)["body"].string?.hasPrefix("[RESOLVED]") == true } })
        #expect(await eventually(.seconds(15)) { (try? smtp.mails().contains { $0.header("subject")?.hasPrefix("Re: [RESOLVED]") == true }) == true })

        for r in slack.received + matrix.received + hook.received { #expect(r.problems.isEmpty, "\(r.problems)") }
        #expect(slack.received.dropFirst().allSatisfy { J($0.json)["thread_ts"].string == SlackPresenterTests.ts })
        #expect(!J(slack.received[0].json)["thread_ts"].exists)
        #expect(matrix.received.dropFirst().allSatisfy { J($0.json)["m.relates_to"]["event_id"].string == "$abc" })
        let mails = try smtp.mails()
        let root = try #require(mails.first?.header("message_id"))
        #expect(mails.first?.header("subject") == "[FIRING:200] alertname=NodeDown")
        for mail in mails.dropFirst() {
            #expect(mail.header("in_reply_to") == root)
            #expect(mail.header("references") == root)
        }
        // Nothing about the group after its resolution.
        let counts = (slack.received.count, matrix.received.count, hook.received.count, mails.count)
        try await Task.sleep(for: .seconds(4))
        #expect((slack.received.count, matrix.received.count, hook.received.count, try smtp.mails().count) == counts)
    }
}

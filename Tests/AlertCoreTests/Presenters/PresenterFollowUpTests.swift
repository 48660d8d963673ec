import Foundation
import Testing
@testable import AlertModel
@testable import AlertdCrypto
@testable import AlertdHTTP
@testable import AlertdDelivery

// Follow-ups, type by type: what each sends when an alert it showed has
// closed, held to the same stand-in service (and contract) as its alerts.

extension ServiceFixtures {
    static let closedAt = Date(timeIntervalSince1970: 1_719_835_260)

    /// The fixture alert closed as `outcome` by uid:1000 with a comment that
    /// needs escaping, and the follow-up of its delivery `dlv-1.0`.
    static func followUp(_ outcome: AlertState = .confirmed, of shown: Alert? = nil, comment: String? = "done <now> & dusted") throws
        -> (Alert, DeliveryContext) {
        var alert = try shown ?? alert()
        let decision = AlertDecision(outcome: outcome, actor: "uid:1000", at: closedAt, comment: comment)
        alert.state = outcome
        alert.decision = decision
        alert.updatedAt = closedAt
        let followUp = AlertFollowUp(decision: decision, original: delivery.deliveryID)
        return (alert, DeliveryContext(deliveryID: .followUp(of: delivery.deliveryID), attempt: 1, followUp: followUp))
    }

    /// Presents the follow-up and returns the one request the stand-in got, checked against its contract.
    static func sendFollowUp(_ presenter: any AlertPresenter, _ receiver: ServiceReceiver, _ outcome: AlertState = .confirmed,
                             of shown: Alert? = nil) async throws -> ServiceReceiver.Received {
        let (alert, delivery) = try followUp(outcome, of: shown)
        #expect(await presenter.present(alert, delivery: delivery) == .delivered)
        let got = try #require(receiver.received.last)
        #expect(got.problems.isEmpty, "\(got.problems)")
        return got
    }
}

extension PagerDutyPresenterTests {
    @Test func aClosedAlertIsResolvedInPagerDutyWithTheSameDedupKey() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let p = try presenter(receiver)
        let alert = try ServiceFixtures.alert()
        #expect(await p.present(alert, delivery: ServiceFixtures.delivery) == .delivered)
        for outcome in [AlertState.resolved, .confirmed, .cancelled, .expired] {
            let body = J(try await ServiceFixtures.sendFollowUp(p, receiver, outcome, of: alert).json)
            #expect(body["event_action"].string == "resolve", "\(outcome)")
            #expect(body["dedup_key"].string == alert.id.rawValue)
            #expect(body["routing_key"].string == Self.routingKey)
            #expect(!body["payload"].exists)
        }
        #expect(J(receiver.received[0].json)["event_action"].string == "trigger")
        #expect(J(receiver.received[0].json)["dedup_key"].string == alert.id.rawValue)
    }
}

extension SlackPresenterTests {
    @Test func aFollowUpIsAShortMessageSayingHowTheAlertClosed() async throws {
        let receiver = try ServiceReceiver(contract: Self.contract)
        let body = J(try await ServiceFixtures.sendFollowUp(try presenter(receiver), receiver).json)
        #expect(body["text"].string == "✅ Confirmed by uid:1000: Disk &lt;full&gt; &amp; db1")
        #expect(body["attachments"][0]["color"].string == "#2EB886")
        let blocks = body["attachments"][0]["blocks"].array.map(J.init)
        #expect(blocks.map { $0["type"].string } == ["section", "context"], "no buttons: the alert is decided")
        #expect(blocks[1]["elements"][0]["text"].string?.hasPrefix("Comment: done &lt;now&gt; &amp; dusted · alert ") == true)
    }
}

extension TeamsPresenterTests {
    @Test func aFollowUpIsASmallCardWithoutActions() async throws {
        let receiver = try ServiceReceiver(success: HTTPResponse(status: 202), contract: Self.contract)
        let card = J(try await ServiceFixtures.sendFollowUp(try presenter(receiver), receiver, .resolved).json)["attachments"][0]["content"]
        #expect(card["body"][0]["text"].string == #"✅ Resolved: Disk \<full\> & db1"#)
        #expect(card["body"][1]["text"].string?.hasPrefix("Comment: done \\<now\\> & dusted\n\nalert ") == true)
        #expect(!card["actions"].exists)
    }
}

extension DiscordPresenterTests {
    @Test func aFollowUpIsOneEmbedInTheClosingsColour() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let body = J(try await ServiceFixtures.sendFollowUp(try presenter(receiver), receiver, .cancelled).json)
        let embed = body["embeds"][0]
        #expect(embed["title"].string == #"✖️ Cancelled by uid:1000: Disk \<full\> & db1"#)
        #expect(embed["color"].int == 0x888888)
        #expect(embed["description"].string?.contains("alert ") == true)
        #expect(!body["components"].exists)
        #expect(body["username"].string == "alertd")
    }
}

extension TelegramPresenterTests {
    @Test func aFollowUpIsAPlainMessageWithoutButtons() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let body = J(try await ServiceFixtures.sendFollowUp(try presenter(receiver), receiver).json)
        #expect(body["text"].string?.hasPrefix("<b>✅ Confirmed by uid:1000: Disk &lt;full&gt; &amp; db1</b>\n\nComment: done &lt;now&gt; &amp; dusted\nalert ") == true)
        #expect(!body["reply_markup"].exists)
        #expect(!body["reply_to_message_id"].exists, "alertd keeps no Telegram message ids")
    }
}

extension MatrixPresenterTests {
    @Test func aFollowUpIsAMessageWithItsOwnDeliveryIDAsTransaction() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let got = try await ServiceFixtures.sendFollowUp(try presenter(receiver), receiver, .resolved)
        #expect(got.request.path.hasSuffix("/send/m.room.message/dlv-1.0.closed"), "\(got.request.path)")
        let body = J(got.json)
        #expect(body["body"].string?.hasPrefix("✅ Resolved: Disk <full> & db1\n\nComment: done <now> & dusted\n\nalert ") == true)
        #expect(body["formatted_body"].string?.hasPrefix("<p><font color=\"#2EB886\">✅</font> <b>Resolved: Disk &lt;full&gt; &amp; db1</b></p>") == true)
        #expect(body["body"].string?.contains("Expand") == false, "no actions on a closed alert")
    }

    /// A comment's line breaks were bare newlines in the HTML, which runs them together.
    @Test func aFollowUpKeepsTheCommentsLineBreaks() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let (alert, delivery) = try ServiceFixtures.followUp(comment: "first <line>\nsecond")
        #expect(await (try presenter(receiver)).present(alert, delivery: delivery) == .delivered)
        let got = try #require(receiver.received.last)
        let html = try #require(J(got.json)["formatted_body"].string)
        #expect(html.contains("first &lt;line&gt;<br>second"), "\(html)")
    }
}

extension NtfyPresenterTests {
    @Test func aFollowUpIsAQuietNotificationWithoutActions() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract(authorization: nil))
        let p = try ServiceFixtures.presenter(NtfyPresenterConfiguration.self, ["url": receiver.base + "/alertd-ops"])
        let body = J(try await ServiceFixtures.sendFollowUp(p, receiver, .resolved).json)
        #expect(body["topic"].string == "alertd-ops")
        #expect(body["title"].string == "Resolved: Disk <full> & db1")
        #expect(body["priority"].int == 2)
        #expect(body["tags"].array as? [String] == ["white_check_mark", "resolved"])
        #expect(body["message"].string?.hasPrefix("Comment: done <now> & dusted\nalert ") == true)
        #expect(!body["actions"].exists)
    }
}

extension GotifyPresenterTests {
    @Test func aFollowUpIsALowPriorityMessage() async throws {
        let receiver = try ServiceReceiver(success: ServiceFixtures.json(200, #"{"id": 1}"#), contract: Self.contract)
        let body = J(try await ServiceFixtures.sendFollowUp(try presenter(receiver), receiver).json)
        #expect(body["title"].string == "✅ Confirmed by uid:1000: Disk <full> & db1")
        #expect(body["priority"].int == 2)
        #expect(body["message"].string?.hasPrefix(#"Comment: done \<now\> & dusted"#) == true)
        #expect(body["message"].string?.contains("Expand") == false)
    }
}

extension PushoverPresenterTests {
    @Test func aFollowUpIsAQuietMessageWithoutALink() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let body = J(try await ServiceFixtures.sendFollowUp(try presenter(receiver), receiver, .expired).json)
        #expect(body["title"].string == "⌛ Expired: Disk <full> & db1")
        #expect(body["priority"].int == -1)
        #expect(!body["url"].exists)
        #expect(body["timestamp"].int == Int(ServiceFixtures.closedAt.timeIntervalSince1970))
    }
}

extension WebhookPresenterTests {
    @Test func aFollowUpIsAClosedPayloadSignedTheSameWay() async throws {
        let recorder = RequestRecorder()
        let (server, base) = try startLoopbackServer { request in
            await recorder.record(request)
            return HTTPResponse(status: 204)
        }
        defer { Task { await server.stop() } }
        var alert = try makeAlert()
        let decision = AlertDecision(outcome: .resolved, actor: "alertmanager-api", at: ServiceFixtures.closedAt, comment: "resolved by its sender")
        alert.state = .resolved
        alert.decision = decision
        let delivery = DeliveryContext(deliveryID: "dlv_123.closed", attempt: 1, followUp: AlertFollowUp(decision: decision, original: "dlv_123"))
        #expect(try await presenter(base + "/hook", secret: Self.secret).present(alert, delivery: delivery) == .delivered)

        let request = try #require(await recorder.requests.first)
        let payload = try JSONDecoder().decode(WebhookPayload.self, from: request.body)
        #expect(payload.version == 1)
        #expect(payload.type == .closed)
        #expect(payload.alert.state == .resolved)
        #expect(payload.closed == WebhookPayload.Closed(AlertFollowUp(decision: decision, original: "dlv_123")))
        let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(Set(json.keys) == ["version", "type", "alert", "delivery", "closed"])
        #expect(NSDictionary(dictionary: json["closed"] as? [String: Any] ?? [:]) == NSDictionary(dictionary: [
            "outcome": "resolved", "at": "2024-07-01T12:01:00.000Z", "by": "alertmanager-api", "comment": "resolved by its sender",
            "follows_up": "dlv_123",
        ]))
        #expect(request.body == (try WebhookPayload(alert: alert, delivery: delivery).encoded()))
        #expect(try JSONEncoder().encode(payload).count > 0)

        let id = try #require(request.headers["webhook-id"])
        let timestamp = try #require(request.headers["webhook-timestamp"].flatMap { Int64($0) })
        #expect(id == "dlv_123.closed")
        let key = try #require(Data(base64Encoded: String(Self.secret.dropFirst("whsec_".count))))
        let mac = HMACSHA256.authenticate(key: Array(key), message: Array("\(id).\(timestamp).".utf8) + Array(request.body))
        #expect(request.headers["webhook-signature"] == "v1," + Data(mac).base64EncodedString())
    }
}

extension ExecPresenterTests {
    @Test func aFollowUpRunsTheProgramWithTheClosedPayloadAndEvent() async throws {
        let program = try script("record-closed", #"cat > "$1/stdin.json"; env > "$1/env""#)
        let p = try presenter(["command": [program, dir.path], "follow_ups": true])
        let (alert, delivery) = try ServiceFixtures.followUp(.cancelled)
        #expect(await p.present(alert, delivery: delivery) == .delivered)
        let input = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/stdin.json"))
        #expect(input == (try WebhookPayload(alert: alert, delivery: delivery).encoded()))
        #expect(J(try JSONSerialization.jsonObject(with: input))["type"].string == "closed")
        let env = try String(contentsOfFile: dir.path + "/env", encoding: .utf8).split(separator: "\n").map(String.init)
        for line in ["ALERTD_EVENT=closed", "ALERTD_STATE=cancelled", "ALERTD_DECIDED_BY=uid:1000", "ALERTD_FOLLOWS_UP=dlv-1.0",
                     "ALERTD_DELIVERY_ID=dlv-1.0.closed"] {
            #expect(env.contains(line), "\(line)")
        }
        // Off unless asked for: a program written before follow-ups would take one for a new alert.
        #expect(try ServiceFixtures.read(ExecPresenterConfiguration.self, ["command": [program]]).0 != nil)
        let reader = JSONConfigReader()
        #expect(PresenterRegistry.definition(named: "p", from: ["type": "exec", "command": [program]], at: "presenters.p", reader)?.followUps == false)
        #expect(PresenterRegistry.definition(named: "p", from: ["type": "exec", "command": [program], "follow_ups": true], at: "presenters.p", reader)?
            .followUps == true)
    }
}

extension LogPresenterTests {
    @Test func aFollowUpIsOneMoreLineSayingHowTheAlertClosed() {
        let decision = AlertDecision(outcome: .resolved, actor: "alertd", at: Fixtures.created.addingTimeInterval(60))
        var alert = Fixtures.diskFull
        alert.state = .resolved
        alert.decision = decision
        let delivery = DeliveryContext(deliveryID: "d-1.closed", attempt: 1, followUp: AlertFollowUp(decision: decision, original: "d-1"))
        #expect(LogLineFormatter.line(alert, delivery: delivery, format: .logfmt, timestamp: Self.at) == """
            ts=2025-06-01T12:00:01.500Z id=01972b3c-8a00-7123-8456-0123456789ab event=closed outcome=resolved by=alertd title="Disk full" follows_up=d-1 delivery_id=d-1.closed attempt=1 closed_at=2025-06-01T12:01:00.000Z
            """)
        #expect(LogLineFormatter.line(alert, delivery: delivery, format: .jsonLines, timestamp: Self.at) == #"""
            {"attempt":1,"by":"alertd","closed_at":"2025-06-01T12:01:00.000Z","delivery_id":"d-1.closed","event":"closed","follows_up":"d-1","id":"01972b3c-8a00-7123-8456-0123456789ab","outcome":"resolved","title":"Disk full","ts":"2025-06-01T12:00:01.500Z"}
            """#)
    }
}

extension TerminalPresenterTests {
    @Test func terminalsTakeNoFollowUpsAndSayWhenAskedFor() {
        let reader = JSONConfigReader()
        let definition = PresenterRegistry.definition(named: "tty", from: ["type": "terminal", "follow_ups": true], at: "presenters.tty", reader)
        #expect(definition?.followUps == false)
        #expect(reader.problems == ["presenters.tty.follow_ups: terminal presenters send no follow-ups; remove the key"])
        // Every other documented type takes them, on unless it is exec (and the test presenter, off).
        for type in PresenterRegistry.documentedTypes where type.typeName != "terminal" {
            #expect(type.followUps == (type.typeName == "exec" ? .offByDefault : .onByDefault), "\(type.typeName)")
        }
    }
}

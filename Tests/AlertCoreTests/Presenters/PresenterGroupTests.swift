import Foundation
import Testing
@testable import AlertModel
@testable import AlertdCrypto
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdDelivery

// Group notifications, type by type: what each sends for a group of
// alerts, held to the same stand-in service (and contract) as its alerts,
// and how the types that can thread put later notifications under the first.

extension ServiceFixtures {
    static let groupID = AlertGroupID(route: "rack", labels: [AlertLabel(name: "alertname", value: "NodeDown")])
    static let consoleURL = "https://alertd.example/ui/?group=" + groupID.rawValue

    /// `count` firing alerts of one group, oldest first; those whose index
    /// `withActions` accepts have a confirm and a cancel action with signed
    /// links. The first three are new, the second has repeats.
    static func group(
        _ count: Int, reason: AlertGroupNotification.Reason = .first, sequence: Int = 1, closed: Int = 0,
        withActions: (Int) -> Bool = { $0 < 2 }
    ) throws -> AlertGroupNotification {
        var firing: [Alert] = []
        var links: [AlertID: [ActionKind: String]] = [:]
        for i in 0..<count {
            var b = AlertSpec.Builder().title("Node <n\(i)> & down").severity(i == 1 ? .critical : .warning)
                .labels(["alertname": "NodeDown", "instance": "n\(i)"])
            if withActions(i) { b = b.confirm("Drain", handler: "https://ops.example/drain").cancel("Ignore", handler: "https://ops.example/ignore") }
            var alert = Alert(spec: try b.build(limits: .permissive).get(), at: Date(timeIntervalSince1970: 1_719_835_200 + Double(i)))
            if i == 1 { alert.repeats = AlertRepeats(count: 12, lastSeenAt: Date(timeIntervalSince1970: 1_719_836_000)) }
            if withActions(i) {
                links[alert.id] = [.confirm: "https://alertd.example/v1/alerts/\(alert.id)/actions/confirm?token=c\(i)",
                                   .cancel: "https://alertd.example/v1/alerts/\(alert.id)/actions/cancel?token=x\(i)"]
            }
            firing.append(alert)
        }
        var gone: [Alert] = []
        for i in 0..<closed {
            var alert = Alert(spec: try AlertSpec.Builder().title("Gone \(i)").labels(["alertname": "NodeDown"]).build().get(),
                              at: Date(timeIntervalSince1970: 1_719_830_000))
            alert.state = .resolved
            alert.decision = AlertDecision(outcome: .resolved, actor: "alertd", at: Date(timeIntervalSince1970: 1_719_836_100))
            gone.append(alert)
        }
        if reason == .resolved {
            gone += firing.map { a in
                var a = a
                a.state = .resolved
                return a
            }
            firing = []
        }
        return AlertGroupNotification(
            groupID: groupID, route: "rack", groupLabels: [AlertLabel(name: "alertname", value: "NodeDown")], sequence: sequence,
            reason: reason, firing: firing, newAlertIDs: Set(firing.prefix(3).map(\.id)), closed: gone, actionLinks: links,
            consoleURL: consoleURL)
    }

    static func groupDelivery(_ sequence: Int, thread: String? = nil, attempt: Int = 1) -> DeliveryContext {
        DeliveryContext(deliveryID: .group(groupID, generation: 1_733_068_800_000, sequence, presenter: "p"), attempt: attempt, thread: thread)
    }
}

// MARK: Slack

extension SlackPresenterTests {
    static let ts = "1700000000.000100"
    static let posted = ServiceFixtures.json(200, #"{"ok": true, "channel": "C0123456789", "ts": "1700000000.000100"}"#)

    /// What `chat.postMessage` checks (https://api.slack.com/methods/chat.postMessage):
    /// the bot's token, JSON in UTF-8, a channel, a thread only by a `ts`,
    /// and the same Block Kit rules as a webhook's message.
    static func botContract(_ request: HTTPRequest) -> [String] {
        var problems: [String] = []
        if request.headers["Authorization"] != "Bearer xoxb-SECRET" { problems.append("Authorization \(request.headers["Authorization"] ?? "none")") }
        if request.headers["Content-Type"] != "application/json; charset=utf-8" { problems.append("missing_charset") }
        return problems + ServiceFixtures.jsonContract(request, path: "/api/chat.postMessage") { json in
            var problems: [String] = []
            let body = J(json)
            if body["channel"].string != "C0123456789" { problems.append("channel_not_found") }
            if let ts = body["thread_ts"].string, ts.range(of: #"^\d+\.\d+$"#, options: .regularExpression) == nil {
                problems.append("thread_ts \(ts) is not a ts")
            }
            if body["reply_broadcast"].exists && !body["thread_ts"].exists { problems.append("reply_broadcast without thread_ts") }
            return problems + blockKit(json)
        }
    }

    func bot(_ receiver: ServiceReceiver) throws -> any AlertPresenter {
        try ServiceFixtures.presenter(SlackPresenterConfiguration.self, [
            "token": "xoxb-SECRET", "channel": "C0123456789", "api_url": receiver.base + "/api",
        ])
    }

    static func blocks(_ got: ServiceReceiver.Received) -> [J] { J(got.json)["attachments"][0]["blocks"].array.map(J.init) }

    @Test func aBotPostsTheGroupThenThreadsItsReminderAndResolution() async throws {
        let receiver = try ServiceReceiver(success: Self.posted, contract: Self.botContract)
        let p = try bot(receiver)
        let first = await p.presentGroup(try ServiceFixtures.group(12), delivery: ServiceFixtures.groupDelivery(1))
        #expect(first == GroupPresentationOutcome(outcome: .delivered, thread: Self.ts))
        let reminder = await p.presentGroup(try ServiceFixtures.group(12, reason: .reminder, sequence: 2),
                                            delivery: ServiceFixtures.groupDelivery(2, thread: Self.ts))
        #expect(reminder == GroupPresentationOutcome(outcome: .delivered, thread: Self.ts))
        let resolved = await p.presentGroup(try ServiceFixtures.group(12, reason: .resolved, sequence: 3),
                                            delivery: ServiceFixtures.groupDelivery(3, thread: Self.ts))
        #expect(resolved.outcome == .delivered)
        let got = receiver.received
        #expect(got.count == 3)
        for r in got { #expect(r.problems.isEmpty, "\(r.problems)") }
        #expect(!J(got[0].json)["thread_ts"].exists)
        #expect(J(got[1].json)["thread_ts"].string == Self.ts)
        #expect(J(got[2].json)["thread_ts"].string == Self.ts)
        #expect(!J(got[1].json)["reply_broadcast"].exists)

        let blocks = Self.blocks(got[0])
        #expect(blocks[0]["text"]["text"].string == "🚨 [FIRING:12] alertname=NodeDown", "the highest severity's look")
        #expect(blocks[1]["text"]["text"].string?.hasPrefix("*12 firing · 3 new*") == true)
        let sections = blocks.filter { $0["type"].string == "section" }.compactMap { $0["text"]["text"].string }
        #expect(sections.contains("⚠️ *WARNING* Node &lt;n0&gt; &amp; down · `instance=n0` · :new: new"))
        #expect(sections.contains("🚨 *CRITICAL* Node &lt;n1&gt; &amp; down · `instance=n1` · :new: new · repeated 12×"))
        let buttons = blocks.filter { $0["type"].string == "actions" }.flatMap { $0["elements"].array.map(J.init) }
        #expect(buttons.compactMap { $0["url"].string }.count == 4, "both actions of the two alerts with actions")
        #expect(buttons.first?["text"]["text"].string == "Drain")
        let context = blocks.filter { $0["type"].string == "context" }.compactMap { $0["elements"][0]["text"].string }
        #expect(context.contains("+2 more firing · <\(ServiceFixtures.consoleURL)|all alerts of the group in the console>"))

        #expect(Self.blocks(got[1])[1]["text"]["text"].string?.contains("_Reminder: still firing._") == true)
        let last = Self.blocks(got[2])
        #expect(last[0]["text"]["text"].string == "✅ [RESOLVED] alertname=NodeDown")
        #expect(J(got[2].json)["attachments"][0]["color"].string == "#2EB886")
        #expect(last.contains { $0["text"]["text"].string?.hasPrefix("*Closed since the last notification*\n✅ resolved: Node &lt;n0&gt;") == true })
    }

    @Test func anUpdateWithNewAlertsIsAlsoShownInTheChannel() async throws {
        let receiver = try ServiceReceiver(success: Self.posted, contract: Self.botContract)
        let outcome = await try bot(receiver).presentGroup(try ServiceFixtures.group(5, reason: .changed, sequence: 2, closed: 1),
                                                            delivery: ServiceFixtures.groupDelivery(2, thread: Self.ts))
        #expect(outcome.outcome == .delivered)
        let got = try #require(receiver.received.first)
        #expect(got.problems.isEmpty, "\(got.problems)")
        #expect(J(got.json)["reply_broadcast"].bool == true)
        #expect(J(got.json)["thread_ts"].string == Self.ts)
    }

    @Test func aThousandAlertsListTenThenMoreAndKeepEveryActionReachable() async throws {
        let receiver = try ServiceReceiver(success: Self.posted, contract: Self.botContract)
        let p = try bot(receiver)
        // 30 of the hidden alerts have actions: all their buttons fit.
        let some = try ServiceFixtures.group(1_000, withActions: { $0 % 33 == 0 })
        #expect(await p.presentGroup(some, delivery: ServiceFixtures.groupDelivery(1)).outcome == .delivered)
        // Every alert has actions: as many buttons as Slack allows, then the console.
        let all = try ServiceFixtures.group(1_000, withActions: { _ in true })
        #expect(await p.presentGroup(all, delivery: ServiceFixtures.groupDelivery(1)).outcome == .delivered)
        let got = receiver.received
        for r in got { #expect(r.problems.isEmpty, "\(r.problems)") }

        for (notification, request) in zip([some, all], got) {
            let blocks = Self.blocks(request)
            #expect(blocks.count <= 50)
            #expect(blocks[0]["text"]["text"].string == "🚨 [FIRING:1000] alertname=NodeDown")
            let listed = blocks.filter { $0["type"].string == "section" && $0["text"]["text"].string?.contains("Node &lt;") == true }
            #expect(listed.count == 10)
            let texts = blocks.flatMap { b in [b["text"]["text"].string] + b["elements"].array.map { J($0)["text"].string } }.compactMap { $0 }
            #expect(texts.contains { $0.hasPrefix("+990 more firing · <\(ServiceFixtures.consoleURL)|") })
            let urls = Set(blocks.filter { $0["type"].string == "actions" }.flatMap { $0["elements"].array.compactMap { J($0)["url"].string } })
            let withLinks = notification.firing.filter { notification.actionLinks[$0.id] != nil }
            let reachable = withLinks.filter { a in notification.actionLinks[a.id]!.values.allSatisfy(urls.contains) }
            let pointer = texts.first { $0.contains("more alerts with actions") }
            if reachable.count == withLinks.count {
                #expect(withLinks.count == 31 && pointer == nil)
            } else {
                // Those without buttons are counted and sent to the console.
                #expect(pointer == "+\(withLinks.count - reachable.count) more alerts with actions: <\(ServiceFixtures.consoleURL)|decide them in the console>")
                #expect(reachable.count > 100)
            }
        }
    }

    @Test func theWebAPIsRefusalsAreJudgedByTheirErrorCode() async throws {
        let receiver = try ServiceReceiver(success: Self.posted, contract: Self.botContract)
        let target = "slack (\(receiver.base))"
        let outcomes = try await ServiceFixtures.outcomes(try bot(receiver), receiver, [
            ServiceFixtures.json(200, #"{"ok": false, "error": "channel_not_found"}"#),
            ServiceFixtures.json(200, #"{"ok": false, "error": "invalid_auth"}"#),
            ServiceFixtures.json(200, #"{"ok": false, "error": "internal_error"}"#),
            ServiceFixtures.json(429, #"{"ok": false, "error": "ratelimited"}"#, headers: ["Retry-After": "30"]),
        ])
        #expect(outcomes == [
            .permanentFailure(reason: "\(target) refused the call: channel_not_found"),
            .permanentFailure(reason: "\(target) refused the call: invalid_auth"),
            .retryableFailure(reason: "\(target) refused the call: internal_error"),
            .retryableFailure(reason: "HTTP 429 from \(target): ratelimited", retryAfter: .seconds(30)),
        ])
        for outcome in outcomes { #expect(outcome.reason?.contains("xoxb") == false) }
        // A single alert from a bot is the same message in its channel.
        let body = J(try #require(receiver.received.first).json)
        #expect(body["channel"].string == "C0123456789")
        #expect(body["attachments"][0]["blocks"][0]["text"]["text"].string == "🚨 Disk <full> & db1")
    }

    @Test func throughAWebhookTheGroupIsTheSameMessageWithoutAThread() async throws {
        let receiver = try ServiceReceiver(contract: Self.contract)
        let p = try presenter(receiver)
        let first = await p.presentGroup(try ServiceFixtures.group(3), delivery: ServiceFixtures.groupDelivery(1))
        #expect(first == GroupPresentationOutcome(outcome: .delivered, thread: nil))
        let got = try #require(receiver.received.first)
        #expect(got.problems.isEmpty, "\(got.problems)")
        #expect(!J(got.json)["channel"].exists && !J(got.json)["thread_ts"].exists)
        #expect(Self.blocks(got)[0]["text"]["text"].string == "🚨 [FIRING:3] alertname=NodeDown")
    }

    /// Group labels and closed alerts full of `&` and `>`, past a
    /// section's 3,000 characters: cut at whole escapes and whole lines,
    /// never inside `&amp;`, which Slack shows as a stray `&am`.
    @Test func aLongGroupIsCutBetweenEscapesNeverInsideOne() async throws {
        let receiver = try ServiceReceiver(contract: Self.contract)
        let p = try presenter(receiver)
        var n = try ServiceFixtures.group(3, closed: 120)
        n.groupLabels = ["g", "h", "i"].map { AlertLabel(name: $0, value: String(repeating: "&>", count: 512)) }
        _ = await p.presentGroup(n, delivery: ServiceFixtures.groupDelivery(1))
        let got = try #require(receiver.received.first)
        #expect(got.problems.isEmpty, "\(got.problems)")
        // The mrkdwn ones: a header's plain_text is not escaped at all.
        let texts = Self.blocks(got).filter { $0["text"]["type"].string == "mrkdwn" }.compactMap { $0["text"]["text"].string }
        #expect(texts.count > 3)
        for text in texts {
            #expect(text.utf16.count <= 3_000)
            var rest = Substring(text)
            while let amp = rest.firstIndex(of: "&") {
                rest = rest[amp...]
                #expect(["&amp;", "&lt;", "&gt;"].contains { rest.hasPrefix($0) }, "a cut escape: \(rest.prefix(8))")
                rest = rest.dropFirst()
            }
        }
    }

    /// Settings each service would refuse at every message, or a base URL
    /// its API's path would be pasted after wrongly, are refused with the file.
    @Test func settingsTheServiceWouldRefuseAreRefusedFirst() {
        func problems<C: PresenterConfiguration>(_ type: C.Type, _ settings: [String: Any]) -> [String] {
            ServiceFixtures.read(type, settings).1
        }
        #expect(problems(DiscordPresenterConfiguration.self, ["url": "https://discord.com/api/webhooks/1/x", "username": "Discord Alerts"])
            == ["presenters.p.username: may not contain `discord`: Discord refuses such a name (it may not hold discord, clyde, @, #, : or ```)"])
        #expect(problems(DiscordPresenterConfiguration.self, ["url": "https://discord.com/api/webhooks/1/x", "username": "ops alerts"]).isEmpty)
        for bad in ["me", "@", "12 34", "+123", "-100abc", "@abc"] {
            #expect(problems(TelegramPresenterConfiguration.self, ["token": "1:x", "chat_id": bad])
                == ["presenters.p.chat_id: must be a chat id (a whole number) or \"@channelname\""], "\(bad)")
        }
        for good in ["-1001234567890", "42", "@my_channel"] {
            #expect(problems(TelegramPresenterConfiguration.self, ["token": "1:x", "chat_id": good]).isEmpty, "\(good)")
        }
        #expect(problems(GotifyPresenterConfiguration.self, ["url": "https://g.example/gotify?x=1", "token": "t"])
            == ["presenters.p.url: must be the server's base URL, without a ?query or #fragment: alertd adds /message to it"])
        #expect(problems(GotifyPresenterConfiguration.self, ["url": "https://g.example/message/", "token": "t"])
            == ["presenters.p.url: must be the server's base URL: alertd adds /message to it, and this one ends in /message already"])
        #expect(problems(TelegramPresenterConfiguration.self, ["token": "1:x", "chat_id": "42", "api_url": "http://h/tg#frag"])
            == ["presenters.p.api_url: must be the server's base URL, without a ?query or #fragment: alertd adds /bot<token>/sendMessage to it"])
        #expect(problems(PagerDutyPresenterConfiguration.self, ["routing_key": String(repeating: "a", count: 32), "api_url": "https://pd.example/v2/enqueue"])
            == ["presenters.p.api_url: must be the server's base URL: alertd adds /v2/enqueue to it, and this one ends in /v2/enqueue already"])
    }

    @Test func botSettingsAreChecked() {
        let read = { (s: [String: Any]) in ServiceFixtures.read(SlackPresenterConfiguration.self, s).1 }
        #expect(read(["token": "xoxb-1", "channel": "C0123456789"]).isEmpty)
        #expect(read(["token_file": "/etc/alertd/slack-bot", "channel": "#ops"]).isEmpty)
        #expect(read(["url": "https://hooks.slack.com/services/T/B/X", "token": "xoxb-1", "channel": "C1"])
            == ["presenters.p: give url (or url_file) for an incoming webhook, or token (or token_file) and channel for a bot, not both"])
        #expect(read(["token": "xoxb-1"])
            == ["presenters.p.channel: is required with token: the channel's id, e.g. \"C0123456789\" (channel details, About)"])
        #expect(read(["channel": "C1"]) == ["presenters.p.token: is required (or token_file): the bot's token (xoxb-…), with channel"])
        #expect(read(["token": "xoxb-1", "channel": "ops room"]) == ["presenters.p.channel: must be a channel id such as \"C0123456789\" (or \"#name\")"])
        #expect(read(["url": "https://hooks.slack.com/services/T/B/X", "api_url": "https://slack.example/api"])
            == ["presenters.p.api_url: is for a bot (token and channel); remove it"])
        // A webhook with a channel was "not both" and "token is required".
        #expect(read(["url": "https://hooks.slack.com/services/T/B/X", "channel": "C123"])
            == ["presenters.p.channel: is for a bot (token and channel); an incoming webhook posts to the channel it was made for, so remove it"])
    }
}

// MARK: Matrix

extension MatrixPresenterTests {
    /// The homeserver's checks for a thread relation (MSC3440, spec v1.4):
    /// `rel_type` `m.thread` to an event id, the reply fallback with it.
    static func threadContract(_ request: HTTPRequest) -> [String] {
        var problems = contract(request)
        guard let json = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] else { return problems }
        let relation = J(json)["m.relates_to"]
        if relation.exists {
            if relation["rel_type"].string != "m.thread" { problems.append("rel_type") }
            if relation["event_id"].string?.hasPrefix("$") != true { problems.append("a thread's root is an event id") }
            if relation["is_falling_back"].bool != true { problems.append("is_falling_back") }
            if relation["m.in_reply_to"]["event_id"].string?.hasPrefix("$") != true { problems.append("m.in_reply_to") }
        }
        return problems
    }

    @Test func theFirstNotificationStartsAThreadTheRestFollowInIt() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.threadContract)
        let p = try presenter(receiver)
        let first = await p.presentGroup(try ServiceFixtures.group(1_000, withActions: { _ in true }), delivery: ServiceFixtures.groupDelivery(1))
        #expect(first == GroupPresentationOutcome(outcome: .delivered, thread: "$abc"))
        let reminder = await p.presentGroup(try ServiceFixtures.group(1_000, reason: .reminder, sequence: 2),
                                            delivery: ServiceFixtures.groupDelivery(2, thread: "$abc"))
        #expect(reminder == GroupPresentationOutcome(outcome: .delivered, thread: "$abc"))
        let got = receiver.received
        #expect(got.count == 2)
        for r in got { #expect(r.problems.isEmpty, "\(r.problems)") }
        #expect(!J(got[0].json)["m.relates_to"].exists)
        #expect(J(got[1].json)["m.relates_to"]["event_id"].string == "$abc")
        // Each notification is its own transaction.
        #expect(Set(got.map(\.request.path)).count == 2)

        let body = try #require(J(got[0].json)["body"].string)
        #expect(body.hasPrefix("[FIRING:1000] alertname=NodeDown\n1000 firing · 3 new"))
        #expect(body.contains("- [CRITICAL] Node <n1> & down · instance=n1 (new, repeated 12×)\n  Drain: https://alertd.example/"))
        #expect(body.contains("+990 more firing: \(ServiceFixtures.consoleURL)"))
        #expect(body.contains("more alerts with actions: \(ServiceFixtures.consoleURL)"), "past the event's size, the console")
        let html = try #require(J(got[0].json)["formatted_body"].string)
        #expect(html.contains("Node &lt;n0&gt; &amp; down"))
        #expect(html.contains(">Drain</a>"))
        #expect(got[0].request.body.count < 65_536)
    }

    /// Ten firing and ten closed alerts with long titles and labels full of
    /// quotes (`&quot;` in the HTML) made an event of 88 kB, which a
    /// homeserver refuses for good; the event is cut to fit.
    @Test func aGroupOfLongQuotedAlertsStaysWithinTheEventLimit() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.threadContract)
        let p = try presenter(receiver)
        let quotes = String(repeating: "\"", count: 1_024)
        func alert(_ i: Int) throws -> Alert {
            var labels = ["alertname": "NodeDown", "gv": quotes + "\(i)"]
            for x in 0..<20 { labels["x\(x)"] = quotes + "\(i)" }
            let spec = try AlertSpec.Builder().title(String(repeating: "\"", count: 196) + "\(i)").labels(labels)
                .confirm("Drain", handler: "https://ops.example/drain").build(limits: .permissive).get()
            return Alert(spec: spec, at: Date(timeIntervalSince1970: 1_719_835_200 + Double(i)))
        }
        let firing = try (0..<25).map(alert)
        let closed = try (25..<40).map { i in
            var a = try alert(i)
            a.state = .resolved
            return a
        }
        let notification = AlertGroupNotification(
            groupID: ServiceFixtures.groupID, route: "rack", groupLabels: [AlertLabel(name: "alertname", value: "NodeDown")], sequence: 2,
            reason: .changed, firing: firing, newAlertIDs: [], closed: closed, actionLinks: [:], consoleURL: ServiceFixtures.consoleURL)
        // Uncut, the text and the HTML alone are past the homeserver's limit.
        let g = AlertGroupDigest(notification)
        #expect(JSONObject.escapedLength(g.text(limit: 12_000)) + JSONObject.escapedLength(g.html(limit: 12_000)) > 65_536)
        let outcome = await p.presentGroup(notification, delivery: ServiceFixtures.groupDelivery(2, thread: "$abc"))
        #expect(outcome.outcome == .delivered)
        let got = try #require(receiver.received.last)
        #expect(got.problems.isEmpty, "\(got.problems)")
        #expect(got.request.body.count <= 65_536, "\(got.request.body.count)")
        let body = try #require(J(got.json)["body"].string), html = try #require(J(got.json)["formatted_body"].string)
        #expect(body.hasPrefix("[FIRING:25] alertname=NodeDown"))
        #expect(html.hasPrefix("[FIRING:25] alertname=NodeDown<br>") && html.contains("&quot;") && html.hasSuffix("<br>… (truncated)"),
                "\(html.suffix(100))")
    }
}

// MARK: PagerDuty

extension PagerDutyPresenterTests {
    @Test func aGroupIsOnePagerDutyAlertKeyedByTheGroupAndResolvedWithIt() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let p = try presenter(receiver)
        for (n, reason) in [(1, AlertGroupNotification.Reason.first), (2, .changed), (3, .resolved)] {
            let outcome = await p.presentGroup(try ServiceFixtures.group(20, reason: reason, sequence: n), delivery: ServiceFixtures.groupDelivery(n))
            #expect(outcome.outcome == .delivered)
        }
        let got = receiver.received
        for r in got { #expect(r.problems.isEmpty, "\(r.problems)") }
        #expect(got.map { J($0.json)["event_action"].string } == ["trigger", "trigger", "resolve"])
        #expect(Set(got.map { J($0.json)["dedup_key"].string }) == [ServiceFixtures.groupID.rawValue])
        let first = J(got[0].json)
        #expect(first["payload"]["summary"].string == "[FIRING:20] alertname=NodeDown")
        #expect(first["payload"]["severity"].string == "critical")
        #expect(first["payload"]["custom_details"]["firing"].array.count == 11)
        #expect(first["links"][0]["href"].string == ServiceFixtures.consoleURL)
        #expect(first["links"].array.count == 5, "the console, then both actions of the two alerts with actions")
    }

    /// The alerts it fired with closed while the rest are silenced: nothing
    /// PagerDuty was told of fires, so its alert resolves, and opens again
    /// when the held ones fire.
    @Test func aChangeThatLeavesNothingFiringResolvesAndTheirReturnTriggersAgain() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let p = try presenter(receiver)
        let steps = [try ServiceFixtures.group(3, reason: .first, sequence: 1), try ServiceFixtures.group(0, reason: .changed, sequence: 2, closed: 1),
                     try ServiceFixtures.group(2, reason: .changed, sequence: 3)]
        for (n, notification) in steps.enumerated() {
            let outcome = await p.presentGroup(notification, delivery: ServiceFixtures.groupDelivery(n + 1))
            #expect(outcome.outcome == .delivered)
        }
        let got = receiver.received
        for r in got { #expect(r.problems.isEmpty, "\(r.problems)") }
        #expect(got.map { J($0.json)["event_action"].string } == ["trigger", "resolve", "trigger"])
        #expect(J(got[2].json)["payload"]["summary"].string == "[FIRING:2] alertname=NodeDown")
    }
}

// MARK: Email

extension EmailPresenterTests {
    @Test func aGroupsLaterMailsAnswerItsFirstAndListItsAlerts() async throws {
        let smtp = try await SMTPReceiver()
        let p = try presenter(["url": smtp.url, "from": "alertd@example.com", "to": ["ops@example.com"]])
        let first = await p.presentGroup(try ServiceFixtures.group(1_000, withActions: { $0 % 100 == 0 }), delivery: ServiceFixtures.groupDelivery(1))
        let root = "<group-\(ServiceFixtures.groupID.rawValue)-1733068800000-1-p@example.com>"
        #expect(first == GroupPresentationOutcome(outcome: .delivered, thread: root))
        for (n, reason) in [(2, AlertGroupNotification.Reason.reminder), (3, .resolved)] {
            let later = await p.presentGroup(try ServiceFixtures.group(1_000, reason: reason, sequence: n), delivery: ServiceFixtures.groupDelivery(n, thread: root))
            #expect(later == GroupPresentationOutcome(outcome: .delivered, thread: root))
        }
        let mails = try smtp.mails()
        #expect(mails.count == 3)
        #expect(mails[0].header("message_id") == root)
        #expect(mails[0].header("in_reply_to") == "<null>", "no In-Reply-To (the parser's None)")
        #expect(mails[0].header("subject") == "[FIRING:1000] alertname=NodeDown")
        #expect((mails[0].parsed["max_line"] as? Int ?? 999) <= 78)
        for mail in mails.dropFirst() {
            #expect(mail.header("in_reply_to") == root)
            #expect(mail.header("references") == root)
            #expect(mail.header("message_id") != root)
            #expect(mail.parsed["defects"] as? [String] == [])
            #expect((mail.parsed["max_line"] as? Int ?? 999) <= 78)
        }
        #expect(mails[1].header("subject") == "Re: [FIRING:1000] alertname=NodeDown")
        #expect(mails[2].header("subject") == "Re: [RESOLVED] alertname=NodeDown")
        #expect(mails[0].parts.map { $0["type"] as? String } == ["text/plain", "text/html"])

        let text = try #require(mails[0].parts.first?["content"] as? String)
        #expect(text.hasPrefix("[FIRING:1000] alertname=NodeDown\n1000 firing · 3 new\n"))
        #expect(text.contains("- [WARNING] Node <n0> & down · instance=n0 (new)\n  Drain: https://alertd.example/v1/alerts/"))
        #expect(text.contains("- [CRITICAL] Node <n1> & down · instance=n1 (new, repeated 12×)\n"))
        #expect(text.contains("+990 more firing: \(ServiceFixtures.consoleURL)"))
        // The nine hidden alerts with actions keep their links.
        #expect(text.contains("Actions of the alerts not listed:\n- Node <n100> & down · instance=n100: Drain https://alertd.example/v1/alerts/"))
        #expect(text.components(separatedBy: "?token=c").count - 1 == 10)
        let html = try #require(mails[0].parts.last?["content"] as? String)
        #expect(html.contains("Node &lt;n0&gt; &amp; down"))
        #expect(html.components(separatedBy: ">Drain</a>").count - 1 == 10)
        let resolved = try #require(mails[2].parts.first?["content"] as? String)
        #expect(resolved.contains("Resolved: every alert of the group has closed."))
        #expect(resolved.contains("Closed since the last notification:\n- [RESOLVED] Node <n0> & down · instance=n0"))
        #expect(resolved.contains("+990 more closed"))
    }
}

// MARK: Webhook

extension WebhookPresenterTests {
    @Test func aGroupIsOneSignedPayloadListingEveryAlertWithItsLinks() async throws {
        let recorder = RequestRecorder()
        let (server, base) = try startLoopbackServer(maxBodyBytes: 8 << 20) { request in
            await recorder.record(request)
            return HTTPResponse(status: 204)
        }
        defer { Task { await server.stop() } }
        let notification = try ServiceFixtures.group(1_000, reason: .changed, sequence: 2, closed: 2, withActions: { $0 % 10 == 0 })
        let delivery = ServiceFixtures.groupDelivery(2, attempt: 3)
        let outcome = await try presenter(base + "/hook", secret: Self.secret).presentGroup(notification, delivery: delivery)
        #expect(outcome == GroupPresentationOutcome(outcome: .delivered, thread: nil))

        let request = try #require(await recorder.requests.first)
        let signer = try StandardWebhookSigner(secret: Self.secret)
        let id = try #require(request.headers["webhook-id"])
        #expect(id == delivery.deliveryID.rawValue)
        let timestamp = try #require(request.headers["webhook-timestamp"].flatMap { Int64($0) })
        #expect(signer.verify(signatureHeader: request.headers["webhook-signature"] ?? "", id: id, timestamp: timestamp, body: request.body))

        let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(Set(json.keys) == ["version", "type", "group", "delivery"])
        #expect(J(json)["type"].string == "group")
        #expect(J(json)["version"].int == 1)
        #expect(J(json)["delivery"]["attempt"].int == 3)
        let group = J(json)["group"]
        #expect(Set(group.object.keys) == ["id", "route", "labels", "reason", "sequence", "console_url", "counts", "firing", "new_alert_ids", "closed",
                                           "truncated"])
        #expect(group["truncated"].int == 0)
        #expect(group["id"].string == ServiceFixtures.groupID.rawValue)
        #expect(group["route"].string == "rack")
        #expect(group["labels"].object as? [String: String] == ["alertname": "NodeDown"])
        #expect(group["reason"].string == "changed")
        #expect(group["sequence"].int == 2)
        #expect(group["console_url"].string == ServiceFixtures.consoleURL)
        #expect(group["counts"].object as? [String: Int] == ["firing": 1_000, "new": 3, "closed": 2])
        let firing = group["firing"].array.map(J.init)
        #expect(firing.map { $0["id"].string } == notification.firing.map(\.id.rawValue))
        #expect(group["new_alert_ids"].array as? [String] == notification.firing.prefix(3).map(\.id.rawValue))
        #expect(firing[0]["new"].bool == true && firing[3]["new"].bool == false)
        #expect(firing[1]["repeats"]["count"].int == 12)
        #expect(firing[1]["repeats"]["last_seen_at"].string == "2024-07-01T12:13:20.000Z")
        #expect(!firing[0]["repeats"].exists)
        // Every alert with actions carries its links, however far down the list.
        for (alert, body) in zip(notification.firing, firing) {
            #expect(body["confirm"]["link"].string == notification.actionLinks[alert.id]?[.confirm])
        }
        #expect(firing.filter { $0["confirm"]["link"].exists }.count == 100)
        #expect(group["closed"].array.map { J($0)["state"].string } == ["resolved", "resolved"])
        // With max_alerts: what fires first, then what closed, up to it; the counts stay whole.
        for (max, firingListed, closedListed) in [(999, 999, 0), (1_001, 1_000, 1), (5_000, 1_000, 2)] {
            let cut = J(try JSONSerialization.jsonObject(with: WebhookGroupPayload(notification, delivery: delivery, maxAlerts: max).encoded()))["group"]
            #expect(cut["firing"].array.count == firingListed && cut["closed"].array.count == closedListed, "\(max)")
            #expect(cut["truncated"].int == 1_002 - firingListed - closedListed, "\(max)")
            #expect(cut["counts"].object as? [String: Int] == ["firing": 1_000, "new": 3, "closed": 2])
        }
        // Each alert has the keys an `alert` payload's alert has, and these.
        #expect(Set(firing[0].object.keys) == [
            "id", "created_at", "state", "title", "message", "severity", "labels", "dedup_key", "expires_after", "confirm", "cancel",
            "new", "repeats",
        ])
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdCurl
@testable import AlertdDelivery

/// The `email` presenter against a real SMTP server on loopback (aiosmtpd),
/// each message read back with Python's MIME parser.
@Suite(.serialized, .enabled(if: SMTPReceiver.available, "python3 with aiosmtpd is missing; run scripts/install-deps.sh --test"))
struct EmailPresenterTests {
    func presenter(_ settings: [String: Any]) throws -> any AlertPresenter {
        try ServiceFixtures.presenter(EmailPresenterConfiguration.self, settings)
    }

    @Test func theMinimalConfigurationDeliversAsWritten() async throws {
        let smtp = try await SMTPReceiver()
        let p = try presenter(["url": smtp.url, "from": "alertd@example.com", "to": ["ops@example.com"]])
        #expect(await p.present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery) == .delivered)
        let mail = try #require(try smtp.mails().first)
        #expect(mail.mailFrom == "alertd@example.com")
        #expect(mail.recipients == ["ops@example.com"])
        #expect(mail.header("subject") == "[CRITICAL] Disk <full> & db1")
    }

    @Test func aMultipartAlternativeMessageWithBothPartsLinksAndEncodedHeaders() async throws {
        let smtp = try await SMTPReceiver()
        let p = try presenter([
            "url": smtp.url, "from": "Alertd Bot <alertd@example.com>", "to": ["Öps Team <ops@example.com>", "dev@example.com"],
            "cc": ["boss@example.com"],
        ])
        let title = "Plattenplatz voll — ünïcode 🚨 on db1 <b> & " + String(repeating: "ß", count: 60)
        let alert = try ServiceFixtures.alert(title: title)
        let before = Int(Date().timeIntervalSince1970)
        #expect(await p.present(alert, delivery: ServiceFixtures.delivery) == .delivered)
        let mail = try #require(try smtp.mails().first)

        #expect(mail.recipients == ["ops@example.com", "dev@example.com", "boss@example.com"])
        #expect(mail.parsed["to"] as? [String] == ["ops@example.com", "dev@example.com"])
        #expect(mail.parsed["to_names"] as? [String] == ["Öps Team", ""])
        #expect(mail.parsed["cc"] as? [String] == ["boss@example.com"])
        #expect(mail.header("from_name") == "Alertd Bot")
        // RFC 2047: encoded-words on the wire, the title intact once decoded.
        #expect(mail.header("subject") == "[CRITICAL] " + title)
        #expect(mail.header("raw_subject")?.contains("=?UTF-8?B?") == true)
        #expect(mail.header("message_id") == "<dlv-1.0@example.com>")
        #expect(mail.header("auto_submitted") == "auto-generated")
        let date = try #require(mail.parsed["date"] as? Int)
        #expect(date >= before - 1 && date <= before + 60)
        #expect(mail.header("content_type") == "multipart/alternative")
        #expect(mail.parsed["defects"] as? [String] == [])
        #expect((mail.parsed["max_line"] as? Int ?? 999) <= 78)
        #expect(mail.parsed["bare_newlines"] as? Int == 0)

        let parts = mail.parts
        #expect(parts.map { $0["type"] as? String } == ["text/plain", "text/html"])
        for part in parts {
            #expect(part["charset"] as? String == "utf-8")
            #expect(part["encoding"] as? String == "quoted-printable")
            #expect(part["defects"] as? [String] == [])
        }
        let text = try #require(parts.first?["content"] as? String)
        #expect(text.contains("[CRITICAL] " + title))
        #expect(text.contains("/var is at 98% <b>now</b> & rising"))
        #expect(text.contains("env: prod\nhost: db1"))
        #expect(text.contains("Expand: \(ServiceFixtures.confirmLink)\nIgnore: \(ServiceFixtures.cancelLink)"))
        let html = try #require(parts.last?["content"] as? String)
        #expect(html.contains("/var is at 98% &lt;b&gt;now&lt;/b&gt; &amp; rising"))
        #expect(html.contains("ünïcode 🚨 on db1 &lt;b&gt; &amp;"))
        #expect(html.contains("<th style=\"text-align:left;padding:2px 12px 2px 0;color:#555\">host</th><td>db1</td>"))
        let confirm = "href=\"\(ServiceFixtures.confirmLink.replacingOccurrences(of: "&", with: "&amp;"))\""
        #expect(html.contains(confirm))
        #expect(html.contains(">Expand</a>") && html.contains(">Ignore</a>"))
        #expect(!html.contains("<b>now"), "the alert's markup is text, not HTML")
    }

    /// A message as long as `limits.max_message_length` may allow (1 MB of
    /// emoji) is cut: the mail was 6 MB, near what mail servers take at all.
    @Test func aHugeMessageIsCutToAMailServersCanTake() async throws {
        let smtp = try await SMTPReceiver()
        let p = try presenter(["url": smtp.url, "from": "alertd@example.com", "to": ["ops@example.com"]])
        let huge = String(repeating: "🚨 disk ", count: 1_000_000 / 9)
        let alert = try ServiceFixtures.alert(message: huge)
        #expect(await p.present(alert, delivery: ServiceFixtures.delivery) == .delivered)
        let mail = try #require(try smtp.mails().first)
        let size = try #require(mail.parsed["size"] as? Int)
        #expect(size < 1_000_000, "\(size) bytes")
        #expect(mail.parsed["defects"] as? [String] == [])
        let text = try #require(mail.parts.first?["content"] as? String)
        #expect(text.contains("🚨 disk 🚨 disk"))
        #expect(text.contains("(The message is cut here; `alertctl show \(alert.id)` has it whole.)"))
        let html = try #require(mail.parts.last?["content"] as? String)
        #expect(html.contains("has it whole.)"))
    }

    @Test func retriesCarryTheSameMessageID() async throws {
        let smtp = try await SMTPReceiver()
        let p = try presenter(["url": smtp.url, "from": "alertd@example.com", "to": ["ops@example.com"]])
        let alert = try ServiceFixtures.alert()
        for attempt in 1...2 {
            let delivery = DeliveryContext(deliveryID: "01a2.0", attempt: attempt, actionLinks: [:])
            #expect(await p.present(alert, delivery: delivery) == .delivered)
        }
        let ids = try smtp.mails().map { $0.header("message_id") }
        #expect(ids == ["<01a2.0@example.com>", "<01a2.0@example.com>"])
        // Without links, the mail says how to decide instead.
        let text = try #require(try smtp.mails().first?.parts.first?["content"] as? String)
        #expect(text.contains("Expand: run `alertctl confirm \(alert.id)`"))
    }

    @Test func withSignedLinksEachRecipientGetsItsOwnMessageAndARetryOnlyThoseNotReached() async throws {
        let smtp = try await SMTPReceiver()
        let p = try presenter(["url": smtp.url, "from": "alertd@example.com", "to": ["ops@example.com", "tempfail@example.com"],
                               "cc": ["boss@example.com", "ops@example.com"]])
        let alert = try ServiceFixtures.alert()
        let first = await p.present(alert, delivery: ServiceFixtures.signedDelivery(alert))
        // Some have it, the rest may on another try: retried for those, partly delivered once retries run out.
        guard case .reachedSome(let reason) = first else { Issue.record("\(first)"); return }
        #expect(reason == "email to tempfail@example.com: \(smtp.url) refused the recipient (SMTP 451)")
        var mails = try smtp.mails()
        // Each address once, alone in its envelope; the headers still name everyone.
        #expect(mails.map(\.recipients) == [["ops@example.com"], ["boss@example.com"]])
        #expect(mails.map { $0.header("message_id") } == ["<dlv-2.0.ops-example.com@example.com>", "<dlv-2.0.boss-example.com@example.com>"])
        #expect(mails.first?.parsed["to"] as? [String] == ["ops@example.com", "tempfail@example.com"])
        #expect(mails.first?.parsed["cc"] as? [String] == ["boss@example.com", "ops@example.com"])
        for (mail, address) in zip(mails, ["ops%40example.com", "boss%40example.com"]) {
            let text = try #require(mail.parts.first?["content"] as? String)
            #expect(text.contains("/actions/confirm?expires="), "\(text)")
            #expect(text.contains("&to=\(address)&token="), "\(text)")
            let html = try #require(mail.parts.last?["content"] as? String)
            #expect(html.contains("to=\(address)&amp;token="))
        }

        // The retry mails only the one that failed, which fails again.
        let second = await p.present(alert, delivery: ServiceFixtures.signedDelivery(alert, attempt: 2))
        guard case .reachedSome = second else { Issue.record("\(second)"); return }
        mails = try smtp.mails()
        #expect(mails.count == 2)

        // Without signed links (no api.public_url), one message goes to all, as before.
        let plain = try presenter(["url": smtp.url, "from": "alertd@example.com", "to": ["ops@example.com", "dev@example.com"]])
        #expect(await plain.present(alert, delivery: DeliveryContext(deliveryID: "dlv-3.0", links: nil)) == .delivered)
        #expect(try smtp.mails().last?.recipients == ["ops@example.com", "dev@example.com"])
        #expect(try smtp.mails().last?.header("message_id") == "<dlv-3.0@example.com>")

        // A lone recipient's links name it; its mail keeps the delivery's own Message-ID.
        let lone = try presenter(["url": smtp.url, "from": "alertd@example.com", "to": ["ops@example.com"]])
        #expect(await lone.present(alert, delivery: ServiceFixtures.signedDelivery(alert, id: "dlv-4.0")) == .delivered)
        let mail = try #require(try smtp.mails().last)
        #expect(mail.header("message_id") == "<dlv-4.0@example.com>")
        #expect((mail.parts.first?["content"] as? String)?.contains("&to=ops%40example.com&token=") == true)
    }

    @Test func theFollowUpToPerRecipientMailsAnswersEveryCopy() async throws {
        let smtp = try await SMTPReceiver()
        let p = try presenter(["url": smtp.url, "from": "alertd@example.com", "to": ["ops@example.com", "dev@example.com"]])
        let alert = try ServiceFixtures.alert()
        #expect(await p.present(alert, delivery: ServiceFixtures.signedDelivery(alert)) == .delivered)
        let decision = AlertDecision(outcome: .confirmed, actor: "link", recipient: "dev@example.com")
        var closed = alert
        closed.state = .confirmed
        closed.decision = decision
        let followUp = DeliveryContext(deliveryID: .followUp(of: "dlv-2.0"), followUp: AlertFollowUp(decision: decision, original: "dlv-2.0"))
        #expect(await p.present(closed, delivery: followUp) == .delivered)
        let mails = try smtp.mails()
        #expect(mails.count == 3)
        let reply = try #require(mails.last)
        #expect(reply.recipients == ["ops@example.com", "dev@example.com"])
        let originals = "<dlv-2.0@example.com> <dlv-2.0.ops-example.com@example.com> <dlv-2.0.dev-example.com@example.com>"
        #expect(reply.header("in_reply_to")?.split(whereSeparator: \.isWhitespace).joined(separator: " ") == originals)
        #expect(reply.header("references")?.split(whereSeparator: \.isWhitespace).joined(separator: " ") == originals)
        #expect(reply.header("subject") == "Re: [CRITICAL] Disk <full> & db1")
        let text = try #require(reply.parts.first?["content"] as? String)
        #expect(text.contains("Confirmed via link by dev@example.com"), "\(text)")
    }

    @Test func authenticatesWithThePasswordFromAFileAndNeverSendsItInTheClearByDefault() async throws {
        let smtp = try await SMTPReceiver(login: ("alertd", "s3cret"))
        let dir = TemporaryDirectory()
        try writeSecretFile("s3cret\n", to: dir.path + "/smtp-password")
        var settings: [String: Any] = [
            "url": smtp.url, "from": "alertd@example.com", "to": ["ops@example.com"],
            "username": "alertd", "password_file": dir.path + "/smtp-password",
        ]
        // A password makes STARTTLS required, and this server offers none.
        let refused = try await presenter(settings).present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery)
        #expect(refused == .permanentFailure(reason: "email: \(smtp.url) does not offer STARTTLS, which tls \"required\" asks for"))
        #expect(try smtp.mails().isEmpty)

        settings["tls"] = "none"
        #expect(try await presenter(settings).present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery) == .delivered)
        #expect(try smtp.mails().first?.login == "alertd")

        try writeSecretFile("wrong", to: dir.path + "/smtp-password")
        let denied = try await presenter(settings).present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery)
        guard case .permanentFailure(let reason) = denied else { Issue.record("\(denied)"); return }
        #expect(reason == "email: \(smtp.url) refused the login: 5.7.8 Authentication credentials invalid", "the server's own words")
        #expect(!reason.contains("wrong"))

        // RFC 4954's 454 is the server's trouble for now: retried, not dead.
        try writeSecretFile("busy", to: dir.path + "/smtp-password")
        let busy = try await presenter(settings).present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery)
        #expect(busy == .retryableFailure(
            reason: "email: \(smtp.url) could not take the login now (SMTP 454): 4.7.0 Temporary authentication failure"), "\(busy)")
        try writeSecretFile("wrong", to: dir.path + "/smtp-password")

        // Each recipient's own mail (signed links): a refused login ends the
        // attempt, where it was tried once per recipient (an account lockout's
        // worth), and a server that failed so would fail the rest the same way.
        settings["to"] = ["a@example.com", "b@example.com", "c@example.com"]
        let before = smtp.loginAttempts
        let alert = try ServiceFixtures.alert()
        let each = try await presenter(settings).present(alert, delivery: ServiceFixtures.signedDelivery(alert))
        guard case .permanentFailure(let why) = each else { Issue.record("\(each)"); return }
        #expect(why.hasPrefix("email: \(smtp.url) refused the login"), "\(why)")
        #expect(smtp.loginAttempts - before == 1)
    }

    /// libcurl sends the mail without the login when the server offers
    /// none; a configured login is a condition of sending, so nothing goes.
    @Test func aLoginTheServerDoesNotOfferStopsTheMailInsteadOfBeingSkipped() async throws {
        let smtp = try await SMTPReceiver()
        let dir = TemporaryDirectory()
        try writeSecretFile("s3cret\n", to: dir.path + "/smtp-password")
        let settings: [String: Any] = [
            "url": smtp.url, "from": "alertd@example.com", "to": ["ops@example.com"],
            "username": "alertd", "password_file": dir.path + "/smtp-password", "tls": "none",
        ]
        let outcome = try await presenter(settings).present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery)
        #expect(outcome == .permanentFailure(reason: "email: \(smtp.url) offered no login alertd could use (no AUTH in its EHLO reply), so the "
            + "username and password would go unused; the mail was not sent. Many servers offer AUTH only over TLS: leave tls at \"required\" "
            + "(the default with a password); else enable AUTH on the server, or remove username and password"), "\(outcome)")
        #expect(try smtp.mails().isEmpty)
        // A login listed as old servers list it (`AUTH=LOGIN`), which libcurl does not read: no login took place either.
        let old = try await SMTPReceiver(login: ("alertd", "s3cret"), oldAuthSpelling: true)
        var oldSettings = settings
        oldSettings["url"] = old.url
        let skipped = try await presenter(oldSettings).present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery)
        guard case .permanentFailure(let why) = skipped else { Issue.record("\(skipped)"); return }
        #expect(why.hasPrefix("email: \(old.url) offered no login alertd could use"), "\(why)")
        #expect(try old.mails().isEmpty && old.loginAttempts == 0)
        // Without a login configured, the same server takes the mail.
        let plain = settings.filter { $0.key != "username" && $0.key != "password_file" }
        #expect(try await presenter(plain).present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery) == .delivered)
        #expect(try smtp.mails().count == 1)
    }

    /// One refused address of several does not keep the mail from the
    /// others: each is sent it alone, and the failure names the address.
    /// Refused for good, the mail is delivered to the rest (so follow-ups
    /// and threads go on for them); refused for now, a retry mails only
    /// those not yet reached. A group notification too.
    @Test func aRefusedRecipientDoesNotKeepTheMailFromTheOthers() async throws {
        let smtp = try await SMTPReceiver()
        let alert = try ServiceFixtures.alert()
        let p = try presenter(["url": smtp.url, "from": "alertd@example.com", "to": ["ops@example.com", "reject@example.com", "dev@example.com"]])
        let partly = await p.present(alert, delivery: DeliveryContext(deliveryID: "dlv-5.0", links: nil))
        #expect(partly == .partlyDelivered(reason: "email to reject@example.com: \(smtp.url) refused the recipient (SMTP 550)"))
        #expect(partly.isDelivered)
        var mails = try smtp.mails()
        #expect(mails.map(\.recipients) == [["ops@example.com"], ["dev@example.com"]])
        #expect(mails.allSatisfy { $0.header("message_id") == "<dlv-5.0@example.com>" })
        #expect(mails.first?.parsed["to"] as? [String] == ["ops@example.com", "reject@example.com", "dev@example.com"])

        let busy = try presenter(["url": smtp.url, "from": "alertd@example.com", "to": ["ops@example.com", "tempfail@example.com"]])
        for attempt in 1...2 {
            let outcome = await busy.present(alert, delivery: DeliveryContext(deliveryID: "dlv-6.0", attempt: attempt, actionLinks: [:]))
            #expect(outcome == .reachedSome(reason: "email to tempfail@example.com: \(smtp.url) refused the recipient (SMTP 451)"))
        }
        mails = try smtp.mails()
        #expect(mails.count == 3, "ops@ once, not again on the retry")

        let group = await p.presentGroup(try ServiceFixtures.group(2), delivery: ServiceFixtures.groupDelivery(1))
        guard case .partlyDelivered = group.outcome else { Issue.record("\(group)"); return }
        #expect(group.thread != nil, "later notifications answer this one")
        // Refused by everyone, nothing was delivered.
        let nobody = try presenter(["url": smtp.url, "from": "alertd@example.com", "to": ["reject@example.com", "reject2@example.com"]])
        guard case .permanentFailure = await nobody.present(alert, delivery: DeliveryContext(deliveryID: "dlv-8.0", links: nil)) else {
            Issue.record("refused by all should be a permanent failure"); return
        }
        #expect(try smtp.mails().dropFirst(3).map(\.recipients) == [["ops@example.com"], ["dev@example.com"]])
        // A group notification that reached some keeps its thread, for when retries end it partly delivered.
        let reachedSome = await busy.presentGroup(try ServiceFixtures.group(2), delivery: ServiceFixtures.groupDelivery(2))
        guard case .reachedSome = reachedSome.outcome else { Issue.record("\(reachedSome.outcome)"); return }
        #expect(reachedSome.thread != nil)
    }

    /// RFC 5321 §4.2.1: a 5yz reply is not to be repeated. A retry for a
    /// recipient refused for now asked again, every attempt, for the one
    /// refused for good; its refusal still ends the delivery partly delivered.
    @Test func aRecipientRefusedForGoodIsNotAskedAgainOnRetries() async throws {
        let smtp = try await SMTPReceiver()
        let alert = try ServiceFixtures.alert()
        let p = try presenter(["url": smtp.url, "from": "alertd@example.com", "to": ["ops@example.com", "reject@example.com", "tempfail@example.com"]])
        let refused = "email to reject@example.com: \(smtp.url) refused the recipient (SMTP 550)"
        let busy = "email to tempfail@example.com: \(smtp.url) refused the recipient (SMTP 451)"
        for attempt in 1...3 {
            let outcome = await p.present(alert, delivery: ServiceFixtures.signedDelivery(alert, attempt: attempt))
            #expect(outcome == .reachedSome(reason: refused + "; " + busy), "attempt \(attempt)")
        }
        #expect(smtp.recipientsAsked.filter { $0 == "reject@example.com" }.count == 1, "\(smtp.recipientsAsked)")
        #expect(smtp.recipientsAsked.filter { $0 == "ops@example.com" }.count == 1)
        #expect(smtp.recipientsAsked.filter { $0 == "tempfail@example.com" }.count == 3)
    }

    /// `a+b@` and `a-b@` were both `a-b-…` in their copies' Message-ID: a
    /// mail client that drops repeats showed one of two recipients' mails.
    @Test func everyRecipientsCopyHasItsOwnMessageID() {
        let addresses = ["a+b@example.com", "a-b@example.com", "a.b@example.com", "a@b-example.com", "A-B@example.com", "a_b@example.com"]
        let ids = addresses.map { EmailPresenter.messageID("dlv-1.0", recipient: $0, domain: "example.com") }
        #expect(Set(ids).count == addresses.count, "\(ids)")
        // A plain address keeps the id it always had.
        #expect(EmailPresenter.messageID("dlv-1.0", recipient: "ops@example.com", domain: "example.com") == "<dlv-1.0.ops-example.com@example.com>")
        #expect(ids.allSatisfy { $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "<>@.-_".contains($0)) } }, "\(ids)")
    }

    @Test func smtpRepliesDecideWhetherToRetry() async throws {
        let smtp = try await SMTPReceiver()
        let alert = try ServiceFixtures.alert()
        let busy = try await presenter(["url": smtp.url, "from": "alertd@example.com", "to": ["tempfail@example.com"]])
            .present(alert, delivery: ServiceFixtures.delivery)
        guard case .retryableFailure(let busyReason, nil) = busy else { Issue.record("\(busy)"); return }
        #expect(busyReason == "email to tempfail@example.com: \(smtp.url) refused the recipient (SMTP 451)")
        let unknown = try await presenter(["url": smtp.url, "from": "alertd@example.com", "to": ["reject@example.com"]])
            .present(alert, delivery: ServiceFixtures.delivery)
        guard case .permanentFailure(let unknownReason) = unknown else { Issue.record("\(unknown)"); return }
        #expect(unknownReason == "email to reject@example.com: \(smtp.url) refused the recipient (SMTP 550)")
        let closed = try ClosedPort()
        let down = try await presenter(["url": "smtp://127.0.0.1:\(closed.port)", "from": "alertd@example.com", "to": ["ops@example.com"]])
            .present(alert, delivery: ServiceFixtures.delivery)
        guard case .retryableFailure = down else { Issue.record("\(down)"); return }
        #expect(try smtp.mails().isEmpty)
        // A refusal of the message says what the server said, not libcurl's "Weird server reply".
        let big = try await presenter(["url": smtp.url, "from": "alertd@example.com", "to": ["toobig@example.com"]])
            .present(alert, delivery: ServiceFixtures.delivery)
        #expect(big == .permanentFailure(reason: "email: SMTP 552 from \(smtp.url): 5.3.4 Message size exceeds fixed limit"), "\(big)")
        // A connection dropped where the message's answer was due.
        let dropped = try await presenter(["url": smtp.url, "from": "alertd@example.com", "to": ["drop@example.com"]])
            .present(alert, delivery: ServiceFixtures.delivery)
        #expect(dropped == .retryableFailure(reason: "email: connection to \(smtp.url) lost: the connection broke after the "
            + "whole message, before the server answered it (the mail may have arrived; a retry may send it again)"), "\(dropped)")
        // A server that never greets runs out connect_timeout, and says that one.
        let silent = try SilentListener()
        let mute = try await presenter(["url": "smtp://127.0.0.1:\(silent.port)", "from": "alertd@example.com", "to": ["ops@example.com"],
                                        "connect_timeout": "1s", "timeout": "5s"])
            .present(alert, delivery: ServiceFixtures.delivery)
        #expect(mute == .retryableFailure(reason: "email: no answer from smtp://127.0.0.1:\(silent.port) within 1s"), "\(mute)")
    }

    /// A server that reads the message and never answers its end: the
    /// attempt ends within `timeout`, the whole exchange, as documented.
    /// libcurl's QUIT on the way out waited on its own 120 s default,
    /// holding one of the presenter's slots for two minutes an attempt.
    @Test func aServerSilentAfterTheMessageIsGivenUpOnWithinTheTimeout() async throws {
        let smtp = try await SMTPReceiver()
        let p = try presenter(["url": smtp.url, "from": "alertd@example.com", "to": ["hang@example.com"], "timeout": "2s"])
        let started = ContinuousClock.now
        let outcome = await p.present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery)
        let took = ContinuousClock.now - started
        guard case .retryableFailure(let reason, nil) = outcome else { Issue.record("\(outcome)"); return }
        #expect(reason.contains("within 2s"), "\(reason)")
        #expect(took < .milliseconds(3_500), "took \(took)")
    }

    /// A stop cancels the attempt: it ends at once, where the blocking
    /// exchange went on to its timeout (and its QUIT to libcurl's 120 s),
    /// past the shutdown grace.
    @Test func aCancelledSendToASilentServerEndsAtOnce() async throws {
        let smtp = try await SMTPReceiver()
        let message = Data("Subject: hi\r\n\r\nbody\r\n".utf8)
        let request = SMTPRequest(url: smtp.url, from: "alertd@example.com", recipients: ["hang@example.com"], message: message,
                                  timeout: .seconds(60))
        let send = Task { () -> SMTPClientError? in
            do throws(SMTPClientError) { try await SMTPClient.send(request) } catch { return error }
            return nil
        }
        // Long enough to be past the message, waiting on the answer that never comes.
        try await Task.sleep(for: .seconds(1))
        let cancelled = ContinuousClock.now
        send.cancel()
        let failure = await send.value
        #expect(ContinuousClock.now - cancelled < .seconds(2))
        guard case .cancelled? = failure else { Issue.record("\(String(describing: failure))"); return }
    }

    @Test func settingsAreChecked() {
        let read = { (s: [String: Any]) in ServiceFixtures.read(EmailPresenterConfiguration.self, s).1 }
        #expect(read(["url": "smtp://h:25", "from": "a@example.com", "to": ["b@example.com"]]).isEmpty)
        #expect(read([:]) == [
            "presenters.p.url: is required: the mail server, e.g. smtp://mail.example.com:587",
            "presenters.p.from: is required: the sender, e.g. \"alertd <alertd@example.com>\"",
            "presenters.p.to: is required: a list of recipients, e.g. [\"ops@example.com\"]",
        ])
        #expect(read(["url": "http://h", "from": "nobody", "to": [], "tls": "maybe"]) == [
            "presenters.p.url: must be a smtp:// or smtps:// URL with a host",
            "presenters.p.from: \"nobody\" is not an address; write name@example.com or \"Name <name@example.com>\" (ASCII addresses only)",
            "presenters.p.to: must name at least one recipient",
            "presenters.p.tls: must be required, optional or none, got \"maybe\"",
        ])
        #expect(read(["url": "smtp://h", "from": "a@b", "to": ["x <y@z>\r\nBcc: evil@example.com"]]).count == 1)
        let secure = ServiceFixtures.read(EmailPresenterConfiguration.self, [
            "url": "smtp://h", "from": "a@b", "to": ["c@d"], "username": "u", "password": "p",
        ]).0
        #expect(secure?.tls == .required)
        // A login in the URL would be used under none of the password's rules: TLS optional, the config readable.
        for url in ["smtp://alertd:PASS@h:25", "smtps://alertd@h"] {
            #expect(read(["url": url, "from": "a@b", "to": ["c@d"]]) == [
                "presenters.p.url: must not hold a login (user@ or user:password@); give username, and password_file, "
                    + "with which TLS is required by default",
            ])
        }
    }
}

/// The mail encodings on their own.
@Suite struct MIMETextTests {
    @Test func quotedPrintableKeepsLinesShortAndEscapesWhatItMust() {
        let encoded = MIMEText.quotedPrintable(String(repeating: "a=b ", count: 40) + "end \nü\ttab\t\n")
        let lines = encoded.components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.utf8.count <= 76 })
        #expect(lines.contains { $0.hasSuffix("=") }, "soft breaks")
        #expect(encoded.contains("end=20\r\n=C3=BC\ttab=09\r\n"))
        #expect(!encoded.contains("a=b"))
    }

    /// A run of spaces never folds into a line of nothing but spaces
    /// (obsolete syntax, read by some as the headers' end), and a long
    /// identifier moves to a line of its own.
    @Test func headersFoldIntoNoBlankLineAndLongIdentifiersMove() {
        for title in ["A" + String(repeating: " ", count: 150) + "B", "Disk  full " + String(repeating: "on db1 ", count: 20)] {
            let lines = MIMEText.unstructured("Subject", title).components(separatedBy: "\r\n")
            #expect(lines.dropFirst().allSatisfy { $0.contains { $0 != " " } }, "\(lines)")
            #expect(lines.allSatisfy { $0.utf8.count <= 78 })
        }
        let long = "<dlv-2.0.a-very-long-mailbox-name-for-the-on-call-rotation-example.com@example.com>"
        #expect(MIMEText.identifiers("Message-ID", [long]) == "Message-ID:\r\n " + long)
        #expect(MIMEText.identifiers("In-Reply-To", ["<a@b>", "<c@d>"]) == "In-Reply-To: <a@b>\r\n <c@d>")
    }

    @Test func encodedWordsHoldWholeCharacters() {
        let words = MIMEText.encodedWords(String(repeating: "🚨", count: 30))
        #expect(words.count == 4)  // 9 four-byte emoji per 39-byte word
        for word in words {
            #expect(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?="))
            let payload = word.dropFirst(10).dropLast(2)
            let bytes = Data(base64Encoded: String(payload))
            #expect(bytes.flatMap { String(data: $0, encoding: .utf8) } != nil)
        }
        let folded = MIMEText.unstructured("Subject", String(repeating: "word ", count: 40))
        #expect(folded.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 78 })
        #expect(!folded.contains("=?"))
        #expect(MIMEText.unstructured("Subject", "a\r\nBcc: x").hasPrefix("Subject: =?UTF-8?B?"))
    }

    @Test func datesAreRFC5322() {
        #expect(MIMEText.date(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 +0000")
        #expect(MIMEText.date(Date(timeIntervalSince1970: 1_719_835_200)) == "Mon, 01 Jul 2024 12:00:00 +0000")
        #expect(MIMEText.date(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 +0000")
    }
}

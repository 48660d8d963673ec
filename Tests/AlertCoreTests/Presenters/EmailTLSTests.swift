import Foundation
import Testing
@testable import AlertModel
@testable import AlertdCurl
@testable import AlertdDelivery

/// The `email` presenter over TLS, against the real SMTP server (aiosmtpd)
/// with a certificate from a throwaway CA the openssl CLI makes: STARTTLS
/// required and optional, TLS from the first byte (`smtps://`), a server
/// without STARTTLS, and a certificate nobody trusts. Also its follow-ups,
/// threaded under the alert's mail.
@Suite(.serialized, .enabled(if: SMTPReceiver.available, "python3 with aiosmtpd is missing; run scripts/install-deps.sh --test"))
struct EmailTLSTests {
    func presenter(_ url: String, _ extra: [String: Any] = [:]) throws -> any AlertPresenter {
        try ServiceFixtures.presenter(EmailPresenterConfiguration.self,
                                      ["url": url, "from": "alertd@example.com", "to": ["ops@example.com"]].merging(extra) { $1 })
    }

    @Test func requiredSTARTTLSDeliversToARealTLSServerTrustingTheCAFile() async throws {
        let certs = try await TestCertificates()
        let smtp = try await SMTPReceiver(login: ("alertd", "s3cret"), tls: .startTLS(certs))
        let dir = TemporaryDirectory()
        try writeSecretFile("s3cret", to: dir.path + "/password")
        // A password makes STARTTLS required by default; the login then goes over TLS.
        let p = try presenter(smtp.url, ["ca_file": certs.caCertificate, "username": "alertd", "password_file": dir.path + "/password"])
        #expect(await p.present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery) == .delivered)
        let mail = try #require(try smtp.mails().first)
        #expect(mail.login == "alertd")
        #expect(mail.overTLS)
        #expect(mail.header("subject") == "[CRITICAL] Disk <full> & db1")
        #expect(mail.parts.map { $0["type"] as? String } == ["text/plain", "text/html"])
        #expect(mail.parsed["defects"] as? [String] == [])

        // `tls: optional` takes STARTTLS when offered, and logged in without it
        // where it is not: with a password it is refused (`required` or `none`).
        let optional = ServiceFixtures.read(EmailPresenterConfiguration.self, [
            "url": smtp.url, "from": "a@example.com", "to": ["b@example.com"], "tls": "optional", "username": "alertd", "password": "s3cret",
        ]).1
        #expect(optional == ["presenters.p.tls: optional would send the password in the clear to a server that does not offer STARTTLS; "
            + "leave tls out (required, the default with a password), or say none to allow that"])
        let plain = try await SMTPReceiver(login: ("alertd", "s3cret"))
        let none = try presenter(plain.url, ["tls": "none", "username": "alertd", "password": "s3cret"])
        #expect(await none.present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery) == .delivered)
        let unencrypted = try #require(try plain.mails().first)
        #expect(unencrypted.login == "alertd" && !unencrypted.overTLS)
        #expect(ServiceFixtures.read(EmailPresenterConfiguration.self, [
            "url": "smtps://h", "from": "a@example.com", "to": ["b@example.com"], "tls": "optional", "username": "u", "password": "p",
        ]).1.isEmpty, "smtps:// is TLS from the first byte")
        #expect(ServiceFixtures.read(EmailPresenterConfiguration.self, [
            "url": "smtps://h", "from": "a@example.com", "to": ["b@example.com"], "tls": "none",
        ]).1 == ["presenters.p.tls: none is for smtp://; smtps:// is TLS from the start, so leave tls out, or use smtp://"])
    }

    @Test func smtpsIsTLSFromTheFirstByte() async throws {
        let certs = try await TestCertificates()
        let smtp = try await SMTPReceiver(tls: .implicit(certs))
        #expect(smtp.url.hasPrefix("smtps://"))
        #expect(await (try presenter(smtp.url, ["ca_file": certs.caCertificate])).present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery)
            == .delivered)
        #expect(try smtp.mails().first?.header("subject") == "[CRITICAL] Disk <full> & db1")
        #expect(try smtp.mails().first?.overTLS == true)
    }

    @Test func requiredSTARTTLSAgainstAServerWithoutItFailsForGood() async throws {
        let smtp = try await SMTPReceiver()
        let outcome = await (try presenter(smtp.url, ["tls": "required"])).present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery)
        #expect(outcome == .permanentFailure(reason: "email: \(smtp.url) does not offer STARTTLS, which tls \"required\" asks for"))
        #expect(try smtp.mails().isEmpty)
    }

    @Test func aCertificateFromAnUntrustedCAFailsSayingSoAndSendsNothing() async throws {
        let certs = try await TestCertificates()
        let other = try await TestCertificates(name: "someone else")
        for (tls, smtp) in [("required", try await SMTPReceiver(tls: .startTLS(certs))), ("optional", try await SMTPReceiver(tls: .implicit(certs)))] {
            // The system's CAs, then another CA's certificate: neither issued the server's.
            for extra in [[:], ["ca_file": other.caCertificate]] as [[String: Any]] {
                let outcome = await (try presenter(smtp.url, extra.merging(["tls": tls]) { $1 }))
                    .present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery)
                guard case .retryableFailure(let reason, nil) = outcome else { Issue.record("\(smtp.url): \(outcome)"); continue }
                #expect(reason.hasPrefix("email: the certificate of \(smtp.url) is not trusted ("), "\(reason)")
                #expect(reason.hasSuffix("if a private CA issued it, give that CA's certificate as ca_file"), "\(reason)")
            }
            #expect(try smtp.mails().isEmpty)
        }
        // A CA file that is not there is found when the presenter is made, not at the first mail.
        #expect(throws: PresenterSetupError.self) { try presenter("smtp://127.0.0.1:25", ["ca_file": "/nonexistent/ca.pem"]) }
    }

    @Test func aFollowUpIsAReplyToTheAlertsMail() async throws {
        let smtp = try await SMTPReceiver()
        let p = try presenter(smtp.url)
        let alert = try ServiceFixtures.alert()
        #expect(await p.present(alert, delivery: ServiceFixtures.delivery) == .delivered)
        let (closed, followUp) = try ServiceFixtures.followUp(.resolved, of: alert)
        #expect(await p.present(closed, delivery: followUp) == .delivered)
        let mails = try smtp.mails()
        #expect(mails.count == 2)
        #expect(mails.first?.overTLS == false, "a plain server")
        let reply = try #require(mails.last)
        #expect(mails.first?.header("message_id") == "<dlv-1.0@example.com>")
        #expect(reply.header("message_id") == "<dlv-1.0.closed@example.com>")
        #expect(reply.header("in_reply_to") == "<dlv-1.0@example.com>")
        #expect(reply.header("references") == "<dlv-1.0@example.com>")
        #expect(reply.header("subject") == "Re: [CRITICAL] Disk <full> & db1")
        #expect(reply.parsed["defects"] as? [String] == [])
        let text = try #require(reply.parts.first?["content"] as? String)
        #expect(text.hasPrefix("Resolved: Disk <full> & db1\n\nComment: done <now> & dusted\n\nalert \(alert.id), resolved at 2024-07-01T12:01:00.000Z"))
        #expect(!text.contains("Expand"))
        let html = try #require(reply.parts.last?["content"] as? String)
        #expect(html.contains("<h2 style=\"margin:4px 0 12px\">Resolved: Disk &lt;full&gt; &amp; db1</h2>"))
    }
}

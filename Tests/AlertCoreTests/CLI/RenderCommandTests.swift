import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdDelivery

/// `alertctl render --to <type>` for the types that send somewhere: what
/// each would send, never a secret, and one real send.
@Suite struct RenderCommandTests {
    static let remoteTypes = PresenterRegistry.documentedTypes.map { $0.typeName }.filter { !["terminal", "log"].contains($0) }

    @Test(arguments: remoteTypes)
    func everyTypeShowsWhatItWouldSendWithoutSending(_ type: String) async throws {
        let r = try await TestBinaries.alertctl(
            "render", "-t", "Disk full", "-m", "/var at 97%", "-s", "critical", "-l", "host=db1",
            "--confirm", "Expand=https://ops.example/expand", "--to", type)
        #expect(r.exitCode == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty)
        let head = try #require(r.stdout.split(separator: "\n").first.map(String.init))
        #expect(["POST ", "PUT ", "SMTP ", "exec "].contains { head.hasPrefix($0) }, "\(head)")
        #expect(r.stdout.contains("Disk full"))
        #expect(r.stdout.contains("/actions/confirm?"), "the action link shows as a daemon would sign it")
    }

    @Test func secretsGivenInTheSettingsShowAsPlaceholders() async throws {
        let settings: [String: [String: Any]] = [
            "ntfy": ["url": "https://ntfy.example/t", "token": "tk_SECRET1"],
            "email": ["url": "smtp://m.example", "from": "a@example.com", "to": ["b@example.com"], "username": "u", "password": "SECRET1"],
            "slack": ["url": "https://hooks.slack.com/services/T/B/SECRET1"],
        ]
        for (type, config) in settings {
            let json = String(decoding: try JSONSerialization.data(withJSONObject: config), as: UTF8.self)
            let r = try await TestBinaries.alertctl("render", "-t", "x", "--to", type, "--config", json, "--dry-run")
            #expect(r.exitCode == 0, "\(type): \(r.stderr)")
            #expect(!r.stdout.contains("SECRET1"), "\(type): \(r.stdout)")
        }
    }

    @Test func givenADestinationItSendsOnce() async throws {
        let receiver = try ServiceReceiver { _ in [] }
        let r = try await TestBinaries.alertctl("render", "-t", "Disk full", "--to", "slack", "--url", receiver.base + "/services/T/B/X")
        #expect(r.exitCode == 0, "\(r.stderr)")
        #expect(r.stderr == "delivered\n")
        #expect(receiver.received.count == 1)
        #expect(J(receiver.received.first?.json)["attachments"][0]["blocks"][0]["text"]["text"].string == "ℹ️ Disk full")

        receiver.script([.text(status: 404, "no_service")])
        let failed = try await TestBinaries.alertctl("render", "-t", "x", "--to", "slack", "--url", receiver.base + "/services/T/B/X")
        #expect(failed.exitCode == 1)
        #expect(failed.stderr == "failed: HTTP 404 from slack (\(receiver.base)): no_service\n")
    }

    @Test func unusableSettingsAreAUsageError() async throws {
        let notJSON = try await TestBinaries.alertctl("render", "-t", "x", "--to", "ntfy", "--config", "[1]")
        #expect(notJSON.exitCode == 64)
        #expect(notJSON.stderr.hasPrefix("Error: The value given for '--config <json>' is invalid: give the settings as a JSON object"))
        let problems = try await TestBinaries.alertctl("render", "-t", "x", "--to", "email", "--config", #"{"url": "smtp://m", "form": "a@b"}"#)
        #expect(problems.exitCode == 64)
        #expect(problems.stderr.contains("settings.form: unknown key (did you mean \"from\"?)"))
        let badURL = try await TestBinaries.alertctl("render", "-t", "x", "--to", "ntfy", "--url", "ftp://x/y")
        #expect(badURL.exitCode == 64)
        #expect(badURL.stderr.hasPrefix("Error: The value given for '--url <url>' is invalid: must be a http:// or https:// URL with a host"))
        let local = try await TestBinaries.alertctl("render", "-t", "x", "--to", "log", "--dry-run")
        #expect(local.exitCode == 64)
    }
}

extension RenderCommandTests {
    @Test(arguments: remoteTypes)
    func everyTypeShowsItsFollowUp(_ type: String) async throws {
        let r = try await TestBinaries.alertctl(
            "render", "-t", "Disk full", "-s", "critical", "--confirm", "Expand=https://ops.example/expand", "--to", type,
            "--follow-up", "resolved")
        #expect(r.exitCode == 0, "\(r.stderr)")
        #expect(!r.stdout.contains("/actions/confirm?"), "a closed alert offers no links")
        switch type {
        case "pagerduty": #expect(r.stdout.contains(#""event_action" : "resolve""#), "\(r.stdout)")
        case "webhook", "exec": #expect(r.stdout.contains(#""type" : "closed""#), "\(r.stdout)")
        case "email": #expect(r.stdout.contains("Subject: Re: [CRITICAL] Disk full") && r.stdout.contains("In-Reply-To: <"), "\(r.stdout)")
        default: #expect(r.stdout.contains("Resolved: Disk full"), "\(type): \(r.stdout)")
        }
    }

    @Test func aFollowUpIsLoggedHereAndRefusedForTheTerminal() async throws {
        let log = try await TestBinaries.alertctl("render", "-t", "Disk full", "--to", "log", "--follow-up", "confirmed")
        #expect(log.exitCode == 0)
        #expect(log.stderr.contains(#""event":"closed""#) && log.stderr.contains(#""outcome":"confirmed""#), "\(log.stderr)")
        let terminal = try await TestBinaries.alertctl("render", "-t", "Disk full", "--follow-up", "resolved")
        #expect(terminal.exitCode == 64)
        #expect(terminal.stderr.contains("'terminal' presenters send no follow-ups"), "\(terminal.stderr)")
    }
}

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
            // A login in a self-hosted server's URL, as `webhook` already hid it.
            "gotify": ["url": "https://alertd:SECRET1@gotify.example", "token": "A0123456789abcd"],
            "webhook": ["url": "https://alertd:SECRET1@hooks.example/x"],
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

    /// A service with no `url` takes `--url` as its address (`api_url`):
    /// `--to pagerduty --url …` was refused, naming a key it has not.
    @Test func aServiceAtAFixedAPITakesTheURLAsItsAddress() async throws {
        let receiver = try ServiceReceiver { _ in [] }
        let r = try await TestBinaries.alertctl("render", "-t", "Disk full", "--to", "pagerduty",
                                                "--config", #"{"routing_key": "0123456789abcdef0123456789abcdef"}"#, "--url", receiver.base)
        #expect(r.exitCode == 0, "\(r.stderr)")
        #expect(receiver.received.map(\.request.path) == ["/v2/enqueue"])
        let bad = try await TestBinaries.alertctl("render", "-t", "x", "--to", "telegram", "--url", "ftp://x/y")
        #expect(bad.exitCode == 64)
        #expect(bad.stderr.hasPrefix("Error: The value given for '--url <url>' is invalid: must be a http:// or https:// URL"), "\(bad.stderr)")
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

extension RenderCommandTests {
    @Test(arguments: remoteTypes)
    func everyTypeShowsAGroupNotification(_ type: String) async throws {
        let r = try await TestBinaries.alertctl(
            "render", "-t", "Node down", "-s", "critical", "--label", "alertname=NodeDown", "--confirm", "Drain=https://ops.example/drain",
            "--to", type, "--group", "12")
        #expect(r.exitCode == 0, "\(r.stderr)")
        switch type {
        case "webhook", "exec":
            #expect(r.stdout.contains(#""type" : "group""#) && r.stdout.contains(#""firing" : 12"#), "\(r.stdout)")
        case "pagerduty":
            #expect(r.stdout.contains(#""summary" : "[FIRING:12] alertname=NodeDown""#) && r.stdout.contains(#""dedup_key" : "g-"#), "\(r.stdout)")
        case "teams", "discord":
            // Markdown (the card's, the embed title's) shows the brackets as typed.
            #expect(r.stdout.contains(#"\\[FIRING:12\\] alertname=NodeDown"#), "\(type): \(r.stdout)")
        default:
            #expect(r.stdout.contains("[FIRING:12] alertname=NodeDown"), "\(type): \(r.stdout)")
        }
        switch type {
        case "slack", "matrix", "email", "webhook", "exec", "pagerduty":
            // Their own formats: each listed alert's link.
            #expect(r.stdout.contains("/actions/confirm?"), "\(type): \(r.stdout)")
        case "pushover":
            // The summary is cut at 1,024 characters; its link is the group in the console.
            #expect(r.stdout.contains(#""url_title" : "All 12 alerts of the group""#), "\(r.stdout)")
        default:
            // The summary alert: the list as text, "+M more" past ten.
            #expect(r.stdout.contains("+2 more"), "\(type): \(r.stdout)")
        }
    }

    @Test func aGroupIsPresentedHereAndItsSizeChecked() async throws {
        let terminal = try await TestBinaries.alertctl("render", "-t", "Node down", "--label", "alertname=NodeDown", "--group", "3", "--color", "never")
        #expect(terminal.exitCode == 0)
        #expect(terminal.stdout.contains("[FIRING:3] alertname=NodeDown"), "\(terminal.stdout)")
        for bad in ["0", "10001", "x"] {
            let r = try await TestBinaries.alertctl("render", "-t", "x", "--group", bad)
            #expect(r.exitCode == 64, "\(bad)")
            #expect(r.stderr.contains("give how many alerts the group has, 1 to 10000"), "\(r.stderr)")
        }
        let both = try await TestBinaries.alertctl("render", "-t", "x", "--to", "slack", "--group", "2", "--follow-up", "resolved")
        #expect(both.exitCode == 64)
        #expect(both.stderr.contains("Give '--group' or '--follow-up', not both."), "\(both.stderr)")
    }
}

import Foundation
import Testing
@testable import AlertdDelivery

/// `alertctl render --to webhook` takes its signing secret where no other
/// user can see it: a private file or the environment. `--secret` stays,
/// discouraged, since a command line is visible in ps.
@Suite struct RenderSecretTests {
    /// A secret for a presenter that signs nothing was "invalid: unknown
    /// key; allowed here: type, …", as if the secret itself were wrong.
    @Test func aSecretForAPresenterThatSignsNothingIsSaidToBeSo() async throws {
        let r = try await TestBinaries.alertctl("render", "-t", "x", "--to", "slack", "--url", "https://hooks.slack.com/services/T/B/X",
                                                "--secret", "whsec_abc", "--dry-run")
        #expect(r.exitCode == 64)
        #expect(r.stderr.hasPrefix("Error: '--to slack' signs nothing; '--secret' and '--secret-file' are for the presenters that sign their requests (webhook).\n"),
                "\(r.stderr)")
    }

    @Test func renderTakesTheSecretFromAFileOrTheEnvironment() async throws {
        let receiver = try WebhookReceiver()
        let secret = "whsec_" + Data(repeating: 9, count: 32).base64EncodedString()
        let signer = try StandardWebhookSigner(secret: secret)
        let dir = TemporaryDirectory()
        let file = dir.path + "/hook.secret"
        try writeSecretFile(secret + "\n", to: file)
        func verified(_ index: Int) -> Bool {
            guard receiver.received.count > index else { return false }
            let request = receiver.received[index].request
            guard let header = request.headers["webhook-signature"], let id = request.headers["webhook-id"],
                  let timestamp = request.headers["webhook-timestamp"].flatMap({ Int64($0) }) else { return false }
            return signer.verify(signatureHeader: header, id: id, timestamp: timestamp, body: request.body)
        }

        let fromFile = try await TestBinaries.alertctl("render", "-t", "x", "--to", "webhook", "--url", receiver.url, "--secret-file", file)
        #expect(fromFile.exitCode == 0, "\(fromFile.stderr)")
        #expect(verified(0))
        let fromEnvironment = try await TestBinaries.alertctl(
            "render", "-t", "x", "--to", "webhook", "--url", receiver.url, environment: ["ALERTD_WEBHOOK_SECRET": secret])
        #expect(fromEnvironment.exitCode == 0, "\(fromEnvironment.stderr)")
        #expect(verified(1))

        let both = try await TestBinaries.alertctl("render", "-t", "x", "--to", "webhook", "--url", receiver.url,
                                                   "--secret-file", file, "--secret", secret)
        #expect(both.exitCode == 64)
        #expect(both.stderr.hasPrefix("Error: Give the signing secret once"))
        let notWebhook = try await TestBinaries.alertctl("render", "-t", "x", "--secret-file", file)
        #expect(notWebhook.exitCode == 64)

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let readable = try await TestBinaries.alertctl("render", "-t", "x", "--to", "webhook", "--url", receiver.url, "--secret-file", file)
        #expect(readable.exitCode == 64)
        #expect(readable.stderr.contains("may be read by every user (mode 0644)"), "\(readable.stderr)")
        #expect(!readable.stderr.contains(secret))
        let badEnvironment = try await TestBinaries.alertctl(
            "render", "-t", "x", "--to", "webhook", "--url", receiver.url, environment: ["ALERTD_WEBHOOK_SECRET": "nope"])
        #expect(badEnvironment.exitCode == 64)
        #expect(badEnvironment.stderr.hasPrefix("Error: The secret in ALERTD_WEBHOOK_SECRET is invalid"))
        #expect(receiver.received.count == 2)

        let help = try await TestBinaries.alertctl("render", "--help")
        #expect(help.stdout.contains("--secret-file <file>"))
        #expect(help.stdout.contains("discouraged"))
        await receiver.stop()
    }
}

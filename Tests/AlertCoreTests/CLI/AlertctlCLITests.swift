import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdSQLite
@testable import AlertdCrypto
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdHTTPServer
@testable import AlertdLogging
@testable import AlertdCommandLine
@testable import AlertdStore
@testable import AlertdSQLiteStore
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

/// Runs the built `alertctl` and pins what people and scripts rely on:
/// exit codes, help text, error lines, JSON shapes.
@Suite struct AlertctlCLITests {
    @Test func validatePrintsTheSpec() async throws {
        let r = try await TestBinaries.alertctl(
            "validate", "--title", "Disk full", "-m", "/var at 97%", "--severity", "critical",
            "--label", "host=db1", "--confirm", "Expand=https://ops.example/expand", "--expires", "30m")
        #expect(r.exitCode == 0)
        #expect(r.stderr == "")
        #expect(r.stdout == """
            {
              "confirm" : {
                "label" : "Expand",
                "method" : "POST",
                "url" : "https://ops.example/expand"
              },
              "expires_after" : 1800,
              "labels" : {
                "host" : "db1"
              },
              "message" : "/var at 97%",
              "severity" : "critical",
              "title" : "Disk full"
            }

            """)
    }

    @Test func validateReportsEveryError() async throws {
        let r = try await TestBinaries.alertctl("validate", "--title", "", "--confirm", "=ftp://x")
        #expect(r.exitCode == 65)
        #expect(r.stdout == "")
        #expect(r.stderr == """
            error: title: The title is empty: say in a few words what happened, e.g. "Disk full on db1". [missing_title]
            error: confirm.label: The confirm action has no label; name what it does, e.g. "Restart". [empty_action_label]
            error: confirm.url: The handler URL uses `ftp:`; only http and https handlers can be called. [handler_scheme_not_allowed]

            """)
    }

    @Test func validateReportsErrorsAsJSON() async throws {
        let r = try await TestBinaries.alertctl("validate", "--title", "", "--expires", "30x", "--json")
        #expect(r.exitCode == 65)
        #expect(r.stderr == "")
        let error = try HTTPErrorBody.decode(Data(r.stdout.utf8))
        #expect(error.code == "invalid_alert")
        #expect(error.message == "The alert is invalid: 2 problems found; see details.")
        #expect((error.details ?? []).map(\.code) == ["missing_title", "invalid_expiry"])
        #expect((error.details ?? []).map(\.field) == ["title", "expires_after"])
        #expect(error.details![1].message.hasPrefix("`--expires` is not a duration: `30x`."))
        // The exact wire shape the API uses.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let inner = try #require(object["error"] as? [String: Any])
        #expect(Set(inner.keys) == ["code", "message", "details"])
        #expect(r.stdout.hasPrefix(#"{"error":{"code":"invalid_alert","details":[{"code":"missing_title","field":"title","message":"#))
    }

    @Test func unknownOptionIsAUsageError() async throws {
        let r = try await TestBinaries.alertctl("validate", "--titel", "x")
        #expect(r.exitCode == 64)
        #expect(r.stdout == "")
        #expect(r.stderr == """
            Error: Unknown option '--titel'. Did you mean '--title'?
            Usage: alertctl validate [--title <title>] [--message <message>]
                                     [--severity <severity>] [--label <name=value> ...]
                                     [--confirm <label=url>] [--cancel <label=url>]
                                     [--dedup-key <key>] [--expires <duration>]
                                     [--template <name>] [--set <name=value> ...]
                                     [--templates <file>] [--json]
            See 'alertctl validate --help' for more.

            """)
        let sub = try await TestBinaries.alertctl("valdate")
        #expect(sub.exitCode == 64)
        #expect(sub.stderr.hasPrefix("Error: Unknown subcommand 'valdate'. Did you mean 'validate'?\nUsage: alertctl <subcommand>\n"))
        let missing = try await TestBinaries.alertctl("validate", "--title")
        #expect(missing.exitCode == 64)
        #expect(missing.stderr.hasPrefix("Error: Missing value for '--title <title>'\n"))
    }

    @Test func validateHelpIsPinned() async throws {
        let r = try await TestBinaries.alertctl("validate", "--help")
        #expect(r.exitCode == 0)
        #expect(r.stderr == "")
        #expect(r.stdout == """
            OVERVIEW: Check an alert without sending it, and print it as JSON.

            Prints the alert as the daemon would accept it and exits 0, or prints every
            problem and exits 65.

            USAGE: alertctl validate [--title <title>] [--message <message>]
                                     [--severity <severity>] [--label <name=value> ...]
                                     [--confirm <label=url>] [--cancel <label=url>]
                                     [--dedup-key <key>] [--expires <duration>]
                                     [--template <name>] [--set <name=value> ...]
                                     [--templates <file>] [--json]

            OPTIONS:
              -t, --title <title>     The headline: what happened, in a few words.
              -m, --message <message>
                                      Details; may span lines. '-' reads them from standard
                                      input.
              -s, --severity <severity>
                                      How urgent: info, warning, error, critical. Defaults
                                      to info.
              -l, --label <name=value>
                                      A label to route and group on; repeat for more.
              --confirm <label=url>   The confirm action: its button label and the http(s)
                                      handler to call.
              --cancel <label=url>    The cancel action, as for --confirm; also called when
                                      the alert expires.
              --dedup-key <key>       While an alert with this key is open, fold new ones
                                      into it.
              --expires <duration>    Expire the alert after this long, e.g. 90s, 30m,
                                      1h30m, 2d.
              --template <name>       Start from this template; the other options override
                                      its fields.
              --set <name=value>      A value for a placeholder of the template; repeat for
                                      more.
              --templates <file>      The template file; defaults to $ALERTD_TEMPLATES.
              --json                  Print problems as JSON on standard output, in the HTTP
                                      API's error format.
              -h, --help              Show help information.

            """)
        let viaHelp = try await TestBinaries.alertctl("help", "validate")
        #expect(viaHelp.exitCode == 0)
        #expect(viaHelp.stdout == r.stdout)
    }

    @Test func rootPrintsHelpAndVersion() async throws {
        let bare = try await TestBinaries.alertctl()
        #expect(bare.exitCode == 0)
        #expect(bare.stdout == """
            OVERVIEW: Compose, check and send alerts to alertd.

            USAGE: alertctl <subcommand>

            OPTIONS:
              --version               Show the version.
              -h, --help              Show help information.

            SUBCOMMANDS:
              validate                Check an alert without sending it, and print it as
                                      JSON.
              render                  Present an alert right away through one presenter,
                                      without the daemon.
              send                    Send an alert to alertd and print its id.
              list                    List the alerts alertd holds, newest first.
              show                    Show one alert and how its deliveries stand.
              confirm                 Confirm an open alert: alertd calls its confirm
                                      handler.
              cancel                  Cancel an open alert: alertd calls its cancel handler.
              resolve                 Resolve an open alert: the problem went away; no
                                      handler is called.
              watch                   Follow alertd's events; on a terminal, decide alerts
                                      with a key press.
              replay                  Retry dead deliveries: those of one alert, or all of
                                      them.
              completion              Print a shell completion script.
              help                    Show subcommand help information.

              See 'alertctl help <subcommand>' for detailed help.

            """)
        #expect(try await TestBinaries.alertctl("--help").stdout == bare.stdout)
        let version = try await TestBinaries.alertctl("--version")
        #expect(version.exitCode == 0)
        #expect(version.stdout == "alertctl \(AlertdVersion.current)\n")
        #expect(version.stdout == "alertctl 0.1.0\n")
    }

    @Test func messageFromStandardInput() async throws {
        let r = try await TestBinaries.alertctl("validate", "-t", "x", "--message", "-", stdin: "line one\nline two\n")
        #expect(r.exitCode == 0)
        #expect(r.stdout.contains(#""message" : "line one\nline two","#))
    }

    @Test func templatesFillGapsAndReportProblems() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-templates-\(UUID().uuidString).json").path
        try #"{"templates": {"disk_full": {"title": "Disk full on {host}", "severity": "critical", "labels": {"host": "{host}"}}, "backup": {"title": "Backup"}}}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }

        let filled = try await TestBinaries.alertctl(
            "validate", "--template", "disk_full", "--set", "host=db1", "--severity", "warning",
            environment: ["ALERTD_TEMPLATES": file])
        #expect(filled.exitCode == 0)
        #expect(filled.stdout.contains(#""title" : "Disk full on db1""#))
        #expect(filled.stdout.contains(#""severity" : "warning""#))

        let missing = try await TestBinaries.alertctl("validate", "--template", "disk_full", "--templates", file)
        #expect(missing.exitCode == 65)
        #expect(missing.stderr.hasSuffix("[missing_template_values]\n"))

        let unknown = try await TestBinaries.alertctl("validate", "--template", "disk", "--templates", file, "--json")
        #expect(unknown.exitCode == 65)
        let error = try HTTPErrorBody.decode(Data(unknown.stdout.utf8))
        // Without its template the alert really has no title, so that is reported too.
        #expect((error.details ?? []).map(\.code) == ["unknown_template", "missing_title"])
        #expect(error.details![0].message == "There is no template `disk` in \(file); the templates are: backup, disk_full.")

        let badFile = try await TestBinaries.alertctl("validate", "--template", "x", "--templates", "/nonexistent/t.json")
        #expect(badFile.exitCode == 65)
        #expect(badFile.stderr.contains("[invalid_template_file]"))

        let setAlone = try await TestBinaries.alertctl("validate", "-t", "x", "--set", "host=db1")
        #expect(setAlone.exitCode == 64)
        #expect(setAlone.stderr.hasPrefix("Error: '--set' fills a template's placeholders; name the template with '--template <name>'.\n"))
    }

    @Test func renderDrawsOnTheTerminal() async throws {
        let r = try await TestBinaries.alertctl(
            "render", "--title", "Disk full", "--message", "/var at 97%", "--severity", "critical",
            "--confirm", "Expand=https://ops.example/expand", "--to", "terminal")
        #expect(r.exitCode == 0)
        #expect(r.stderr == "delivered\n")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 10)
        #expect(lines[0].hasPrefix("╭─ [CRITICAL] ─"))
        #expect(lines[1].hasPrefix("│ Disk full "))
        #expect(lines[5].hasPrefix("│ ▸ Expand   alertctl confirm 0"))
        #expect(lines.allSatisfy { $0.count == 80 })
        #expect(!r.stdout.contains("\u{1B}"))  // not a terminal: no colour

        let narrow = try await TestBinaries.alertctl("render", "-t", "x", "--width", "40", "--color", "always")
        #expect(narrow.exitCode == 0)
        #expect(narrow.stdout.contains("\u{1B}[1;36m[INFO]\u{1B}[0m"))
        #expect(try await TestBinaries.alertctl("render", "-t", "x", environment: ["COLUMNS": "50"]).stdout
            .split(separator: "\n").allSatisfy { $0.count == 50 })
    }

    @Test func renderWritesLogLines() async throws {
        let json = try await TestBinaries.alertctl("render", "-t", "Disk full", "-l", "host=db1", "--to", "log")
        #expect(json.exitCode == 0)
        #expect(json.stdout == "")
        let lines = json.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[1] == "delivered")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(object["title"] as? String == "Disk full")
        #expect(object["labels"] as? [String: String] == ["host": "db1"])
        #expect(object["attempt"] as? Int == 1)

        let logfmt = try await TestBinaries.alertctl("render", "-t", "Disk full", "--to", "log", "--log-format", "logfmt")
        #expect(logfmt.exitCode == 0)
        #expect(logfmt.stderr.contains(#" severity=info title="Disk full" delivery_id="#))
    }

    @Test func renderExitCodes() async throws {
        let invalid = try await TestBinaries.alertctl("render", "--title", "")
        #expect(invalid.exitCode == 65)
        #expect(invalid.stderr.hasPrefix("error: title: "))

        // Port 1 on loopback: nothing listens, the presenter reports a failure.
        let webhook = try await TestBinaries.alertctl("render", "-t", "x", "--to", "webhook", "--url", "http://127.0.0.1:1/hook")
        #expect(webhook.exitCode == 1)
        #expect(webhook.stderr.hasPrefix("failed: "))
        let urlWithoutWebhook = try await TestBinaries.alertctl("render", "-t", "x", "--url", "https://a.example")
        #expect(urlWithoutWebhook.exitCode == 64)

        let badTarget = try await TestBinaries.alertctl("render", "-t", "x", "--to", "fax")
        #expect(badTarget.exitCode == 64)
        #expect(badTarget.stderr.hasPrefix("Error: The value 'fax' is invalid for '--to <presenter>': use one of 'terminal', 'log', 'webhook'.\n"))

        let badWidth = try await TestBinaries.alertctl("render", "-t", "x", "--width", "ten")
        #expect(badWidth.exitCode == 64)
    }

    @Test func renderColoursOnARealTerminal() async throws {
        // script(1) gives alertctl a pseudo-terminal as stdout.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        let command = "'\(try TestBinaries.alertctl)' render -t x --severity warning"
        let tty = try await TestBinaries.run("/usr/bin/script", ["-qec", command, "/dev/null"])
        #expect(tty.exitCode == 0)
        #expect(tty.stdout.contains("\u{1B}[1;33m[WARNING]"))
        let noColour = try await TestBinaries.run("/usr/bin/script", ["-qec", command, "/dev/null"], environment: ["NO_COLOR": "1"])
        #expect(noColour.stdout.contains("[WARNING]"))
        #expect(!noColour.stdout.contains("\u{1B}["))
    }
}

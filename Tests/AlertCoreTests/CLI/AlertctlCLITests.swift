import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdHTTP
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdHTTPServer
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

    /// `--message -` reads standard input only as far as a message could
    /// go: input without end (`yes |`) is a message too long, not a client
    /// that grows until it is killed.
    @Test func aMessageFromEndlessInputIsTooLong() async throws {
        let r = try await TestBinaries.run("/usr/bin/timeout", [
            "20", "/bin/sh", "-c", "yes | \"$0\" validate --title x --message -", try TestBinaries.alertctl,
        ])
        #expect(r.exitCode == 65, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("error: message: Standard input holds over 4 MiB"), "\(r.stderr)")
        #expect(r.stderr.contains("[message_too_long]"), "\(r.stderr)")
    }

    /// A socket in the working directory's `.alertd` that another user
    /// made is not used unasked: it could read the alerts sent to it and
    /// answer as alertd. Named with `ALERTD_SOCKET`, it is.
    /// (Only root may give a file to another user.)
    @Test(.enabled(if: CurrentProcess.effectiveUserID == 0, "giving a file to another user takes root"))
    func aSocketAnotherUserPutInTheWorkingDirectoryIsRefused() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-planted-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir + "/.alertd", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let socket = try ListeningSocket.unix(path: dir + "/.alertd/alertd.sock", mode: 0o666)
        let unset = ["STATE_DIRECTORY": "", "RUNTIME_DIRECTORY": "", "ALERTD_SOCKET": "", "ALERTD_URL": ""]
        func listFromDirectory(_ environment: [String: String] = [:]) async throws -> TestBinaries.Result {
            try await TestBinaries.run("/usr/bin/timeout", ["5", "/bin/sh", "-c", "cd \"$1\" && exec \"$0\" list", try TestBinaries.alertctl, dir],
                                       environment: unset.merging(environment) { $1 })
        }
        for planted in [dir + "/.alertd", dir + "/.alertd/alertd.sock"] {
            #expect(chown(planted, 65534, 65534) == 0)
            let r = try await listFromDirectory()
            #expect(r.exitCode == 64, "\(r.stderr)")
            #expect(r.stderr.contains("Not using \(planted) found in the working directory: it belongs to user 65534"), "\(r.stderr)")
            #expect(chown(planted, 0, 0) == 0)
        }
        // A file in its place, so what is used fails at once (not 64).
        socket.close()
        try Data().write(to: URL(fileURLWithPath: dir + "/.alertd/alertd.sock"))
        #expect(chown(dir + "/.alertd/alertd.sock", 65534, 65534) == 0)
        let named = try await listFromDirectory(["ALERTD_SOCKET": dir + "/.alertd/alertd.sock"])
        #expect(named.exitCode != 64 && !named.stderr.contains("untrusted_socket"), "named, it is used: \(named.stderr)")
        #expect(chown(dir + "/.alertd/alertd.sock", 0, 0) == 0)
        let own = try await listFromDirectory()
        #expect(own.exitCode != 64 && !own.stderr.contains("untrusted_socket"), "the user's own is used: \(own.stderr)")
    }

    /// A problem quotes what it found, here a template file's label name:
    /// an escape sequence in it is not sent to the terminal.
    @Test func aProblemQuotingAnEscapeSequenceIsOneSafeLine() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-templates-\(UUID().uuidString.prefix(8)).json").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try #"{"templates": {"t": {"title": "x", "labels": {"a\u001b]0;PWNED\u0007\u001b[2J": "1"}}}}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let r = try await TestBinaries.alertctl("validate", "--templates", file, "--template", "t")
        #expect(r.exitCode == 65, "\(r.stderr)")
        #expect(r.stderr.contains("PWNED") && r.stderr.contains("[invalid_template_file]"), "\(r.stderr)")
        #expect(!r.stderr.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }, "\(r.stderr)")
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
        #expect(sub.stderr.hasPrefix("Error: Unknown subcommand 'valdate'. Did you mean 'validate'?\nUsage: alertctl [--socket <path>]"))
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
            problem and exits 65. Lengths are checked against the default limits (title 200,
            message 8192, 64 labels); a daemon's `limits` may allow more, and `send` leaves
            those three to the daemon.

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
                                      1h30m, 2d; at most 30d.
              --template <name>       Start from this template; the other options override
                                      its fields.
              --set <name=value>      A value for a placeholder of the template; repeat for
                                      more.
              --templates <file>      The template file; defaults to $ALERTD_TEMPLATES.
              --json                  Print the alert as one line of JSON, and problems as
                                      JSON on standard output in the HTTP API's error
                                      format.
              -h, --help              Show help information.

            """)
        let viaHelp = try await TestBinaries.alertctl("help", "validate")
        #expect(viaHelp.exitCode == 0)
        #expect(viaHelp.stdout == r.stdout)
    }

    @Test func aSingleValueOptionGivenTwiceIsAUsageError() async throws {
        let twice = try await TestBinaries.alertctl("validate", "--title", "a", "--title", "b")
        #expect(twice.exitCode == 64)
        #expect(twice.stdout == "")
        #expect(twice.stderr.hasPrefix("""
            Error: '--title <title>' takes one value but was given twice ('a', 'b'); give it once.
            Usage: alertctl validate [--title <title>]
            """))
        // Every spelling counts: long, short, attached, with '='.
        for arguments in [["-t", "a", "--title=b"], ["-ta", "-tb"], ["-t", "a", "-s", "info", "--severity", "error"]] {
            let r = try await TestBinaries.run(try TestBinaries.alertctl, ["validate"] + arguments)
            #expect(r.exitCode == 64, "\(arguments)")
            #expect(r.stderr.contains("but was given twice"), "\(arguments): \(r.stderr)")
        }
        let sendTwice = try await TestBinaries.alertctl("send", "-t", "x", "--socket", "/tmp/a.sock", "--socket", "/tmp/b.sock")
        #expect(sendTwice.exitCode == 64)
        #expect(sendTwice.stderr.hasPrefix("Error: '--socket <path>' takes one value but was given twice ('/tmp/a.sock', '/tmp/b.sock')"))

        // Repeatable options stay repeatable.
        let labels = try await TestBinaries.alertctl("validate", "-t", "x", "-l", "a=1", "--label", "b=2", "-lc=3")
        #expect(labels.exitCode == 0, "\(labels.stderr)")
        #expect(labels.stdout.contains(#""a" : "1""#) && labels.stdout.contains(#""b" : "2""#) && labels.stdout.contains(#""c" : "3""#))
    }

    @Test func connectionOptionsMayComeBeforeTheSubcommand() async throws {
        let dir = TemporaryDirectory()
        let socket = dir.path + "/alertd.sock"
        // Before or after, the same socket is used (and found missing: exit 69).
        let after = try await TestBinaries.alertctl("list", "--socket", socket)
        let before = try await TestBinaries.alertctl("--socket", socket, "list")
        let attached = try await TestBinaries.alertctl("--socket=\(socket)", "list", "--json")
        #expect(after.exitCode == 69)
        #expect(before.exitCode == 69)
        #expect(before.stderr == after.stderr)
        #expect(before.stderr.hasPrefix("alertctl: cannot reach alertd at \(socket): "))
        #expect(attached.exitCode == 69)
        #expect(attached.stdout.hasPrefix(#"{"error":{"code":"alertd_unreachable","message":"cannot reach alertd at \#(socket): "#))

        // The same checks apply wherever they stand.
        let both = try await TestBinaries.alertctl("--socket", socket, "list", "--url", "http://127.0.0.1:1")
        #expect(both.exitCode == 64)
        #expect(both.stderr.hasPrefix("Error: '--socket' and '--url' both say where alertd is; give only one.\nUsage: alertctl list "))
        let twice = try await TestBinaries.alertctl("--socket", socket, "show", "--socket", socket, "0197a4c2-5b1e-7c3d-8e9f-0123456789ab")
        #expect(twice.exitCode == 64)
        #expect(twice.stderr.hasPrefix("Error: '--socket <path>' takes one value but was given twice"))
        let tokenOnly = try await TestBinaries.alertctl("--token-file", dir.path + "/t", "list")
        #expect(tokenOnly.exitCode == 64)
        #expect(tokenOnly.stderr.hasPrefix("Error: '--token-file' is for '--url' (or ALERTD_URL)"))

        // A command that does not talk to alertd does not take them; render's
        // own --url (the webhook) is another option.
        let validate = try await TestBinaries.alertctl("--socket", socket, "validate", "-t", "x")
        #expect(validate.exitCode == 64)
        #expect(validate.stderr.hasPrefix("""
            Error: '--socket' before the subcommand is an option of 'alertctl' that 'alertctl validate' does not take; \
            give the subcommand's options after it.
            Usage: alertctl validate
            """))
        let render = try await TestBinaries.alertctl("--url", "http://127.0.0.1:1", "render", "-t", "x", "--to", "webhook")
        #expect(render.exitCode == 64)
        #expect(render.stderr.hasPrefix("Error: '--url' before the subcommand is an option of 'alertctl' that 'alertctl render'"))
        // Options the root does not have are still unknown there.
        let unknown = try await TestBinaries.alertctl("--json", "list")
        #expect(unknown.exitCode == 64)
        #expect(unknown.stderr.hasPrefix("Error: Unknown option '--json'."))
        // Help and version still win.
        #expect(try await TestBinaries.alertctl("--socket", socket, "--version").stdout == "alertctl \(AlertdVersion.current)\n")
        #expect(try await TestBinaries.alertctl("--socket", socket, "list", "--help").stdout.hasPrefix("OVERVIEW: List the alerts"))
    }

    @Test func rootPrintsHelpAndVersion() async throws {
        let bare = try await TestBinaries.alertctl()
        #expect(bare.exitCode == 0)
        #expect(bare.stdout == """
            OVERVIEW: Compose, check and send alerts to alertd.

            The commands that talk to alertd find it with --socket, or --url and
            --token-file; these may also come before the command: 'alertctl --socket
            /run/alertd/alertd.sock list'.

            USAGE: alertctl [--socket <path>] [--url <url>] [--token-file <file>]
                            <subcommand>

            OPTIONS:
              --socket <path>         alertd's Unix socket. Defaults to $ALERTD_SOCKET, else
                                      alertd's own default ($RUNTIME_DIRECTORY/alertd.sock
                                      or ./.alertd/alertd.sock if you own it and ./.alertd),
                                      else the service's /run/alertd/alertd.sock when that
                                      is missing or nothing answers on it and /run/alertd
                                      exists.
              --url <url>             Talk to alertd over TCP instead, e.g.
                                      http://127.0.0.1:9190; defaults to $ALERTD_URL.
              --token-file <file>     A file holding the API token for --url; defaults to
                                      $ALERTD_TOKEN_FILE, unless $ALERTD_URL names another
                                      server.
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
              silence                 Hold back the deliveries of matching alerts: add, list
                                      and expire silences.
              groups                  List the open groups of alerts that grouped routes
                                      formed.
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
        // The template was to give the title: "needs a title" would point the wrong way.
        #expect((error.details ?? []).map(\.code) == ["unknown_template"])
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
        // Shown here, with nowhere it was sent to report on.
        #expect(r.stderr == "")
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

    @Test func renderKeepsTheColumnsOfPipedOutput() async throws {
        let df = """
            Filesystem      Size  Used Avail Use% Mounted on
            /dev/sda1        20G   15G  4.2G  79% /

            """
        let r = try await TestBinaries.alertctl(
            "render", "-t", "Disk usage", "--message", "-", "--color", "never", "--width", "60", stdin: df)
        #expect(r.exitCode == 0, "\(r.stderr)")
        #expect(r.stdout.contains("""
            │ Filesystem      Size  Used Avail Use% Mounted on         │
            │ /dev/sda1        20G   15G  4.2G  79% /                  │
            """), "\(r.stdout)")
    }

    @Test func renderWritesLogLines() async throws {
        let json = try await TestBinaries.alertctl("render", "-t", "Disk full", "-l", "host=db1", "--to", "log")
        #expect(json.exitCode == 0)
        #expect(json.stdout == "")
        // Only the log line: '2>file' keeps the log, with no outcome line in it.
        let lines = json.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 1, "\(lines)")
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
        let types = PresenterRegistry.documentedTypes.map { "'\($0.typeName)'" }.joined(separator: ", ")
        #expect(badTarget.stderr.hasPrefix("Error: The value 'fax' is invalid for '--to <presenter>': use one of \(types).\n"))

        let badWidth = try await TestBinaries.alertctl("render", "-t", "x", "--width", "ten")
        #expect(badWidth.exitCode == 64)
        // A frame of 100,000 columns was drawn.
        let wide = try await TestBinaries.alertctl("render", "-t", "x", "--width", "100000")
        #expect(wide.exitCode == 64)
        #expect(wide.stderr.hasPrefix("Error: The value '100000' is invalid for '--width <columns>': give a number of columns from 24 to 1000.\n"))
        // An empty socket path is a usage error, not alertd unreachable "at ".
        let noSocket = try await TestBinaries.alertctl("list", "--socket", "")
        #expect(noSocket.exitCode == 64)
        #expect(noSocket.stderr.hasPrefix("Error: The value '' is invalid for '--socket <path>': give the path of alertd's socket.\n"))
    }

    /// `--message -` at a terminal says it is reading; it waited without a word.
    @Test func readingAMessageAtATerminalSaysSo() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        let command = "'\(try TestBinaries.alertctl)' validate -t x -m -"
        let tty = try await TestBinaries.run("/usr/bin/script", ["-qec", command, "/dev/null"], stdin: "hello\n\u{4}")
        #expect(tty.exitCode == 0, "\(tty.stdout)")
        #expect(tty.stdout.contains("alertctl: reading standard input; end it with Ctrl-D"), "\(tty.stdout)")
        #expect(tty.stdout.contains(#""message" : "hello""#), "\(tty.stdout)")
        // Piped, nothing is said: the input is on its way.
        let piped = try await TestBinaries.alertctl("validate", "-t", "x", "-m", "-", stdin: "hello\n")
        #expect(piped.stderr.isEmpty)
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

import Foundation
import Synchronization
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdSQLite
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdHTTPServer
@testable import AlertdCommandLine
@testable import AlertdStore
@testable import AlertdSQLiteStore
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

#if canImport(Glibc)
import Glibc
#endif

/// Deciding alerts with alertctl: `confirm`, `cancel`, `resolve`,
/// `send --wait` and `watch`, as real processes against a real daemon whose
/// handlers are a loopback receiver. Serialized like the other client tests:
/// each test runs several processes at once.
@Suite(.serialized) struct AlertctlDecisionTests {
    static func daemon() async throws -> TestDaemon {
        let daemon = try TestDaemon(config: ["actions": ["allow": ["127.0.0.1"], "timeout": "2s"]])
        try await daemon.start()
        return daemon
    }

    static func decisionAlert(_ handler: WebhookReceiver, title: String = "Deploy to prod?") -> [String: Any] {
        [
            "title": title,
            "confirm": ["label": "Deploy", "url": handler.url + "/confirm"],
            "cancel": ["label": "Abort", "url": handler.url + "/cancel"],
        ]
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static var actor: String { "uid:\(getuid())" }

    @Test func confirmCallsTheHandlerOnceAndLaterDecisionsExit1() async throws {
        let handler = try WebhookReceiver()
        let daemon = try await Self.daemon()
        let id = try await daemon.send(Self.decisionAlert(handler))

        let confirmed = try await daemon.alertctl(["confirm", id, "--comment", "ship it"])
        #expect(confirmed.exitCode == 0, "\(confirmed.stderr)")
        #expect(confirmed.stdout == "confirmed \(id)\n")
        #expect(confirmed.stderr == "")
        #expect(await handler.wait { $0.count == 1 })
        let call = try #require(handler.received.first)
        #expect(call.request.path == "/hook/confirm")
        #expect((call.json["decision"] as? [String: Any])?["comment"] as? String == "ship it")
        let decision = try #require(try await daemon.show(id)["decision"] as? [String: Any])
        #expect(decision["actor"] as? String == Self.actor)
        #expect(decision["outcome"] as? String == "confirmed")

        // `show` tells who decided, when, and why.
        let shown = try await daemon.alertctl(["show", id])
        #expect(shown.exitCode == 0)
        #expect(shown.stdout.contains("\n  state:    confirmed\n"), "\(shown.stdout)")
        #expect(shown.stdout.contains("\n  decided:  confirmed by \(Self.actor) at 20"), "\(shown.stdout)")
        #expect(shown.stdout.contains(" UTC\n  comment:  ship it\n"), "\(shown.stdout)")

        // Later decisions say who decided first, exit 1, and call nothing.
        let again = try await daemon.alertctl(["confirm", id])
        #expect(again.exitCode == 1)
        #expect(again.stdout == "")
        #expect(again.stderr.hasPrefix("alertctl: alert \(id) was already confirmed by \(Self.actor) at 20"), "\(again.stderr)")
        #expect(again.stderr.hasSuffix(" UTC (comment: ship it); the first decision stands [already_decided]\n"), "\(again.stderr)")
        let cancel = try await daemon.alertctl(["cancel", id])
        #expect(cancel.exitCode == 1)
        #expect(cancel.stderr == again.stderr)
        let cancelJSON = try await daemon.alertctl(["cancel", id, "--json"])
        #expect(cancelJSON.exitCode == 1)
        let conflict = try Self.json(cancelJSON.stdout)
        #expect((conflict["error"] as? [String: Any])?["code"] as? String == "already_decided")
        #expect((conflict["alert"] as? [String: Any])?["state"] as? String == "confirmed")
        try await Task.sleep(for: .milliseconds(300))
        #expect(handler.received.count == 1)

        // --json answers; cancel calls the cancel handler.
        let other = try await daemon.send(Self.decisionAlert(handler, title: "second"))
        let cancelled = try await daemon.alertctl(["cancel", other, "--json"])
        #expect(cancelled.exitCode == 0, "\(cancelled.stderr)")
        let answer = try Self.json(cancelled.stdout)
        #expect(answer["id"] as? String == other)
        #expect(answer["state"] as? String == "cancelled")
        #expect((answer["decision"] as? [String: Any])?["actor"] as? String == Self.actor)
        #expect(answer["handler_delivery_id"] as? String == "\(other).cancel")
        #expect(await handler.wait { $0.count == 2 })
        #expect(handler.received.last?.request.path == "/hook/cancel")

        let unknown = try await daemon.alertctl(["confirm", "0197a4c2-5b1e-7c3d-8e9f-0123456789ab"])
        #expect(unknown.exitCode == 1)
        #expect(unknown.stderr == """
            alertctl: alertd answered 404: There is no alert with id `0197a4c2-5b1e-7c3d-8e9f-0123456789ab`. [alert_not_found]

            """)
        await handler.stop()
    }

    @Test func resolveByDedupKeyThenTheKeyStartsANewAlert() async throws {
        let daemon = try await Self.daemon()
        let first = try await daemon.alertctl(["send", "-t", "Backup late", "--dedup-key", "backup"])
        let id = first.stdout.trimmingCharacters(in: .newlines)
        let resolved = try await daemon.alertctl(["resolve", "--dedup-key", "backup"])
        #expect(resolved.exitCode == 0, "\(resolved.stderr)")
        #expect(resolved.stdout == "resolved \(id)\n")
        #expect(try await daemon.show(id)["state"] as? String == "resolved")

        let second = try await daemon.alertctl(["send", "-t", "Backup late", "--dedup-key", "backup"])
        let newID = second.stdout.trimmingCharacters(in: .newlines)
        #expect(newID != id)
        #expect(second.stderr == "")
        let byID = try await daemon.alertctl(["resolve", newID, "--comment", "ran by hand", "--json"])
        #expect(byID.exitCode == 0, "\(byID.stderr)")
        #expect((try Self.json(byID.stdout)["decision"] as? [String: Any])?["comment"] as? String == "ran by hand")

        // Resolving by key is idempotent: nothing open is nothing to do, exit 0.
        let none = try await daemon.alertctl(["resolve", "--dedup-key", "backup"])
        #expect(none.exitCode == 0, "\(none.stderr)")
        #expect(none.stdout == "")
        #expect(none.stderr == "nothing to resolve: no open alert has the dedup key 'backup'\n")
        // --json prints alertd's answer, as for any other outcome.
        let noneJSON = try await daemon.alertctl(["resolve", "--dedup-key", "backup", "--json"])
        #expect(noneJSON.exitCode == 0)
        #expect(try HTTPErrorBody.decode(Data(noneJSON.stdout.utf8)).code == "alert_not_found")
        let raw = try await daemon.request("POST", "/v1/alerts/resolve", json: ["dedup_key": "backup"])
        #expect(raw.status == 404)
        #expect(try HTTPErrorBody.decode(raw.body).code == "alert_not_found")
        // An unknown id is still an error: the alert must exist to be resolved.
        let unknownID = try await daemon.alertctl(["resolve", "0197a4c2-5b1e-7c3d-8e9f-0123456789ab"])
        #expect(unknownID.exitCode == 1)
        #expect(unknownID.stderr.hasSuffix("[alert_not_found]\n"))

        // A comment goes with a resolution by key too, as the API allows.
        let third = try await daemon.alertctl(["send", "-t", "Backup late", "--dedup-key", "backup"])
        let thirdID = third.stdout.trimmingCharacters(in: .newlines)
        // One that is not a string is refused, and resolves nothing (it was dropped, and the alert resolved).
        let numbered = try await daemon.request("POST", "/v1/alerts/resolve", json: ["dedup_key": "backup", "comment": 5])
        #expect(numbered.status == 400)
        #expect(try HTTPErrorBody.decode(numbered.body).code == "invalid_body")
        #expect(try await daemon.show(thirdID)["state"] as? String == "open")
        let withComment = try await daemon.alertctl(["resolve", "--dedup-key", "backup", "--comment", "it ran", "--json"])
        #expect(withComment.exitCode == 0, "\(withComment.stderr)")
        #expect(try Self.json(withComment.stdout)["id"] as? String == thirdID)
        #expect((try await daemon.show(thirdID)["decision"] as? [String: Any])?["comment"] as? String == "it ran")

        // Resolved at once by several callers, one resolves it and the others
        // find no open alert (a loser between look-up and decision got 409).
        for round in 0..<3 {
            _ = try await daemon.alertctl(["send", "-t", "Raced", "--dedup-key", "race-\(round)"])
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await daemon.request("POST", "/v1/alerts/resolve", json: ["dedup_key": "race-\(round)"]).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.sorted() == [200] + Array(repeating: 404, count: 7), "\(statuses)")
        }

        for arguments in [["resolve"], ["resolve", newID, "--dedup-key", "backup"], ["resolve", "--dedup-key", ""],
                          ["confirm"], ["cancel", "not-an-id"], ["send", "-t", "x", "--timeout", "5s"],
                          ["send", "-t", "x", "--wait", "--timeout", "soon"], ["watch", "--since", "-1"],
                          // Near 2^63 seconds the wait's deadline overflowed, and alertctl trapped after sending.
                          ["send", "-t", "x", "--wait", "--timeout", "9223372036854775807s"]] {
            let r = try await daemon.alertctl(arguments)
            #expect(r.exitCode == 64, "\(arguments): \(r.stderr)")
            #expect(r.stderr.hasPrefix("Error: "), "\(arguments)")
        }
    }

    @Test func sendWaitExitsWithHowTheAlertWasDecided() async throws {
        let handler = try WebhookReceiver()
        let daemon = try await Self.daemon()
        let confirm = "Deploy=\(handler.url)/confirm", cancel = "Abort=\(handler.url)/cancel"
        // Folded into an open alert: the wait is on that one.
        let existing = try await daemon.send(Self.decisionAlert(handler).merging(["dedup_key": "deploy"]) { $1 })
        let toConfirm = try AlertctlProcess.start(daemon, [
            "send", "-t", "Deploy?", "--confirm", confirm, "--dedup-key", "deploy", "--wait", "--timeout", "20s",
        ])
        let toCancel = try AlertctlProcess.start(daemon, [
            "send", "-t", "Drop table?", "--confirm", confirm, "--cancel", cancel, "--wait", "--timeout", "20s",
        ])
        let toResolve = try AlertctlProcess.start(daemon, [
            "send", "-t", "Disk full", "--dedup-key", "disk", "--wait", "--timeout", "20s", "--json",
        ])
        let expiring = try AlertctlProcess.start(daemon, ["send", "-t", "Soon gone", "--expires", "1s", "--wait", "--timeout", "20s"])
        let timingOut = try AlertctlProcess.start(daemon, ["send", "-t", "Nobody home", "--wait", "--timeout", "1s"])

        #expect(try await toConfirm.firstLine() == existing)
        #expect(try await daemon.alertctl(["confirm", existing]).exitCode == 0)
        let cancelID = try await toCancel.firstLine()
        #expect(try await daemon.alertctl(["cancel", cancelID, "--comment", "not today"]).exitCode == 0)
        // `--json` prints nothing until the end: find the alert by its dedup key, once it is there.
        #expect(await eventually(.seconds(15)) {
            (try? await daemon.alertctl(["resolve", "--dedup-key", "disk"]).exitCode) == 0
        })

        #expect(await toConfirm.exit() == 0, "\(toConfirm.stderr)")
        #expect(toConfirm.stdout.hasPrefix("\(existing)\nconfirmed by \(Self.actor) at 20"))
        #expect(toConfirm.stderr == "deduplicated into \(existing): an open alert has the same dedup key\n")
        #expect(await toCancel.exit() == 1, "\(toCancel.stderr)")
        #expect(toCancel.stdout.hasPrefix("\(cancelID)\ncancelled by \(Self.actor) at 20"))
        #expect(toCancel.stdout.hasSuffix(" UTC (comment: not today)\n"))
        #expect(await toResolve.exit() == 1, "\(toResolve.stderr)")
        let record = try Self.json(toResolve.stdout)
        #expect(record["state"] as? String == "resolved")
        #expect((record["decision"] as? [String: Any])?["actor"] as? String == Self.actor)
        #expect((record["spec"] as? [String: Any])?["title"] as? String == "Disk full")
        #expect(await expiring.exit() == 2, "\(expiring.stderr)")
        #expect(expiring.stdout.contains("\nexpired at 20"), "\(expiring.stdout)")
        #expect(await timingOut.exit() == 2, "\(timingOut.stderr)")
        let stillOpen = try await timingOut.firstLine()
        #expect(timingOut.stderr == "alertctl: alert \(stillOpen) is still open after 1s; stopped waiting\n")
        #expect(try await daemon.show(stillOpen)["state"] as? String == "open")
        await handler.stop()
    }

    @Test func watchOnATerminalConfirmsWithY() async throws {
        let handler = try WebhookReceiver()
        let daemon = try await Self.daemon()
        let alertctl = try TestBinaries.alertctl
        // script(1) gives alertctl a pseudo-terminal for stdin and stdout.
        let watch = try AlertctlProcess.start(
            daemon, ["-qfec", "'\(alertctl)' watch", "/dev/null"], executable: "/usr/bin/script",
            environment: ["NO_COLOR": "1", "TERM": "xterm"])
        #expect(await watch.waitForOutput { $0.contains("Watching alertd at \(daemon.socketPath)") }, "\(watch.stdout)")
        // Nothing drawn yet: `y` says where the alerts from before the watch are.
        try watch.type("y")
        #expect(await watch.waitForOutput { $0.contains("no open alert drawn here has a confirm action (watch draws alerts from its start on; --since 0") },
                "\(watch.stdout)")

        let id = try await daemon.send(Self.decisionAlert(handler))
        #expect(await watch.waitForOutput { $0.contains("#1 [y] Deploy  [n] Abort") }, "\(watch.stdout)")
        #expect(watch.stdout.contains("│ Deploy to prod?"))
        #expect(watch.stdout.contains("▸ Deploy   alertctl confirm \(id)"))
        try watch.type("y")
        #expect(try await eventually(.seconds(10)) {
            try await daemon.show(id)["state"] as? String == "confirmed"
        })
        let decision = try #require(try await daemon.show(id)["decision"] as? [String: Any])
        #expect(decision["actor"] as? String == Self.actor)
        #expect(await handler.wait { $0.count == 1 })
        #expect(handler.received.first?.request.path == "/hook/confirm")
        #expect(await watch.waitForOutput { $0.contains("#1 confirmed by \(Self.actor) at 20") }, "\(watch.stdout)")

        try watch.type("q")
        #expect(await watch.exit() == 0, "\(watch.stdout)")
        try await Task.sleep(for: .milliseconds(200))
        #expect(handler.received.count == 1)
        await handler.stop()
    }

    /// Replayed with `--since 0`, an alert decided before the watch began
    /// is drawn with its decision, and its decision's event, which comes
    /// later in the replay, does not print it again.
    @Test func watchOnATerminalShowsAReplayedDecisionOnce() async throws {
        let daemon = try await Self.daemon()
        let decided = try await daemon.send(["title": "Decided before"])
        #expect(try await daemon.request("POST", "/v1/alerts/\(decided)/resolve").status == 200)
        _ = try await daemon.send(["title": "Later"])
        let alertctl = try TestBinaries.alertctl
        let watch = try AlertctlProcess.start(
            daemon, ["-qfec", "'\(alertctl)' watch --since 0", "/dev/null"], executable: "/usr/bin/script",
            environment: ["NO_COLOR": "1", "TERM": "xterm"])
        #expect(await watch.waitForOutput { $0.contains("│ Later") }, "\(watch.stdout)")
        try await Task.sleep(for: .milliseconds(300))
        #expect(watch.stdout.components(separatedBy: "#1 resolved by").count == 2, "\(watch.stdout)")
        try watch.type("q")
        #expect(await watch.exit() == 0, "\(watch.stdout)")
    }

    @Test func watchWithoutATerminalPrintsOneLinePerEvent() async throws {
        let daemon = try await Self.daemon()
        let before = try await daemon.send(["title": "Before watching"])
        let lines = try AlertctlProcess.start(daemon, ["watch", "--since", "0"])
        let json = try AlertctlProcess.start(daemon, ["watch", "--since", "0", "--json"])
        #expect(await lines.waitForOutput { $0.contains(" alert.created \(before) Before watching\n") }, "\(lines.stdout)")
        let during = try await daemon.send(["title": "While watching"])
        #expect(try await daemon.request("POST", "/v1/alerts/\(during)/resolve", json: ["comment": "fixed"]).status == 200)
        // A decision's line says who took it, and why.
        #expect(await lines.waitForOutput {
            $0.contains(" alert.resolved \(during) While watching — resolved by \(Self.actor) at 20") && $0.contains(" (comment: fixed)\n")
        }, "\(lines.stdout)")
        #expect(await json.waitForOutput { $0.contains("\"type\":\"alert.resolved\"") }, "\(json.stdout)")

        for line in lines.stdout.split(separator: "\n") {
            let words = line.split(separator: " ", maxSplits: 3).map(String.init)
            #expect(words.count == 4, "\(line)")
            #expect(words[0].hasPrefix("20") && words[0].hasSuffix("Z"), "\(line)")
            #expect(words[2] == before || words[2] == during, "\(line)")
        }
        let events = try json.stdout.split(separator: "\n").map { try Self.json(String($0)) }
        let ids = events.compactMap { $0["id"] as? Int }
        #expect(ids.count == events.count)
        #expect(ids == ids.sorted() && Set(ids).count == ids.count, "\(ids)")
        #expect(events.filter { $0["type"] as? String == "alert.created" }.compactMap { $0["alert_id"] as? String } == [before, during])
        let resolved = try #require(events.first { $0["type"] as? String == "alert.resolved" })
        #expect(resolved["actor"] as? String == Self.actor)
        #expect(resolved["alert_id"] as? String == during)
        lines.stop()
        json.stop()
    }

    /// Delivery lines name their presenter and, when it failed, why:
    /// `delivery.failed <id> created test` said neither.
    @Test func watchLinesOfDeliveriesNameThePresenterAndTheError() async throws {
        let daemon = try TestDaemon(config: ["presenters": ["pager": ["type": "test", "outcomes": ["retry", "delivered"]]],
                                             "retry": ["initial_delay": "100ms", "jitter": false]])
        try await daemon.start()
        let lines = try AlertctlProcess.start(daemon, ["watch", "--since", "0"])
        let id = try await daemon.send(["title": "Paged"])
        #expect(await lines.waitForOutput { $0.contains(" delivery.succeeded \(id) [pager] Paged\n") }, "\(lines.stdout)")
        let failed = try #require(lines.stdout.split(separator: "\n").first { $0.contains(" delivery.failed ") })
        #expect(failed.contains(" delivery.failed \(id) [pager] Paged — "), "\(failed)")
        lines.stop()
    }

    /// `send --wait` says when it loses alertd and when it has it back: it
    /// waited on in silence, and a stopped daemon looked like a person
    /// taking their time until the timeout.
    @Test func sendWaitSaysWhenItLosesAlertdAndWhenItIsBack() async throws {
        let daemon = try await Self.daemon()
        let waiting = try AlertctlProcess.start(daemon, ["send", "-t", "Deploy?", "--wait", "--timeout", "30s"])
        let id = try await waiting.firstLine()
        try await Task.sleep(for: .milliseconds(300))
        await daemon.kill9()
        #expect(await eventually(.seconds(10)) { waiting.stderr.contains("alertctl: lost alertd (") }, "\(waiting.stderr)")
        try await daemon.start()
        #expect(await eventually(.seconds(15)) { waiting.stderr.contains("alertctl: reconnected to alertd") }, "\(waiting.stderr)")
        #expect(try await daemon.alertctl(["resolve", id]).exitCode == 0)
        #expect(await waiting.exit() == 1, "\(waiting.stderr)")
        #expect(waiting.stderr.components(separatedBy: "lost alertd").count == 2, "once an outage: \(waiting.stderr)")
    }

    @Test func theEventStreamResumesAfterTheDaemonRestartsWithoutGapsOrRepeats() async throws {
        let daemon = try await Self.daemon()
        let before = try await daemon.send(["title": "before the restart"])
        let client = AlertdClient(endpoint: .unixSocket(daemon.socketPath))
        let seen = Mutex<[(Int64, String, AlertID)]>([])
        let connections = Mutex<[Bool]>([])
        let reader = Task {
            for try await item in client.events(since: 0) {
                switch item {
                case .connected(let resumed): connections.withLock { $0.append(resumed) }
                case .event(let raw):
                    if let event = AlertdEvent(raw), let sequence = event.sequence {
                        seen.withLock { $0.append((sequence, event.type, event.alertID)) }
                    }
                case .disconnected: break
                }
            }
        }
        defer { reader.cancel() }
        #expect(await eventually(.seconds(10)) {
            seen.withLock { $0.contains { $0.2.rawValue == before } }
        })
        await daemon.kill9()
        try await daemon.start()
        let after = try await daemon.send(["title": "after the restart"])
        #expect(await eventually(.seconds(15)) {
            seen.withLock { $0.contains { $0.1 == "alert.created" && $0.2.rawValue == after } }
        })
        #expect(connections.withLock { $0 } == [false, true])
        let sequences = seen.withLock { $0.map(\.0) }
        #expect(sequences == Array(1...Int64(sequences.count)), "\(sequences)")
    }

    @Test func confirmHelpIsPinned() async throws {
        let r = try await TestBinaries.alertctl("confirm", "--help")
        #expect(r.exitCode == 0)
        #expect(r.stderr == "")
        #expect(r.stdout == """
            OVERVIEW: Confirm an open alert: alertd calls its confirm handler.

            Decides the open alert as confirmed, in your name (uid:N over the socket,
            'token' over TCP), and prints 'confirmed <id>'; with --json alertd's answer
            ({"id", "state", "decision", "handler_delivery_id"}). The first decision wins:
            when the alert was decided already, says how, by whom and when, and exits 1.

            Exit codes: 0 decided, 1 failure (already decided, no such alert, or another
            error from alertd), 64 usage error, 65 refused as invalid (400, 422), 69 alertd
            unavailable, 75 alertd cannot now (503, 429): try again later, 77 token refused
            or without the scope (401, 403).

            USAGE: alertctl confirm [--comment <text>] [--json] [--socket <path>]
                                    [--url <url>] [--token-file <file>] <id>

            ARGUMENTS:
              <id>                    The alert's id, as 'send', 'list' or 'watch' printed
                                      it.

            OPTIONS:
              --comment <text>        Why; kept with the decision and passed to the handler.
              --json                  Print alertd's answer, or the error with the alert as
                                      it stands, as JSON on standard output.
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
              -h, --help              Show help information.

            """)
        for command in ["cancel", "resolve", "watch"] {
            let help = try await TestBinaries.alertctl(command, "--help")
            #expect(help.exitCode == 0)
            #expect(help.stdout.hasPrefix("OVERVIEW: "), "\(command)")
        }
    }
}

/// An alertctl (or script(1) running it) started and left running while
/// the test goes on: output to files, input through a pipe, killed when the
/// value goes away.
final class AlertctlProcess {
    private let process: Process
    private let input: Pipe
    private let dir: TemporaryDirectory

    private init(process: Process, input: Pipe, dir: TemporaryDirectory) {
        self.process = process
        self.input = input
        self.dir = dir
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Starts `executable` (alertctl by default) against `daemon`'s socket.
    static func start(
        _ daemon: TestDaemon, _ arguments: [String], executable: String? = nil, environment: [String: String] = [:]
    ) throws -> AlertctlProcess {
        let dir = TemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executable ?? TestBinaries.alertctl)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for name in ["ALERTD_TEMPLATES", "COLUMNS", "NO_COLOR", "ALERTD_URL"] { env[name] = nil }
        env["ALERTD_SOCKET"] = daemon.socketPath
        process.environment = env.merging(environment) { $1 }
        for name in ["out", "err"] { try Data().write(to: URL(fileURLWithPath: dir.path + "/" + name)) }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: dir.path + "/out"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: dir.path + "/err"))
        let input = Pipe()
        process.standardInput = input
        try process.run()
        return AlertctlProcess(process: process, input: input, dir: dir)
    }

    var stdout: String { (try? String(contentsOfFile: dir.path + "/out", encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: dir.path + "/err", encoding: .utf8)) ?? "" }

    /// Sends keys to the process's standard input.
    func type(_ text: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    }

    /// Waits until the output satisfies `condition`.
    func waitForOutput(timeout: Duration = .seconds(15), _ condition: (String) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(stdout) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(stdout)
    }

    /// The first line printed (the alert id for `send`), once there is one.
    func firstLine() async throws -> String {
        guard await waitForOutput(timeout: .seconds(15), { $0.contains("\n") }) else {
            throw TestDaemon.Failure("no output within 15 s; stderr: \(stderr)")
        }
        return String(stdout.prefix { $0 != "\n" })
    }

    /// The exit status, or nil when the process is still running after `timeout`.
    func exit(timeout: Duration = .seconds(20)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return process.isRunning ? nil : process.terminationStatus
    }

    func stop() {
        if process.isRunning { process.terminate() }
    }
}

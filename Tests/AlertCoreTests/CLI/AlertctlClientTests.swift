import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdHTTPServer
@testable import AlertdCommandLine
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

/// `alertctl` as alertd's client: the real binary against a real daemon
/// (on a temp socket and port) and a real webhook receiver. Serialized: each
/// test starts processes, and a handful of daemons at once on a small machine
/// would skew the timing tests of other suites running alongside.
@Suite(.serialized) struct AlertctlClientTests {
    /// A daemon whose only presenter is a webhook to `receiver`.
    static func daemon(for receiver: WebhookReceiver, extra: [String: Any] = [:]) async throws -> TestDaemon {
        var config: [String: Any] = ["presenters": ["hook": ["type": "webhook", "url": receiver.url]]]
        for (k, v) in extra { config[k] = v }
        let daemon = try TestDaemon(config: config)
        try await daemon.start()
        return daemon
    }

    static func deliveryStates(_ daemon: TestDaemon, _ id: String) async throws -> [String] {
        let deliveries = try await daemon.show(id)["deliveries"] as? [[String: Any]] ?? []
        return deliveries.compactMap { $0["state"] as? String }
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func sendThenListAndShow() async throws {
        let receiver = try WebhookReceiver()
        let daemon = try await Self.daemon(for: receiver)

        let sent = try await daemon.alertctl([
            "send", "-t", "Disk full on db1", "-m", "/var at 97%\nsecond line", "-s", "critical", "-l", "host=db1",
            "--confirm", "Expand=https://ops.example/expand", "--expires", "30m",
        ])
        #expect(sent.exitCode == 0, "\(sent.stderr)")
        #expect(sent.stderr == "")
        let id = sent.stdout.trimmingCharacters(in: .newlines)
        #expect(sent.stdout == id + "\n")
        #expect(AlertID(id)?.rawValue == id)

        let list = try await daemon.alertctl(["list"])
        #expect(list.exitCode == 0)
        #expect(list.stderr == "")
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("ID                                    STATE  SEVERITY  CREATED (UTC)        TITLE") == true)
        #expect(lines.last?.hasPrefix("\(id)  open   critical  20") == true)
        #expect(lines.last?.hasSuffix("  Disk full on db1") == true)

        // The receiver got it, and `show` reports the delivery as delivered.
        #expect(await receiver.wait { $0.contains { $0.alertID == id } })
        #expect(try await eventually { try await Self.deliveryStates(daemon, id) == ["delivered"] })
        let show = try await daemon.alertctl(["show", id])
        #expect(show.exitCode == 0)
        let text = show.stdout
        #expect(text.hasPrefix("Disk full on db1\n  id:       \(id)\n  state:    open\n  severity: critical\n  created:  20"))
        #expect(text.contains("\n  labels:   host=db1\n"))
        #expect(text.contains("\n  expires:  after 30m ("))
        #expect(text.contains("\n  confirm:  Expand -> POST https://ops.example/expand\n"))
        #expect(text.contains("\n\n  /var at 97%\n  second line\n\nDeliveries:\n  hook  delivered  1 attempt  delivered 20"))

        let showJSON = try Self.json(try await daemon.alertctl(["show", id, "--json"]).stdout)
        #expect(showJSON["id"] as? String == id)
        #expect((showJSON["spec"] as? [String: Any])?["title"] as? String == "Disk full on db1")
        let deliveries = try #require(showJSON["deliveries"] as? [[String: Any]])
        #expect(deliveries.map { $0["presenter"] as? String } == ["hook"])
        #expect(deliveries.map { $0["state"] as? String } == ["delivered"])

        // --json answers, dedup hint, filters.
        let first = try await daemon.alertctl(["send", "-t", "Backup late", "--dedup-key", "backup", "-l", "job=backup", "--json"])
        #expect(first.exitCode == 0)
        let answer = try Self.json(first.stdout)
        #expect(Set(answer.keys) == ["id", "state", "deduplicated"])
        #expect(answer["state"] as? String == "open")
        #expect(answer["deduplicated"] as? Bool == false)
        let firstID = try #require(answer["id"] as? String)
        let again = try await daemon.alertctl(["send", "-t", "Backup late", "--dedup-key", "backup"])
        #expect(again.exitCode == 0)
        #expect(again.stdout == firstID + "\n")
        #expect(again.stderr == "deduplicated into \(firstID): an open alert has the same dedup key\n")

        let filtered = try Self.json(try await daemon.alertctl(["list", "--label", "job=backup", "--json"]).stdout)
        #expect((filtered["alerts"] as? [[String: Any]])?.map { $0["id"] as? String } == [firstID])
        let paged = try await daemon.alertctl(["list", "--limit", "1"])
        #expect(paged.stdout.split(separator: "\n").count == 2)
        #expect(paged.stderr.contains("there are more: use --all"))
        // The page after, by the cursor the first gave.
        let firstPage = try Self.json(try await daemon.alertctl(["list", "--limit", "1", "--json"]).stdout)
        let cursor = try #require(firstPage["next_cursor"] as? String)
        #expect(paged.stderr.contains("--cursor \(cursor) for the next page"), "\(paged.stderr)")
        let second = try Self.json(try await daemon.alertctl(["list", "--limit", "1", "--cursor", cursor, "--json"]).stdout)
        #expect((second["alerts"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [id])
        #expect(try await daemon.alertctl(["list", "--cursor", "nonsense"]).exitCode == 64)
        // By delivery state: nothing is dead here, and every alert was delivered (to the log).
        let dead = try await daemon.alertctl(["list", "--delivery-state", "dead"])
        #expect(dead.stdout == "" && dead.stderr == "no alerts match\n", "\(dead.stderr)")
        let all = try Self.json(try await daemon.alertctl(["list", "--all", "--limit", "1", "--json"]).stdout)
        #expect((all["alerts"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [firstID, id])
        #expect(all["next_cursor"] == nil)
        let none = try await daemon.alertctl(["list", "--state", "expired"])
        #expect(none.exitCode == 0)
        #expect(none.stdout == "")
        #expect(none.stderr == "no alerts match\n")

        // A piped table keeps its columns in `show` too.
        let table = "Filesystem      Size  Used\n/dev/sda1        20G   15G\n"
        let tableID = try await daemon.alertctl(["send", "-t", "Disk usage", "--message", "-"], stdin: table)
            .stdout.trimmingCharacters(in: .newlines)
        let shownTable = try await daemon.alertctl(["show", tableID])
        #expect(shownTable.stdout.contains("\n\n  Filesystem      Size  Used\n  /dev/sda1        20G   15G\n"), "\(shownTable.stdout)")
    }

    /// A URL that reaches something other than alertd says which way to
    /// look: https:// to alertd's plain HTTP, another server's 404.
    @Test func aURLThatReachesSomethingElseSaysWhatToCheck() async throws {
        let d = try TestDaemon()
        try await d.start()
        let tls = try await TestBinaries.alertctl("list", "--url", "https://127.0.0.1:\(d.port)")
        #expect(tls.exitCode != 0)
        // OpenSSL reads the server's 400 ("wrong version number") or only its close, by timing.
        #expect(tls.stderr.contains("use an http:// URL"), "\(tls.stderr)")

        let other = try ServiceReceiver(success: .text(status: 404, "404 page not found")) { _ in [] }
        let notAlertd = try await TestBinaries.alertctl("list", "--url", other.base)
        #expect(notAlertd.exitCode != 0)
        #expect(notAlertd.stderr.contains("(status 404)") && notAlertd.stderr.contains("is alertd what listens there? check --url/ALERTD_URL"),
                "\(notAlertd.stderr)")
    }

    @Test func invalidAlertsExit65AndAreNotStored() async throws {
        // The daemon's limit is tighter than alertctl's: the second case passes
        // local checks and is refused by the API with 422.
        let daemon = try TestDaemon(config: ["limits": ["max_title_length": 5]])
        try await daemon.start()

        let local = try await daemon.alertctl(["send", "--title", "", "--expires", "30x"])
        #expect(local.exitCode == 65)
        #expect(local.stdout == "")
        #expect(local.stderr.hasPrefix("error: title: The title is empty"))
        #expect(local.stderr.contains("\nerror: expires_after: `--expires` is not a duration: `30x`."))
        let localJSON = try await daemon.alertctl(["send", "--title", "", "--json"])
        #expect(localJSON.exitCode == 65)
        #expect(try HTTPErrorBody.decode(Data(localJSON.stdout.utf8)).code == "invalid_alert")

        let remote = try await daemon.alertctl(["send", "--title", "Far too long"])
        #expect(remote.exitCode == 65)
        #expect(remote.stdout == "")
        #expect(remote.stderr.hasPrefix("error: title: "))
        #expect(remote.stderr.hasSuffix("]\n"))
        let remoteJSON = try await daemon.alertctl(["send", "--title", "Far too long", "--json"])
        #expect(remoteJSON.exitCode == 65)
        let error = try HTTPErrorBody.decode(Data(remoteJSON.stdout.utf8))
        #expect(error.code == "invalid_alert")
        #expect(error.details?.map(\.field) == ["title"])

        let stored = try Self.json(String(decoding: try await daemon.request("GET", "/v1/alerts").body, as: UTF8.self))
        #expect((stored["alerts"] as? [Any])?.isEmpty == true)
    }

    /// A daemon whose limits are wider than the defaults takes what they
    /// allow from alertctl too; past its own limits it refuses, as before.
    @Test func aDaemonsRaisedLimitsAreItsToJudge() async throws {
        let daemon = try TestDaemon(config: ["limits": ["max_title_length": 300, "max_message_length": 100_000, "max_body_bytes": 1 << 20]])
        try await daemon.start()
        let title = String(repeating: "t", count: 250)
        // Past the 64 KiB alertctl once read of standard input.
        let message = String(repeating: "y", count: 70_000)
        let sent = try await daemon.alertctl(["send", "--title", title, "--message", "-"], stdin: message)
        #expect(sent.exitCode == 0, "\(sent.stderr)")
        let shown = try Self.json(try await daemon.alertctl(["show", sent.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "--json"]).stdout)
        #expect(((shown["spec"] as? [String: Any])?["title"] as? String)?.count == 250)

        let tooLong = try await daemon.alertctl(["send", "--title", String(repeating: "t", count: 301)])
        #expect(tooLong.exitCode == 65)
        #expect(tooLong.stderr.contains("the limit is 300"), "\(tooLong.stderr)")
        // Offline, the defaults are all alertctl knows.
        let validated = try await TestBinaries.alertctl("validate", "--title", title)
        #expect(validated.exitCode == 65 && validated.stderr.contains("the limit is 200"), "\(validated.stderr)")
    }

    /// A login shell on a server has no `$RUNTIME_DIRECTORY`: alertctl
    /// then finds the packaged service's socket, unless its own default
    /// (in the working directory's `.alertd`) exists. The service's
    /// directory is enough: a user outside its group cannot see into it,
    /// and is told so.
    @Test func alertctlFindsTheServicesSocketWhenItsOwnIsMissing() throws {
        let dir = TemporaryDirectory()
        let service = dir.path + "/run/alertd.sock", own = dir.path + "/state/alertd.sock"
        let environment = ["STATE_DIRECTORY": dir.path + "/state"]
        #expect(AlertdPaths.clientSocketPath(environment: environment, service: service) == own)
        try FileManager.default.createDirectory(atPath: dir.path + "/run", withIntermediateDirectories: true)
        #expect(AlertdPaths.clientSocketPath(environment: environment, service: service) == service)
        let denied = AlertdClientError.unreachable(endpoint: AlertdEndpoint(transport: .unixSocket(path: service)), reason: "permission denied")
        #expect(denied.message.hasSuffix("(the socket is for its group: add your user to it (the service's is alertd), or use sudo)"))
        try FileManager.default.createDirectory(atPath: dir.path + "/state", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: own, contents: nil))
        #expect(AlertdPaths.clientSocketPath(environment: environment, service: service) == own)
    }

    /// A socket left in the working directory's `.alertd` by a daemon
    /// killed without cleaning up (nothing listens on it) no longer hides
    /// the service's; one a daemon listens on still comes first.
    @Test func aStaleSocketOfItsOwnDoesNotHideTheServices() throws {
        let dir = TemporaryDirectory()
        let service = dir.path + "/run/alertd.sock", own = dir.path + "/state/alertd.sock"
        let environment = ["STATE_DIRECTORY": dir.path + "/state"]
        for sub in ["/run", "/state"] { try FileManager.default.createDirectory(atPath: dir.path + sub, withIntermediateDirectories: true) }
        // Bound and not listening: what a daemon killed with SIGKILL leaves.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(own.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        #expect(AlertdPaths.clientSocketPath(environment: environment, service: service, refuses: AlertdConnectionOptions.refuses) == service)
        // Unreachable too, the service's socket is reported with the one passed over.
        var endpoint = AlertdEndpoint.unixSocket(service)
        endpoint.passedOver = own
        #expect(AlertdClientError.unreachable(endpoint: endpoint, reason: "no such socket").message
                    .hasPrefix("cannot reach alertd at \(service): no such socket; nothing listens on \(own) either ("))
        try #require(listen(fd, 1) == 0)
        #expect(AlertdPaths.clientSocketPath(environment: environment, service: service, refuses: AlertdConnectionOptions.refuses) == own)
    }

    /// A delivery due but not started waits for its presenter (a rate limit,
    /// busy slots): `show` says so, not a "next attempt" already past.
    @Test func aDueDeliveryNotStartedSaysWhatItWaitsFor() {
        let now = Date()
        func pending(_ at: TimeInterval) -> DeliveryRecord {
            DeliveryRecord(id: "dlv-1", alertID: AlertID.generate(), kind: .presenter("hook"), state: .pending,
                           nextAttemptAt: now.addingTimeInterval(at), createdAt: now, updatedAt: now)
        }
        #expect(AlertDetailView.deliveryLines([pending(-5)], now: now)[1].contains("waiting for its presenter (its rate limit, its concurrency, or, while it fails, one delivery at a time)"))
        #expect(AlertDetailView.deliveryLines([pending(30)], now: now)[1].contains("next attempt"))
        // Dead because a reload took its presenter out: a replay alone would end dead again.
        func dead(_ error: String) -> DeliveryRecord {
            DeliveryRecord(id: "dlv-1", alertID: AlertID.generate(), kind: .presenter("hook"), state: .dead, nextAttemptAt: nil, lastError: error,
                           createdAt: now, updatedAt: now)
        }
        #expect(AlertDetailView.deliveryLines([dead("presenter \"hook\" is not configured")], now: now)[1]
            .contains("once its presenter is configured again, 'alertctl replay' retries it"))
        #expect(AlertDetailView.deliveryLines([dead("HTTP 500")], now: now)[1].hasSuffix("; 'alertctl replay' retries it"))
        // A follow-up its presenter no longer sends: likewise, until follow-ups are on again.
        let followUp = DeliveryRecord(id: "dlv-1.closed", alertID: AlertID.generate(), kind: .presenter("hook"), state: .dead, nextAttemptAt: nil,
                                      lastError: "presenter \"hook\" no longer sends follow-ups", createdAt: now, updatedAt: now, followUpOf: "dlv-1")
        #expect(AlertDetailView.deliveryLines([followUp], now: now)[1]
            .contains("once its presenter sends follow-ups again (\"follow_ups\": true), 'alertctl replay' retries it"))
        // No deliveries: an open alert's groups are known, a closed alert's are not.
        #expect(AlertDetailView.deliveryLines([], now: now) == ["Deliveries: none (no presenter's route matched)"])
        #expect(AlertDetailView.deliveryLines([], groups: [AlertGroupID(trusted: "g-00000000000000a1")], now: now)[0].contains("notifications of group g-00000000000000a1"))
        #expect(AlertDetailView.deliveryLines([], closed: true, now: now)[0].contains("or a grouped route told of it in its group's notifications"))
    }

    /// An alert that ends by itself unless sent again (Prometheus's) says
    /// when in `show`, as its JSON did.
    @Test func anAlertThatResolvesByItselfSaysWhen() throws {
        let now = Date()
        let alert = Alert(spec: try AlertSpec.Builder().title("Instance down").build().get(), at: now, resolvesAt: now.addingTimeInterval(240))
        let text = AlertDetailView.text(APIRepresentation.AlertDetail(alert))
        #expect(text.contains("\n  resolves: \(UTCTimestamp.readable(now.addingTimeInterval(240))) unless sent again\n"), "\(text)")
        #expect(!AlertDetailView.text(APIRepresentation.AlertDetail(Alert(spec: alert.spec, at: now))).contains("resolves:"))
    }

    /// A message's empty lines (Prometheus's description, then its
    /// runbook) stay empty: no trailing spaces for a pager to show.
    @Test func aMessagesEmptyLinesCarryNoSpaces() throws {
        let spec = try AlertSpec.Builder().title("Disk full").message("Disk at 97%.\n\nrunbook_url: https://wiki/disk").build().get()
        let text = AlertDetailView.text(APIRepresentation.AlertDetail(Alert(spec: spec)))
        #expect(text.contains("  Disk at 97%.\n\n  runbook_url: https://wiki/disk\n"), "\(text)")
        #expect(!text.split(separator: "\n").contains { $0.hasSuffix(" ") }, "\(text)")
    }

    /// `make install` writes the man pages and the completion with `> file`:
    /// on a full disk they came out empty behind exit 0.
    @Test func outputThatCannotBeWrittenIsAnError() async throws {
        let alertctl = try TestBinaries.alertctl
        for command in ["completion bash", "completion fish", "--generate-manpage", "validate -t x", "--help", "--version"] {
            let r = try await TestBinaries.run("/bin/sh", ["-c", "exec \"$0\" \(command) > /dev/full", alertctl])
            #expect(r.exitCode == 74, "\(command): \(r.exitCode)")
            #expect(r.stderr.hasSuffix("alertctl: could not write to standard output: No space left on device.\n"), "\(command): \(r.stderr)")
        }
        let alertd = try TestBinaries.path(of: "alertd")
        let r = try await TestBinaries.run("/bin/sh", ["-c", "exec \"$0\" --help > /dev/full", alertd])
        #expect(r.exitCode == 74)
        #expect(r.stderr == "alertd: could not write to standard output: No space left on device.\n")
        // A reader that stops early is no failure: `alertctl --help | true`.
        let piped = try await TestBinaries.run("/bin/sh", ["-c", "\"$0\" --generate-manpage | true", alertctl])
        #expect(!piped.stderr.contains("could not write"))
    }

    @Test func unreachableDaemonExits69() async throws {
        let dir = TemporaryDirectory()
        let socket = dir.path + "/alertd.sock"
        let r = try await TestBinaries.alertctl("send", "-t", "x", "--socket", socket)
        #expect(r.exitCode == 69)
        #expect(r.stdout == "")
        #expect(r.stderr == """
            alertctl: cannot reach alertd at \(socket): no such socket (is alertd running? start it (make run, or systemctl start alertd) or set --socket/ALERTD_SOCKET)

            """)
        // With --json the same goes to standard output in the API's error
        // shape: a script found standard output empty when alertd was away.
        let json = try await TestBinaries.alertctl("send", "-t", "x", "--socket", socket, "--json")
        #expect(json.exitCode == 69)
        #expect(json.stderr == "")
        #expect(json.stdout == #"{"error":{"code":"alertd_unreachable","message":"cannot reach alertd at \#(socket): no such socket (is alertd running? start it (make run, or systemctl start alertd) or set --socket/ALERTD_SOCKET)"}}"# + "\n")
        // Every command that takes --json says so in JSON; `list` printed plain text to stderr.
        for command in [["list"], ["list", "--all"], ["show", "0190f5c2-0000-7000-8000-000000000000"], ["groups"], ["silence", "list"]] {
            let r = try await TestBinaries.run(try TestBinaries.alertctl, command + ["--socket", socket, "--json"])
            #expect(r.exitCode == 69, "\(command)")
            #expect(r.stdout.hasPrefix(#"{"error":{"code":"alertd_unreachable","#), "\(command): \(r.stdout)")
            #expect(r.stderr == "", "\(command)")
        }
        let viaEnvironment = try await TestBinaries.alertctl("list", environment: ["ALERTD_SOCKET": socket])
        #expect(viaEnvironment.exitCode == 69)
        #expect(viaEnvironment.stderr == r.stderr)
        // A dangling link is no socket at all, not "not a socket".
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/linked.sock", withDestinationPath: socket)
        let dangling = try await TestBinaries.alertctl("list", "--socket", dir.path + "/linked.sock")
        #expect(dangling.stderr.contains(": no such socket ("), "\(dangling.stderr)")
        // Nothing listens: the ids after the first are named, not waited on one by one.
        let expire = try await TestBinaries.alertctl("silence", "expire", "s1", "s2", "s3", "--socket", socket)
        #expect(expire.exitCode == 69)
        #expect(expire.stderr.hasSuffix("alertctl: not tried: s2 s3\n"), "\(expire.stderr)")
        // A file that is not a socket refuses too; "is alertd running?" sent people to start one that was.
        for notSocket in [dir.path, dir.path + "/config.json"] {
            FileManager.default.createFile(atPath: dir.path + "/config.json", contents: Data("{}".utf8))
            let wrong = try await TestBinaries.alertctl("list", "--socket", notSocket)
            #expect(wrong.exitCode == 69)
            #expect(wrong.stderr.hasPrefix("alertctl: cannot reach alertd at \(notSocket): not a socket (point --socket/ALERTD_SOCKET at alertd's socket"),
                    "\(wrong.stderr)")
        }

        let port = try TestDaemon.freePort()
        let tcp = try await TestBinaries.alertctl("show", "0197a4c2-5b1e-7c3d-8e9f-0123456789ab", "--url", "http://127.0.0.1:\(port)")
        #expect(tcp.exitCode == 69)
        #expect(tcp.stderr.hasPrefix("alertctl: cannot reach alertd at http://127.0.0.1:\(port): connection refused (is alertd running"))
        // A proxy's password in the URL is sent, never said: stderr goes to the logs of the jobs that run alertctl.
        let secret = try await TestBinaries.alertctl("list", environment: ["ALERTD_URL": "http://alice:S3cretPass@127.0.0.1:\(port)"])
        #expect(secret.stderr.hasPrefix("alertctl: cannot reach alertd at http://***@127.0.0.1:\(port): connection refused"), "\(secret.stderr)")
        #expect(!secret.stderr.contains("S3cretPass"))
        // Nor when the URL itself is refused.
        let refused = try await TestBinaries.alertctl("list", environment: ["ALERTD_URL": "http://alice:S3cretPass@127.0.0.1:\(port)/v1"])
        let refusedOption = try await TestBinaries.alertctl("list", "--url", "ftp://alice:S3cretPass@127.0.0.1:\(port)")
        // A password with `/` or `#` in it, not encoded, or no scheme at all: no URL, and still not said.
        let slashed = try await TestBinaries.alertctl("list", "--url", "http://alice:S3cretPass/x#y@127.0.0.1:\(port)")
        let schemeless = try await TestBinaries.alertctl("list", environment: ["ALERTD_URL": "alice:S3cretPass@127.0.0.1:\(port)"])
        for answer in [refused, refusedOption, slashed, schemeless] {
            #expect(answer.exitCode == 64 && answer.stderr.contains("***@127.0.0.1"), "\(answer.stderr)")
            #expect(!answer.stderr.contains("S3cretPass"))
        }
    }

    @Test func tcpNeedsTheToken() async throws {
        let dir = TemporaryDirectory()
        let tokenFile = dir.path + "/token"
        try writeSecretFile("0123456789abcdef0123456789abcdef\n", to: tokenFile)
        let daemon = try TestDaemon(config: ["api": ["token_file": tokenFile]])
        try await daemon.start()

        let sent = try await daemon.alertctl(["send", "-t", "Over TCP", "--url", daemon.baseURL, "--token-file", tokenFile])
        #expect(sent.exitCode == 0, "\(sent.stderr)")
        let id = sent.stdout.trimmingCharacters(in: .newlines)
        let listed = try await TestBinaries.alertctl(
            "list", "--json", environment: ["ALERTD_URL": daemon.baseURL + "/", "ALERTD_TOKEN_FILE": tokenFile])
        #expect(listed.exitCode == 0, "\(listed.stderr)")
        #expect((try Self.json(listed.stdout)["alerts"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [id])
        // The connection options may come before the command, as for `alertctl --url … list`.
        let before = try await TestBinaries.alertctl("--url", daemon.baseURL, "--token-file", tokenFile, "show", id, "--json")
        #expect(before.exitCode == 0, "\(before.stderr)")
        #expect(try Self.json(before.stdout)["id"] as? String == id)
        let split = try await TestBinaries.alertctl("--url", daemon.baseURL, "list", "--token-file", tokenFile, "--json")
        #expect(split.exitCode == 0, "\(split.stderr)")
        let viaSocket = try await TestBinaries.alertctl("--socket", daemon.socketPath, "list")
        #expect(viaSocket.exitCode == 0, "\(viaSocket.stderr)")
        #expect(viaSocket.stdout.contains("\(id)  open "))

        let anonymous = try await daemon.alertctl(["list", "--url", daemon.baseURL])
        // 77: the token, not the daemon's answer, is what to fix.
        #expect(anonymous.exitCode == 77)
        #expect(anonymous.stdout == "")
        #expect(anonymous.stderr == """
            alertctl: alertd answered 401: This API needs a bearer token over TCP: send `Authorization: Bearer <token>` (alertctl: --token-file). [unauthorized]

            """)
        // The scheme name is case-insensitive, as docs/API.md says.
        for scheme in ["Bearer", "bearer", "BEARER"] {
            var headers = HTTPHeaders()
            headers.set("Authorization", "\(scheme) 0123456789abcdef0123456789abcdef")
            #expect(try await daemon.request("GET", "/v1/alerts", headers: headers, tcp: true).status == 200, "\(scheme)")
        }
        let wrongFile = dir.path + "/wrong"
        try writeSecretFile("not-the-token-at-all", to: wrongFile)
        let wrong = try await daemon.alertctl(["list", "--url", daemon.baseURL, "--token-file", wrongFile])
        #expect(wrong.exitCode == 77)
        #expect(wrong.stderr.contains("[unauthorized]"))
        #expect(wrong.stderr.contains("The bearer token sent is not one alertd has"), "\(wrong.stderr)")
        let missing = try await daemon.alertctl(["list", "--url", daemon.baseURL, "--token-file", dir.path + "/nope"])
        #expect(missing.exitCode == 64)
        #expect(missing.stderr.hasPrefix("Error: Cannot read the token file '\(dir.path)/nope'"))
    }

    @Test func replayRetriesDeadDeliveries() async throws {
        let receiver = try WebhookReceiver(script: [404])
        let daemon = try await Self.daemon(for: receiver)
        let id = try await daemon.send(["title": "Flaky receiver"])
        // 404 is permanent: the delivery dies on the first attempt.
        #expect(try await eventually { try await Self.deliveryStates(daemon, id) == ["dead"] })
        let dead = try await daemon.alertctl(["show", id])
        #expect(dead.stdout.contains("Deliveries:\n  hook  dead  1 attempt  gave up 20"))
        #expect(dead.stdout.contains("\n        last error: "))

        let replay = try await daemon.alertctl(["replay", id])
        #expect(replay.exitCode == 0, "\(replay.stderr)")
        #expect(replay.stdout == "replayed 1 delivery\n")
        #expect(await receiver.wait { $0.count == 2 })
        #expect(try await eventually { try await Self.deliveryStates(daemon, id) == ["delivered"] })

        let nothing = try await daemon.alertctl(["replay", "--dead"])
        #expect(nothing.exitCode == 0)
        #expect(nothing.stdout == "replayed 0 deliveries\n")
        let json = try await daemon.alertctl(["replay", "--dead", "--json"])
        #expect(json.stdout == #"{"replayed":0}"# + "\n")

        let unknown = try await daemon.alertctl(["replay", "0197a4c2-5b1e-7c3d-8e9f-0123456789ab"])
        #expect(unknown.exitCode == 1)
        #expect(unknown.stderr == """
            alertctl: alertd answered 404: There is no alert with id `0197a4c2-5b1e-7c3d-8e9f-0123456789ab`. [alert_not_found]

            """)
    }

    @Test func usageErrorsExit64() async throws {
        let both = try await TestBinaries.alertctl("list", "--socket", "/tmp/x.sock", "--url", "http://127.0.0.1:1")
        #expect(both.exitCode == 64)
        #expect(both.stderr.hasPrefix("""
            Error: '--socket' and '--url' both say where alertd is; give only one.
            Usage: alertctl list [--state <state>]
            """))
        #expect(both.stderr.hasSuffix("See 'alertctl list --help' for more.\n"))

        let cases: [[String]] = [
            ["send", "-t", "x", "--socket", "/tmp/x.sock", "--url", "http://127.0.0.1:1"],
            ["send", "-t", "x", "--url", "ftp://host"],
            ["send", "-t", "x", "--url", "http://127.0.0.1:1/v1"],
            ["send", "-t", "x", "--token-file", "/tmp/t"],
            ["replay"],
            ["replay", "0197a4c2-5b1e-7c3d-8e9f-0123456789ab", "--dead"],
            ["show"],
            ["show", "not-an-id"],
            ["list", "--limit", "0"],
            ["list", "--label", "nolabel"],
            ["list", "--state", "gone"],
        ]
        for arguments in cases {
            let r = try await TestBinaries.run(try TestBinaries.alertctl, arguments)
            #expect(r.exitCode == 64, "\(arguments): \(r.stderr)")
            #expect(r.stderr.hasPrefix("Error: "), "\(arguments)")
        }
        let conflict = try await TestBinaries.alertctl(
            "list", environment: ["ALERTD_SOCKET": "/tmp/x.sock", "ALERTD_URL": "http://127.0.0.1:1"])
        #expect(conflict.exitCode == 64)
        #expect(conflict.stderr.hasPrefix("Error: ALERTD_SOCKET and ALERTD_URL are both set;"))
        // The environment's token is for the environment's server, not another '--url' names: it had been sent there.
        let dir = TemporaryDirectory()
        let token = dir.path + "/token"
        try Data("env-token-0123456789abcdef\n".utf8).write(to: URL(fileURLWithPath: token))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: token)
        let elsewhere = try await TestBinaries.alertctl(
            "list", "--url", "http://127.0.0.1:1",
            environment: ["ALERTD_URL": "https://alertd.example:9190", "ALERTD_TOKEN_FILE": token])
        #expect(elsewhere.exitCode == 64, "\(elsewhere.stderr)")
        #expect(elsewhere.stderr.hasPrefix("Error: ALERTD_TOKEN_FILE is the token for ALERTD_URL"), "\(elsewhere.stderr)")
        // The same server either way: no conflict (nothing answers on port 1: unavailable, not a usage error).
        let same = try await TestBinaries.alertctl(
            "list", "--url", "http://127.0.0.1:1", environment: ["ALERTD_URL": "http://127.0.0.1:1", "ALERTD_TOKEN_FILE": token])
        #expect(same.exitCode != 64, "\(same.stderr)")
    }

    @Test func renderToWebhook() async throws {
        let receiver = try WebhookReceiver()
        let secret = "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()
        let r = try await TestBinaries.alertctl(
            "render", "-t", "Disk full", "-l", "host=db1", "--to", "webhook", "--url", receiver.url, "--secret", secret)
        #expect(r.exitCode == 0, "\(r.stderr)")
        #expect(r.stderr == "delivered\n")
        let got = try #require(receiver.received.first)
        #expect(receiver.received.count == 1)
        #expect(got.json["type"] as? String == "alert")
        #expect((got.json["alert"] as? [String: Any])?["title"] as? String == "Disk full")
        let deliveryID = try #require((got.json["delivery"] as? [String: Any])?["id"] as? String)
        #expect(got.request.headers["webhook-id"] == deliveryID)
        #expect(got.request.headers["webhook-signature"]?.hasPrefix("v1,") == true)

        receiver.script([500])
        let failed = try await TestBinaries.alertctl("render", "-t", "x", "--to", "webhook", "--url", receiver.url)
        #expect(failed.exitCode == 1)
        #expect(failed.stderr.hasPrefix("failed: "))
        #expect(receiver.received.count == 2)
        #expect(receiver.received[1].request.headers["webhook-signature"] == nil)

        // Without a destination, it shows what it would send, with the type's example settings.
        let noURL = try await TestBinaries.alertctl("render", "-t", "x", "--to", "webhook")
        #expect(noURL.exitCode == 0)
        #expect(noURL.stdout.hasPrefix("POST https://receiver.example/alertd\nContent-Type: application/json\n"))
        #expect(receiver.received.count == 2)
        let badSecret = try await TestBinaries.alertctl("render", "-t", "x", "--to", "webhook", "--url", receiver.url, "--secret", "nope")
        #expect(badSecret.exitCode == 64)
        #expect(badSecret.stderr.hasPrefix("Error: The value given for '--secret <secret>' is invalid: The webhook secret cannot be used"))
        await receiver.stop()
    }

    @Test func sendHelpIsPinned() async throws {
        let r = try await TestBinaries.alertctl("send", "--help")
        #expect(r.exitCode == 0)
        #expect(r.stderr == "")
        #expect(r.stdout == """
            OVERVIEW: Send an alert to alertd and print its id.

            Checks the alert first, as 'validate' does: an invalid alert is not sent. A
            title, message or label count past the default limits is left to alertd, whose
            'limits' may allow it. Prints the new alert's id, or with --json alertd's answer
            ({"id", "state", "deduplicated"}). When an open alert has the same dedup key,
            the alert is folded into it and its id is printed.

            With --wait, stays until the alert (or the one it was folded into) is decided
            and prints how, e.g. 'confirmed by uid:1000 at 2025-06-01 12:00:00 UTC'; with
            --json the alert instead, as 'show --json' prints it. Then exits 0 when it was
            confirmed, 1 when cancelled or resolved, 2 when it expired or --timeout passed
            first, 3 when an error from alertd left the decision unknown. Following the
            alert takes reading it: over TCP, with a token that lacks the read scope,
            nothing is sent and alertctl says why.

            Exit codes: 0 ok, 1 failure (an error from alertd; with --wait, cancelled or
            resolved), 2 expired or timed out (--wait), 3 decision unknown after an error
            (--wait), 64 usage error, 65 invalid alert, 69 alertd unavailable, 75 alertd
            cannot now (503, 429): try again later, 77 token refused or without the scope
            (401, 403; with --wait, nothing was sent).

            USAGE: alertctl send [--title <title>] [--message <message>]
                                 [--severity <severity>] [--label <name=value> ...]
                                 [--confirm <label=url>] [--cancel <label=url>]
                                 [--dedup-key <key>] [--expires <duration>]
                                 [--template <name>] [--set <name=value> ...]
                                 [--templates <file>] [--socket <path>] [--url <url>]
                                 [--token-file <file>] [--json] [--wait]
                                 [--timeout <duration>]

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
              --json                  Print alertd's answer, or the problems, as JSON on
                                      standard output.
              --wait                  Wait until the alert is decided; the exit code says
                                      how.
              --timeout <duration>    With --wait, stop waiting after this long, e.g. 90s,
                                      10m, 1h. (default: 10m)
              -h, --help              Show help information.

            """)
        let viaHelp = try await TestBinaries.alertctl("help", "send")
        #expect(viaHelp.stdout == r.stdout)
        for command in ["list", "show", "replay"] {
            let help = try await TestBinaries.alertctl(command, "--help")
            #expect(help.exitCode == 0)
            #expect(help.stdout.contains("Exit codes: 0 ok, 1 failure (an error from alertd), 64 usage error, 65 refused\n"
                                         + "as invalid (400, 422), 69 alertd unavailable, 75 alertd cannot now (503, 429):\n"
                                         + "try again later, 77 token refused or without the scope (401, 403)."),
                    "\(command)")
        }
    }
}

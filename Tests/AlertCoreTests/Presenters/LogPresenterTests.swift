import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdLogging
@testable import AlertdStore
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

@Suite struct LogPresenterTests {
    static let at = Fixtures.created.addingTimeInterval(1.5)

    /// A dedup key keeps invisible characters (keys must match byte for
    /// byte), and a message may hold line separators. In the log (and on a
    /// terminal) the one is marked, as alertctl marks it, and the other
    /// escaped: a run of tags hid text no one saw, and Python's
    /// `splitlines()` split a JSON record at a raw U+2028.
    @Test func hiddenCharactersOfAKeyAreMarkedAndLineSeparatorsEscaped() throws {
        let spec = try AlertSpec.Builder().title("t").message("a\u{2028}b\u{2029}c")
            .dedupKey("ok" + String(String.UnicodeScalarView([Unicode.Scalar(0xE0153)!, Unicode.Scalar(0x200B)!]))).build().get()
        let alert = Alert(spec: spec, at: Fixtures.created)
        let json = LogLineFormatter.line(alert, delivery: Fixtures.delivery, format: .jsonLines, timestamp: Self.at)
        #expect(json.contains("\"dedup_key\":\"ok\u{FFFD}\u{FFFD}\""), "\(json)")
        #expect(json.contains(#""message":"a\u2028b\u2029c""#), "\(json)")
        #expect(json.split(whereSeparator: \.isNewline).count == 1)
        let logfmt = LogLineFormatter.line(alert, delivery: Fixtures.delivery, format: .logfmt, timestamp: Self.at)
        #expect(logfmt.contains("dedup_key=ok\u{FFFD}\u{FFFD}"), "\(logfmt)")
        #expect(TerminalRenderer.render(alert, context: Fixtures.delivery, width: 80, colour: false).contains("ok\u{FFFD}\u{FFFD}"))
    }

    @Test func formatsAJSONLine() {
        #expect(LogLineFormatter.line(Fixtures.diskFull, delivery: Fixtures.delivery, format: .jsonLines, timestamp: Self.at) == #"""
            {"attempt":2,"cancel":"Ignore","confirm":"Expand","created_at":"2025-06-01T12:00:00.000Z","dedup_key":"disk-full:db1","delivery_id":"d-1","id":"01972b3c-8a00-7123-8456-0123456789ab","labels":{"env":"prod","host":"db1","team":"storage"},"message":"/var at 97% on db1. Writes will start failing when it reaches 100%, so expand the volume or clean up old logs.\n\nRunbook: https://ops.example/runbooks/disk-full-on-database-hosts","severity":"critical","title":"Disk full","ts":"2025-06-01T12:00:01.500Z"}
            """#)
        #expect(LogLineFormatter.line(Fixtures.minimal, delivery: Fixtures.delivery, format: .jsonLines, timestamp: Self.at) == #"""
            {"attempt":2,"created_at":"2025-06-01T12:00:00.000Z","delivery_id":"d-1","id":"01972b3c-8a00-7123-8456-0123456789ab","labels":{},"severity":"info","title":"Backup finished","ts":"2025-06-01T12:00:01.500Z"}
            """#)
    }

    @Test func linesSayALinkIsOfferedButNotItsToken() {
        let links = DeliveryContext(deliveryID: "d-1", attempt: 1, actionLinks: [.confirm: "https://alertd.example/c?expires=9&token=s3cret"])
        let json = LogLineFormatter.line(Fixtures.diskFull, delivery: links, format: .jsonLines, timestamp: Self.at)
        #expect(json.contains(#""confirm_link":"https://alertd.example/c?expires=9&token=REDACTED""#))
        #expect(!json.contains("cancel_link"))
        #expect(!json.contains("s3cret"))
        let logfmt = LogLineFormatter.line(Fixtures.diskFull, delivery: links, format: .logfmt, timestamp: Self.at)
        #expect(logfmt.contains(#"confirm=Expand confirm_link="https://alertd.example/c?expires=9&token=REDACTED" cancel=Ignore"#))
    }

    @Test func formatsALogfmtLine() {
        #expect(LogLineFormatter.line(Fixtures.diskFull, delivery: Fixtures.delivery, format: .logfmt, timestamp: Self.at) == #"""
            ts=2025-06-01T12:00:01.500Z id=01972b3c-8a00-7123-8456-0123456789ab severity=critical title="Disk full" message="/var at 97% on db1. Writes will start failing when it reaches 100%, so expand the volume or clean up old logs.\n\nRunbook: https://ops.example/runbooks/disk-full-on-database-hosts" labels.env=prod labels.host=db1 labels.team=storage dedup_key=disk-full:db1 confirm=Expand cancel=Ignore delivery_id=d-1 attempt=2 created_at=2025-06-01T12:00:00.000Z
            """#)
        #expect(LogLineFormatter.line(Fixtures.minimal, delivery: Fixtures.delivery, format: .logfmt, timestamp: Self.at) == """
            ts=2025-06-01T12:00:01.500Z id=01972b3c-8a00-7123-8456-0123456789ab severity=info title="Backup finished" delivery_id=d-1 attempt=2 created_at=2025-06-01T12:00:00.000Z
            """)
    }

    @Test(arguments: [
        ("plain", "plain"), ("", #""""#), ("a b", #""a b""#), ("k=v", #""k=v""#), (#"say "hi""#, #""say \"hi\"""#),
        (#"back\slash"#, #""back\\slash""#), ("two\nlines\r\tend", #""two\nlines\r\tend""#), ("bell\u{7}", #""bell\u0007""#),
        ("ünïcode", "ünïcode"), ("del\u{7F}", #""del\u007f""#), ("nel\u{85}", #""nel\u0085""#), ("nbsp\u{A0}", "nbsp\u{A0}"),
        // Bidirectional controls would turn the rest of the line around on a terminal.
        ("ok\u{202E}live", #""ok\u202elive""#), ("\u{2066}a b\u{2069}\u{200F}", #""\u2066a b\u2069\u200f""#), ("עברית", "עברית"),
        ("one\u{2028}line", #""one\u2028line""#),
    ])
    func quotesLogfmtValues(_ raw: String, _ quoted: String) {
        #expect(Logfmt.value(raw) == quoted)
    }

    @Test func timestampsAreUTC() {
        #expect(UTCTimestamp.iso8601(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(UTCTimestamp.iso8601(Date(timeIntervalSince1970: 951_782_400.999)) == "2000-02-29T00:00:00.999Z")
        #expect(UTCTimestamp.readable(Date(timeIntervalSince1970: -1)) == "1969-12-31 23:59:59 UTC")
        #expect(UTCTimestamp.readable(Date(timeIntervalSince1970: 4_102_444_799)) == "2099-12-31 23:59:59 UTC")
    }

    /// Each test's own, removed when the test ends (one of these left 20 MB in /tmp after every run).
    let dir = TemporaryDirectory()

    func temporaryPath(_ name: String) -> String { dir.path + "/" + name }

    static func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast().map(String.init)
    }

    @Test func appendsLinesToAFile() async throws {
        let path = temporaryPath("alerts.log")
        try "existing\n".write(toFile: path, atomically: false, encoding: .utf8)
        let presenter = LogPresenter(configuration: .init(destination: .file(path), format: .logfmt))
        #expect(await presenter.present(Fixtures.minimal, delivery: Fixtures.delivery) == .delivered)
        #expect(await presenter.present(Fixtures.diskFull, delivery: Fixtures.delivery) == .delivered)
        let lines = try Self.lines(path)
        #expect(lines.count == 3)
        #expect(lines[0] == "existing")
        #expect(lines[1].contains(#"title="Backup finished""#))
        #expect(lines[2].contains("severity=critical"))
    }

    @Test func concurrentWritersNeverInterleave() async throws {
        let path = temporaryPath("alerts.jsonl")
        let shared = LogPresenter(configuration: .init(destination: .file(path)))
        let long = String(repeating: "0123456789abcdef", count: 300)  // 4.8 kB lines, more than PIPE_BUF
        let spec = try AlertSpec.Builder().title("load").message(long).build().get()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                // Half share one presenter, half have their own descriptor, as separate processes would.
                let presenter = task % 2 == 0 ? shared : LogPresenter(configuration: .init(destination: .file(path)))
                group.addTask {
                    for i in 0..<500 {
                        let alert = Alert(id: Fixtures.id, spec: spec, createdAt: Fixtures.created)
                        let outcome = await presenter.present(alert, delivery: DeliveryContext(deliveryID: DeliveryID(rawValue: "\(task)-\(i)")))
                        #expect(outcome == .delivered)
                    }
                }
            }
        }
        let lines = try Self.lines(path)
        #expect(lines.count == 4_000)
        var seen = Set<String>()
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["message"] as? String == long)
            seen.insert(try #require(object["delivery_id"] as? String))
        }
        #expect(seen.count == 4_000)
    }

    @Test func reopenStartsAFreshFileAfterRotation() async throws {
        let path = temporaryPath("alerts.log")
        let presenter = LogPresenter(configuration: .init(destination: .file(path)))
        #expect(await presenter.present(Fixtures.minimal, delivery: Fixtures.delivery) == .delivered)
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        #expect(await presenter.present(Fixtures.minimal, delivery: Fixtures.delivery) == .delivered)
        try presenter.reopen()
        #expect(await presenter.present(Fixtures.diskFull, delivery: Fixtures.delivery) == .delivered)
        #expect(try Self.lines(path + ".1").count == 2)
        let fresh = try Self.lines(path)
        #expect(fresh.count == 1)
        #expect(fresh[0].contains(#""severity":"critical""#))
    }

    /// A mistyped path passed `--check-config` and a reload, then every
    /// delivery retried until `retry.max_age`: the directory is checked
    /// when the presenter is made.
    @Test func aFileWhoseDirectoryIsMissingIsRefusedAtSetup() throws {
        let dir = TemporaryDirectory()
        func make(_ path: String) throws(PresenterSetupError) {
            _ = try LogPresenterConfiguration(destination: .file(path))
                .makePresenter(name: "log", context: PresenterContext(httpClient: .shared, stateDirectory: dir.path))
        }
        #expect(throws: PresenterSetupError("the directory \(dir.path)/nowhere of \(dir.path)/nowhere/alerts.log does not exist; create it, or give another path")) {
            try make("nowhere/alerts.log")
        }
        #expect(throws: PresenterSetupError("\(dir.path) is a directory; give the path of a file in it")) { try make(dir.path) }
        try make("alerts.log")
        try make(dir.path + "/alerts.log")
        // A state directory alertd has not made yet (a first start, --check-config before it) is made as it starts.
        _ = try LogPresenterConfiguration(destination: .file("alerts.log"))
            .makePresenter(name: "log", context: PresenterContext(httpClient: .shared, stateDirectory: dir.path + "/fresh"))
        FileManager.default.createFile(atPath: dir.path + "/plain", contents: Data())
        #expect(throws: PresenterSetupError("\(dir.path)/plain, where \(dir.path)/plain/alerts.log would be, is not a directory; give another path")) {
            try make("plain/alerts.log")
        }
        FileManager.default.createFile(atPath: dir.path + "/existing.log", contents: Data())
        try make("existing.log")
        if getuid() != 0 {
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: dir.path + "/existing.log")
            #expect(throws: PresenterSetupError("alertd's user may not write to \(dir.path)/existing.log; change its owner or mode, or give another path")) {
                try make("existing.log")
            }
        }
    }

    @Test func openFailureIsRetryableWithTheReason() async {
        let path = "/nonexistent-alertd-dir/alerts.log"
        let presenter = LogPresenter(configuration: .init(destination: .file(path)))
        let outcome = await presenter.present(Fixtures.minimal, delivery: Fixtures.delivery)
        guard case .retryableFailure(let reason, nil) = outcome else {
            Issue.record("expected a retryable failure, got \(outcome)")
            return
        }
        #expect(reason == "cannot open log file \(path): No such file or directory (check that the directory exists and this user may write to it)")
        #expect(throws: LogFileError(path: path, errno: ENOENT)) { try presenter.reopen() }
    }
}

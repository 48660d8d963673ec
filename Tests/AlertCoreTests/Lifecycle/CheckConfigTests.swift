import Foundation
import Testing
@testable import AlertdDaemon
@testable import AlertdHTTP
@testable import AlertdHTTPServer
@testable import AlertdPostgres

/// `--check-config` builds the daemon as a start would, minus listening and
/// minus changes on disk.
@Suite struct CheckConfigTests {
    func check(_ config: String, stateDir: String) async throws -> TestBinaries.Result {
        try await TestBinaries.run(try TestBinaries.path(of: "alertd"), ["--check-config", "--config", config, "--state-dir", stateDir])
    }

    /// A start refused for its configuration says why in the log format
    /// asked for: under systemd with a priority the journal reads, or as
    /// JSON a log shipper reads; at a terminal, as `--check-config` does.
    @Test func aStartRefusedForItsConfigurationLogsInTheFormatAskedFor() async throws {
        let dir = TemporaryDirectory()
        let config = dir.path + "/alertd.json"
        try #"{"bogus": 1, "retry": {"jiter": true}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        func start(_ format: String) async throws -> TestBinaries.Result {
            try await TestBinaries.run(try TestBinaries.path(of: "alertd"),
                                       ["--config", config, "--state-dir", dir.path + "/state", "--log-format", format])
        }
        let journal = try await start("journal")
        #expect(journal.exitCode == 65)
        let journalLines = journal.stderr.split(separator: "\n")
        #expect(journalLines.count == 2 && journalLines.allSatisfy { $0.hasPrefix("<2>") && $0.contains("code=configuration") }, "\(journal.stderr)")
        let json = try await start("json")
        #expect(json.exitCode == 65)
        let objects = json.stderr.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == 2, "\(json.stderr)")
        #expect(objects.contains { ($0["error"] as? String)?.contains("jiter") == true })
        let human = try await start("human")
        #expect(human.exitCode == 65)
        #expect(human.stderr.hasPrefix(config + ": "), "\(human.stderr)")
    }

    /// A key or value holding a newline or a bidirectional control is shown
    /// escaped at a terminal: one problem, one line, in reading order.
    @Test func aProblemQuotingControlCharactersStaysOneLine() async throws {
        let dir = TemporaryDirectory()
        let config = dir.path + "/alertd.json"
        try #"{"bo\ngus": 1, "default_route": {"presenters": ["c\nd"]}, "routes": [{"name": "r\u202eq", "presenters": []}]}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let checked = try await check(config, stateDir: dir.path + "/state")
        let started = try await TestBinaries.run(try TestBinaries.path(of: "alertd"),
                                                 ["--config", config, "--state-dir", dir.path + "/state", "--log-format", "human"])
        for result in [checked, started] {
            #expect(result.exitCode == 65)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 4 && lines.allSatisfy { $0.hasPrefix(config + ": ") }, "\(result.stderr)")
            #expect(result.stderr.contains(#"bo\ngus: unknown key"#) && result.stderr.contains(#""c\nd""#), "\(result.stderr)")
            #expect(result.stderr.contains(#"r\u202eq"#) && !result.stderr.unicodeScalars.contains("\u{202E}"), "\(result.stderr)")
        }
    }

    /// A socket in a directory that does not exist failed the start at bind
    /// with "No such file or directory"; now it fails saying which directory
    /// and what to do, and the check warns of it (from a shell, before the
    /// first start, systemd has not made `/run/alertd` yet).
    @Test func aSocketInAMissingDirectoryIsRefusedByTheCheckAndTheStart() async throws {
        let dir = TemporaryDirectory()
        let config = dir.path + "/alertd.json"
        try #"{"api": {"socket": "\#(dir.path)/nodir/alertd.sock"}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let checked = try await check(config, stateDir: dir.path + "/state")
        let started = try await TestBinaries.run(try TestBinaries.path(of: "alertd"), ["--config", config, "--state-dir", dir.path + "/state"])
        for (result, code) in [(checked, 0), (started, 69)] {
            #expect(result.exitCode == Int32(code), "\(result.stderr)")
            #expect(result.stderr.contains("The socket's directory \(dir.path)/nodir does not exist"), "\(result.stderr)")
        }
        // In the state directory, which a start creates, it is fine.
        try #"{"api": {"socket": "\#(dir.path)/state/alertd.sock"}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let inState = try await check(config, stateDir: dir.path + "/state")
        #expect(inState.exitCode == 0 && !inState.stderr.contains("socket's directory"), "\(inState.stderr)")
    }

    /// A socket path longer than a Unix socket's address holds: the check
    /// called the file valid, and the start failed only at bind.
    @Test func aSocketPathTooLongForAnyUnixSocketIsAProblem() async throws {
        let dir = TemporaryDirectory()
        let config = dir.path + "/alertd.json"
        let socket = dir.path + "/" + String(repeating: "s", count: 120) + ".sock"
        try #"{"api": {"socket": "\#(socket)"}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let checked = try await check(config, stateDir: dir.path + "/state")
        let started = try await TestBinaries.run(try TestBinaries.path(of: "alertd"), ["--config", config, "--state-dir", dir.path + "/state"])
        for (result, code) in [(checked, 65), (started, 69)] {
            #expect(result.exitCode == Int32(code), "\(result.stderr)")
            #expect(result.stderr.contains("api.socket: \(socket) is \(socket.utf8.count) bytes long, and a Unix socket's path may have at most 107"),
                    "\(result.stderr)")
        }
    }

    /// A port in use says where the port is set.
    @Test func aPortInUseNamesTheSetting() async throws {
        let dir = TemporaryDirectory()
        let (server, _) = try startLoopbackServer { _ in HTTPResponse(status: 204) }
        defer { Task { await server.stop() } }
        let port = try #require(server.port)
        let started = try await TestBinaries.run(try TestBinaries.path(of: "alertd"),
                                                 ["--state-dir", dir.path + "/state", "--listen", "127.0.0.1:\(port)"])
        #expect(started.exitCode == 69)
        #expect(started.stderr.contains("already in use") && started.stderr.contains("api.listen in the configuration, or --listen"),
                "\(started.stderr)")
    }

    @Test func aCheckCreatesNothingAndBindsNothing() async throws {
        let dir = TemporaryDirectory()
        let config = dir.path + "/alertd.json"
        // A public URL makes a start create the action-link key; a port makes it listen.
        try #"{"api": {"public_url": "https://alertd.example", "listen": "127.0.0.1:1"}}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let state = dir.path + "/state/not/yet"
        let result = try await check(config, stateDir: state)
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/state"))
    }

    /// Valid, but worth a word: a listener others can reach, with no token.
    @Test func anOpenAPIOnAPublicAddressIsWarnedOf() async throws {
        let dir = TemporaryDirectory()
        let config = dir.path + "/alertd.json"
        for (listen, warned) in [("0.0.0.0:1", true), ("127.0.0.1:1", false), ("[::1]:1", false)] {
            try #"{"api": {"listen": "\#(listen)"}}"#.write(toFile: config, atomically: true, encoding: .utf8)
            let result = try await check(config, stateDir: dir.path + "/state")
            #expect(result.exitCode == 0, "\(result.stderr)")
            #expect(result.stderr.contains("without a token") == warned, "\(listen): \(result.stderr)")
        }
    }

    @Test func everyProblemAStartWouldMeetIsReportedAtOnce() async throws {
        let dir = TemporaryDirectory()
        let config = dir.path + "/alertd.json"
        try #"{"api": {"public_url": "https://alertd.example", "token_file": "/nonexistent/token"}}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        // A state directory that is a file, then a key too short to sign with.
        let file = dir.path + "/a-file"
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        let notADirectory = try await check(config, stateDir: file)
        #expect(notADirectory.exitCode == 65)
        #expect(notADirectory.stderr.contains("\(file) is not a directory"), "\(notADirectory.stderr)")
        #expect(notADirectory.stderr.contains("/nonexistent/token"))
        // Every line says which file, and the secret's which key.
        #expect(notADirectory.stderr.contains("\(config): api.token_file: "), "\(notADirectory.stderr)")
        #expect(notADirectory.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix(config + ": ") }, "\(notADirectory.stderr)")

        let state = dir.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try writeSecretFile("short", to: state + "/action-links.key")
        let shortKey = try await check(config, stateDir: state)
        #expect(shortKey.exitCode == 65)
        #expect(shortKey.stderr.contains("shorter than 32 bytes"), "\(shortKey.stderr)")
        #expect(shortKey.stderr.contains("/nonexistent/token"))
    }

    /// A store in a directory that does not exist: alertd creates only the
    /// state directory, so the check refuses it as the start does (the
    /// check had passed it and the start failed with SQLite's "unable to
    /// open database file"). One in the state directory still passes
    /// before that directory exists.
    @Test func aStoreInADirectoryThatDoesNotExistIsRefusedByTheCheckAndTheStart() async throws {
        let dir = TemporaryDirectory()
        let config = dir.path + "/alertd.json"
        try #"{"store": {"path": "nodir/x.db"}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let state = dir.path + "/state"
        let checked = try await check(config, stateDir: state)
        #expect(checked.exitCode == 65)
        #expect(checked.stderr.contains("The store's directory \(state)/nodir does not exist"), "\(checked.stderr)")
        let started = try await TestBinaries.run(try TestBinaries.path(of: "alertd"), ["--config", config, "--state-dir", state, "--socket", dir.path + "/s"])
        #expect(started.exitCode != 0)
        #expect(started.stderr.contains("The store's directory \(state)/nodir does not exist"), "\(started.stderr)")
        for path in ["./x.db", "x.db", state + "/x.db"] {
            try #"{"store": {"path": "\#(path)"}}"#.write(toFile: config, atomically: true, encoding: .utf8)
            let fine = try await check(config, stateDir: dir.path + "/fresh")
            #expect(fine.exitCode == 0, "\(path): \(fine.stderr)")
        }
    }

    /// What reading the file found and building meets again (a secret, a
    /// handler URL prefix) is said once, under its full key; each line of
    /// a problem that holds several names the file.
    @Test func aProblemIsSaidOnceWithItsKey() async throws {
        let dir = TemporaryDirectory()
        let config = dir.path + "/alertd.json"
        try #"""
            {"actions": {"allow": ["https://x.example/a?b=1"]},
             "presenters": {"h": {"type": "webhook", "url": "http://127.0.0.1:9/x", "secret": "short"},
                            "g": {"type": "webhook", "url": "http://127.0.0.1:9/x", "secret_file": "/nonexistent/secret"},
                            "k": {"type": "webhook", "url": "http://127.0.0.1:9/x", "secret_file": "\#(dir.path)/k.secret"}}}
            """#.write(toFile: config, atomically: true, encoding: .utf8)
        // Another presenter's secret fails with the same words: said too, under its own key.
        try writeSecretFile("short", to: dir.path + "/k.secret")
        let result = try await check(config, stateDir: dir.path + "/state")
        #expect(result.exitCode == 65)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.contains("x.example") } == ["\(config): actions.allow[0]: `https://x.example/a?b=1` must be a plain http(s) URL prefix, without user info, a query, encoded separators, or a path segment some server may read as a separator or a dot segment (see API.md)"], "\(lines)")
        #expect(lines.filter { $0.contains("webhook secret") }.count == 2, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("\(config): presenters.k: The webhook secret") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("\(config): presenters.h.secret: ") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("\(config): presenters.g: ") && $0.contains("/nonexistent/secret") }, "\(lines)")
        #expect(lines.allSatisfy { $0.hasPrefix(config + ": ") }, "\(lines)")
    }

    /// Several bad `actions.allow` entries: building met them again, joined
    /// on one line under `actions` and on another under no key at all, so
    /// each was said three times. Each is said once, under its own key.
    /// An empty entry took `--check-config`, and a running daemon's reload, down (SIGILL).
    @Test func anEmptyAllowEntryIsAProblemLikeAnyOther() async throws {
        let dir = TemporaryDirectory()
        let config = dir.path + "/alertd.json"
        try #"{"actions": {"allow": ["", "/", "   "]}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let result = try await check(config, stateDir: dir.path + "/state")
        #expect(result.exitCode == 65, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 3, "\(result.stderr)")
    }

    @Test func severalBadAllowEntriesAreEachSaidOnceWithTheirKey() async throws {
        let dir = TemporaryDirectory()
        let config = dir.path + "/alertd.json"
        try #"{"actions": {"allow": ["https://x.example/a?b=1", "10.0.0.0/33", "*"]}}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let result = try await check(config, stateDir: dir.path + "/state")
        #expect(result.exitCode == 65)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(lines)")
        for (i, line) in lines.enumerated() {
            #expect(line.hasPrefix("\(config): actions.allow[\(i)]: `"), "\(lines)")
        }
    }

    /// On PostgreSQL the check connects, as a start would, and looks at
    /// the database without changing it: one nothing listens for, or
    /// another program's, fails the check rather than the start.
    @Test func aPostgreSQLStoreIsConnectedToAndLeftAsItWas() async throws {
        let server = try PostgresServer.shared()
        let url = try server.makeDatabase()
        let dir = TemporaryDirectory()
        func check(_ url: String) async throws -> TestBinaries.Result {
            let config = dir.path + "/alertd.json"
            try JSONSerialization.data(withJSONObject: ["store": ["url": url]]).write(to: URL(fileURLWithPath: config))
            return try await self.check(config, stateDir: dir.path + "/state")
        }
        let fine = try await check(url)
        #expect(fine.exitCode == 0, "\(fine.stderr)")
        #expect(!fine.stderr.contains("holds a password"), "\(fine.stderr)")
        // Valid, but a password in the configuration file is worth a word.
        let withPassword = try await check(url.replacingOccurrences(of: "://", with: "://nobody:not-the-password@"))
        #expect(withPassword.stderr.contains("store.url holds a password"), "\(withPassword.stderr)")
        #expect(!withPassword.stderr.contains("not-the-password"), "\(withPassword.stderr)")
        let tables = try PostgresConnection(url: url, redactedURL: url).withLock { conn throws(PostgresError) in
            try conn.query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()").rows.count
        }
        #expect(tables == 0, "a check creates no tables")

        let nobody = try await check("postgresql://alertd@127.0.0.1:\(try TestDaemon.freePort())/alertd")
        #expect(nobody.exitCode == 65)
        #expect(nobody.stderr.contains("cannot be reached"), "\(nobody.stderr)")
        // Turned away at connect for what store.url names: said so, not "cannot be reached".
        let noDatabase = try await check("postgresql://alertd@127.0.0.1:\(server.port)/no_such_database")
        #expect(noDatabase.exitCode == 65)
        #expect(noDatabase.stderr.contains("the database in store.url does not exist") && !noDatabase.stderr.contains("cannot be reached"),
                "\(noDatabase.stderr)")
        let noUser = try await check("postgresql://no_such_user@127.0.0.1:\(server.port)/postgres")
        #expect(noUser.stderr.contains("the user in store.url does not exist"), "\(noUser.stderr)")

        try PostgresConnection(url: url, redactedURL: url).withLock { conn throws(PostgresError) in try conn.execute("CREATE TABLE alerts (x int)") }
        let foreign = try await check(url)
        #expect(foreign.exitCode == 65)
        #expect(foreign.stderr.contains("another program's tables"), "\(foreign.stderr)")
    }
}

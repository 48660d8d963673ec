import Foundation
import Testing
import Synchronization
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdLogging
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient
@testable import AlertdPOSIX

@Suite struct ConfigurationTests {
    func parse(_ json: String) throws -> DaemonConfiguration {
        try DaemonConfiguration.parse(Data(json.utf8), source: "test.json", stateDirectory: "/var/lib/alertd")
    }

    func problems(_ json: String) -> [String] {
        do {
            _ = try parse(json)
            return []
        } catch let error as ConfigurationError {
            return error.problems
        } catch {
            return ["\(error)"]
        }
    }

    /// A file read whole from its path; a path that is missing or a
    /// directory is refused by name, with nothing parsed.
    @Test func aConfigFileIsReadFromItsPathOrRefused() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/alertd.json"
        try Data(#"{"state_dir": "/srv/alertd", "retry": {"max_attempts": 3}}"#.utf8).write(to: URL(fileURLWithPath: file))
        let loaded = try DaemonConfiguration.load(from: file)
        #expect(loaded.stateDirectory == "/srv/alertd")
        #expect(loaded.retry.maxAttempts == 3)
        #expect(try DaemonConfiguration.load(from: file, stateDirectory: "/elsewhere").stateDirectory == "/elsewhere")
        // Named nowhere: the default, `$STATE_DIRECTORY` or the working directory's.
        let unnamed = try DaemonConfiguration.parse(Data(#"{"retry": {"max_attempts": 3}}"#.utf8))
        #expect(unnamed.stateDirectory == AlertdPaths.defaultStateDirectory(environment: ProcessInfo.processInfo.environment))
        #expect(unnamed.retry.maxAttempts == 3)
        #expect(throws: ConfigurationError.self) { try DaemonConfiguration.parse(Data(#"{"state_dir": 5}"#.utf8)) }
        // Why: a file not there reads otherwise than a directory or a FIFO,
        // which are refused unread (a FIFO in the file's place held a reload
        // in open(2) for good, and SIGTERM behind it).
        let fifo = dir + "/fifo.json"
        #expect(mkfifo(fifo, 0o600) == 0)
        let notAFile = "it is not a regular file (a directory, a FIFO or a device)"
        for (unreadable, why) in [(dir + "/missing.json", "No such file or directory"), (dir, notAFile), (fifo, notAFile)] {
            let problem = "cannot read the configuration file: \(why) (check the path given to --config, and that the user alertd runs as may read it)"
            let done = DispatchSemaphore(value: 0)
            let outcome = Mutex<Result<DaemonConfiguration, ConfigurationError>?>(nil)
            DispatchQueue.global().async {
                let result = Result { () throws(ConfigurationError) in try DaemonConfiguration.load(from: unreadable) }
                outcome.withLock { $0 = result }
                done.signal()
            }
            guard done.wait(timeout: .now() + 10) == .success else {
                Issue.record("reading \(unreadable) blocked")
                continue
            }
            #expect(throws: ConfigurationError(source: unreadable, problems: [problem])) { try outcome.withLock { $0 }?.get() }
        }
        // Nor do the templates file, read at a reload too, or a log file no one reads, reopened at one.
        let template = #expect(throws: TemplateFileError.self) { try AlertTemplateLibrary.load(from: fifo) }
        #expect(template?.problems == ["cannot read the template file: it is not a regular file (a directory, a FIFO or a device)"])
        guard case .failure(let error) = AppendFile.open(fifo) else {
            Issue.record("a FIFO no one reads was opened for the log")
            return
        }
        #expect(error == Errno(ENXIO))
    }

    /// A configuration file past 16 MB is refused, not read whole (1 GB took
    /// 2.1 GB); one every user may write is refused, since it can name
    /// commands for alertd to run.
    @Test func aHugeOrWorldWritableConfigFileIsRefused() throws {
        let dir = TemporaryDirectory()
        let huge = dir.path + "/huge.json", shared = dir.path + "/shared.json"
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: huge))
        try handle.truncate(atOffset: UInt64(DaemonConfiguration.largestFile + 1))
        try handle.close()
        #expect(throws: ConfigurationError(source: huge, problems: [
            "cannot read the configuration file: it is larger than 16 MB (check the path given to --config, and that the user alertd runs as may read it)",
        ])) { try DaemonConfiguration.load(from: huge) }
        try Data(#"{"retry": {"max_attempts": 3}}"#.utf8).write(to: URL(fileURLWithPath: shared))
        #expect(chmod(shared, 0o666) == 0)
        #expect(throws: ConfigurationError(source: shared, problems: [
            "the configuration file \(shared) may be written by every user (mode 0666), who could make alertd run any command; run: chmod o-w \(shared)",
        ])) { try DaemonConfiguration.load(from: shared) }
        #expect(chmod(shared, 0o664) == 0)
        #expect(try DaemonConfiguration.load(from: shared).retry.maxAttempts == 3)
    }

    @Test func aPostgreSQLStoreIsAURLOrAURLFileNeverBesideAPath() throws {
        let c = try parse(#"{"store": {"url": "postgresql://alertd@db.example:5432/alerts", "node": "a"}}"#)
        #expect(c.store.isPostgres)
        #expect(c.store.node == "a")
        #expect(try parse(#"{"store": {"url_file": "db.url"}}"#).store.urlFile == "db.url")
        #expect(try !parse("{}").store.isPostgres)
        let wrong = problems(#"{"store": {"url": "mysql://root:hunter2@db/x"}}"#)
        #expect(wrong.count == 1)
        #expect(wrong.first?.contains("store.url") == true)
        // The password is not repeated back, even in a refusal.
        #expect(wrong.first?.contains("hunter2") == false)
        #expect(problems(#"{"store": {"url": "postgresql://db/x", "url_file": "f"}}"#) == ["store: give url or url_file, not both"])
        #expect(problems(#"{"store": {"url": "postgresql://db/x", "path": "a.db"}}"#) == ["store: give path (SQLite) or url (PostgreSQL), not both"])
    }

    @Test func theTwoNodeExampleInTheClusterGuideParses() throws {
        let c = try parse(try DocSnippets("docs/CLUSTER.md").snippet("two-node-config"))
        #expect(c.store.urlFile == "/etc/alertd/db.url")
        #expect(c.dispatcher.claimLease == .seconds(30))
    }

    @Test func passwordsInStoreURLsAreRedactedAndTheRestKept() {
        #expect(URLRedaction.redactingPassword("postgresql://alertd:s3cr@t@db:5432/alerts") == "postgresql://alertd:***@db:5432/alerts")
        #expect(URLRedaction.redactingPassword("postgresql://alertd@db/alerts") == "postgresql://alertd@db/alerts")
        #expect(URLRedaction.redactingPassword("postgresql://db/alerts?user=a&password=x&sslmode=require")
                == "postgresql://db/alerts?user=a&password=***&sslmode=require")
        // libpq reads a password with a bare #, ? or / in it; so does the redaction.
        #expect(URLRedaction.redactingPassword("postgresql://alertd:PG#SECRET?pw@127.0.0.1:15432/alertd")
                == "postgresql://alertd:***@127.0.0.1:15432/alertd")
        #expect(URLRedaction.redactingPassword("postgresql://alertd:PGSLASH/PASS@db/alerts") == "postgresql://alertd:***@db/alerts")
        #expect(URLRedaction.hidingPassword(of: "postgres://alertd:PG2/SEC2@h/db", in: #"invalid integer value "PG2" for connection option "port""#)
                == #"invalid integer value "***" for connection option "port""#)
        #expect(URLRedaction.redactingPassword("postgresql://alertd:PG@PASS@db/alerts") == "postgresql://alertd:***@db/alerts")
        // Any query parameter but libpq's plain ones, however it is spelt: libpq decodes `%70assword`.
        #expect(URLRedaction.redactingPassword("postgresql://a@db/x?sslmode=disable&sslpassword=KEYPASS99&%70assword=PW2&passwd=PW3&Port=5")
                == "postgresql://a@db/x?sslmode=disable&sslpassword=***&%70assword=***&passwd=***&Port=5")
    }

    /// libpq's messages quote what it could not read of a URL; those quotes
    /// lose the password, whole, decoded or in pieces.
    @Test func libpqMessagesLoseThePasswordTheyQuote() {
        #expect(URLRedaction.hidingPassword(of: "postgresql://u:PG@PASS@127.0.0.1/db",
                                            in: #"could not translate host name "PASS@127.0.0.1" to address"#)
                == #"could not translate host name "***@127.0.0.1" to address"#)
        #expect(URLRedaction.hidingPassword(of: "postgresql://u:PGpct%zzPASS@db/x", in: #"invalid percent-encoded token: "PGpct%zzPASS""#)
                == #"invalid percent-encoded token: "***""#)
        #expect(URLRedaction.hidingPassword(of: "postgresql://u:s%40cret99@db/x", in: #"password authentication failed: s@cret99"#)
                == "password authentication failed: ***")
        #expect(URLRedaction.hidingPassword(of: "postgresql://db/x?password=hunter22", in: "bad password hunter22") == "bad password ***")
        #expect(URLRedaction.hidingPassword(of: "postgresql://db/x?sslmode=require&passwd=hunter22", in: #"invalid connection option "passwd=hunter22", sslmode require"#)
                == #"invalid connection option "passwd=***", sslmode require"#)
        #expect(URLRedaction.hidingPassword(of: "postgresql://alertd@db/x", in: "connection refused") == "connection refused")
    }

    @Test func emptyConfigIsAWorkingDefault() throws {
        let c = try parse("{}")
        #expect(c.presenters.map(\.name) == ["terminal", "log"])
        #expect(c.defaultRoute.presenters == ["terminal", "log"])
        #expect(c.api.listen == nil)
        #expect(c.api.socketMode == 0o660)
        #expect(c.resolvedStorePath == "/var/lib/alertd/alertd.db")
        #expect(c.resolvedSocketPath(environment: [:]) == "/var/lib/alertd/alertd.sock")
        #expect(c.resolvedSocketPath(environment: ["RUNTIME_DIRECTORY": "/run/alertd"]) == "/run/alertd/alertd.sock")
    }

    @Test func fullConfigParses() throws {
        let c = try parse("""
        {
          "api": {"socket": "/run/a.sock", "socket_mode": "0600", "listen": "127.0.0.1:9190", "token_file": "/etc/alertd/token"},
          "store": {"path": "/data/alerts.db"},
          "presenters": {
            "console": {"type": "terminal", "colour": "never"},
            "file": {"type": "log", "path": "alerts.log", "format": "logfmt"},
            "chat": {"type": "webhook", "url": "https://chat.example/hook", "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                     "timeout": "3s", "connect_timeout": "500ms", "max_concurrency": 8, "headers": {"X-Team": "ops"}}
          },
          "routes": [
            {"match": {"labels": {"env": "prod"}, "min_severity": "error"}, "presenters": ["chat"], "continue": true},
            {"match": {"severity": ["info"]}, "presenters": ["file"]}
          ],
          "default_route": {"presenters": ["console", "file"]},
          "retry": {"initial_delay": "2s", "factor": 3, "max_delay": "5m", "jitter": false, "max_attempts": 10, "max_age": "12h"},
          "limits": {"max_body_bytes": 65536, "max_batch": 100, "max_labels": 10},
          "dispatcher": {"shutdown_grace": "3s"}
        }
        """)
        #expect(c.api.socketMode == 0o600)
        #expect(c.api.listen == "127.0.0.1:9190")
        #expect(c.resolvedStorePath == "/data/alerts.db")
        let chat = try #require(c.presenter(named: "chat"))
        let hook = try #require(chat.configuration as? WebhookPresenterConfiguration)
        #expect(hook.url == "https://chat.example/hook" && hook.secretFile == nil)
        #expect(hook.timeout == .seconds(3) && hook.connectTimeout == .milliseconds(500) && chat.maxConcurrency == 8)
        #expect(hook.headers == ["X-Team": "ops"])
        #expect(c.presenter(named: "file")?.configuration.isEqual(to: LogPresenterConfiguration(destination: .file("alerts.log"), format: .logfmt)) == true)
        #expect(c.presenter(named: "console")?.configuration.isEqual(to: TerminalPresenterConfiguration(colour: .never)) == true)
        #expect(c.routes[0].minSeverity == .error && c.routes[0].continueMatching)
        #expect(c.routes[1].severities == [.info])
        #expect(c.retry.initialDelay == .seconds(2) && c.retry.factor == 3 && !c.retry.jitter && c.retry.maxAttempts == 10)
        #expect(c.limits.maxBatch == 100 && c.limits.alert.maxLabels == 10)
        #expect(c.dispatcher.shutdownGrace == .seconds(3))
    }

    /// Routes take Alertmanager's matchers, regexes included, as silences
    /// and inhibition rules do; a bad one is named by its place.
    @Test func routesTakeAlertmanagersMatchers() throws {
        let c = try parse(#"""
        {
          "presenters": {"db": {"type": "log"}, "rest": {"type": "log"}},
          "routes": [{"match": {"matchers": ["team=~\"t9[0-9]\"", "env!=\"dev\""]}, "presenters": ["db"]}],
          "default_route": {"presenters": ["rest"]}
        }
        """#)
        let route = try #require(c.routes.first)
        func spec(_ labels: [String: String]) throws -> AlertSpec { try AlertSpec.Builder().title("t").labels(labels).build().get() }
        #expect(route.matches(try spec(["team": "t93"])))
        #expect(route.matches(try spec(["team": "t90", "env": "prod"])))
        #expect(!route.matches(try spec(["team": "t93", "env": "dev"])))
        #expect(!route.matches(try spec(["team": "t100"])))
        #expect(!route.matches(try spec([:])))
        let p = problems(#"{"presenters": {"db": {"type": "log"}}, "routes": [{"match": {"matchers": ["team=~\"(\""]}, "presenters": ["db"]}]}"#)
        #expect(p.count == 1 && p.first?.hasPrefix("routes[0].match.matchers[0]:") == true, "\(p)")
    }

    /// An inhibition rule's matcher lists: each required, none empty, each
    /// problem said once.
    @Test func inhibitionMatcherListsAreCheckedOnce() {
        let missing = problems(#"{"inhibit": [{"source_matchers": ["a=\"b\""]}]}"#)
        #expect(missing.count == 1 && missing.first?.contains("target_matchers: is required") == true, "\(missing)")
        let empty = problems(#"{"inhibit": [{"source_matchers": ["a=\"b\""], "target_matchers": []}]}"#)
        #expect(empty.count == 1 && empty.first?.contains("target_matchers: needs at least one matcher") == true, "\(empty)")
        let wrongType = problems(#"{"inhibit": [{"source_matchers": ["a=\"b\""], "target_matchers": "c=\"d\""}]}"#)
        #expect(wrongType.count == 1 && wrongType.first?.contains("target_matchers") == true, "\(wrongType)")
    }

    /// An entry may hold several matchers, in braces or not, as rules copied
    /// from Alertmanager do.
    @Test func aMatcherEntryMayHoldSeveralAsInAlertmanager() throws {
        let config = try parse(#"{"inhibit": [{"source_matchers": ["{alertname=\"NodeDown\", severity=\"critical\"}"], "target_matchers": ["severity=\"warning\",team=~\"db|web\""], "equal": ["instance"]}]}"#)
        let rule = try #require(config.inhibitRules.first)
        #expect(rule.sourceMatchers.map(\.description) == [#"alertname="NodeDown""#, #"severity="critical""#])
        #expect(rule.targetMatchers.map(\.description) == [#"severity="warning""#, #"team=~"db|web""#])
        let p = problems(#"{"inhibit": [{"source_matchers": ["{a=\"b\", c}"], "target_matchers": ["d=\"e\""]}]}"#)
        #expect(p.count == 1 && p.first?.hasPrefix("inhibit[0].source_matchers[0]:") == true, "\(p)")
    }

    /// A webhook header that no request could carry is refused with the
    /// config, not at every delivery to that presenter.
    @Test func webhookHeadersThatCannotBeSentAreRefusedWithTheConfig() {
        func headers(_ h: String) -> [String] {
            problems(#"{"presenters": {"h": {"type": "webhook", "url": "http://127.0.0.1:9/x", "headers": \#(h)}}}"#)
        }
        #expect(headers(#"{"X-Team": "ops", "Authorization": "Bearer a\tb"}"#).isEmpty)
        for bad in [#"{"X-A": "a\r\nX-Evil: 1"}"#, #"{"X-A": "a\nb"}"#, #"{"X-A": "a\u0000b"}"#, #"{"X-A": "a\u0001b"}"#,
                    #"{"X-A": "a\u007fb"}"#, #"{"": "v"}"#, #"{"Bad Name": "v"}"#, #"{"X\rY": "v"}"#, #"{"Xé": "v"}"#,
                    #"{"X:Y": "v"}"#] {
            let p = headers(bad)
            #expect(p.count == 1 && p.first?.hasPrefix("presenters.h.headers: header") == true, "\(bad): \(p)")
            #expect(!(p.first ?? "").unicodeScalars.contains { $0.value < 0x20 }, "\(bad): \(p)")
        }
    }

    /// `null` is the same as leaving the key out, for every key: sections
    /// that read their own nulls had refused `presenters`, `routes`,
    /// `default_route`, `inhibit`, `group_by` and `rate` set to null.
    @Test func aKeySetToNullIsAKeyLeftOut() throws {
        let config = try parse(#"{"presenters": null, "routes": null, "default_route": null, "inhibit": null, "retry": null}"#)
        #expect(config.presenters.map(\.name) == DaemonConfiguration().presenters.map(\.name))
        #expect(config.routes.isEmpty && config.inhibitRules.isEmpty)
        let nested = try parse(#"""
            {"presenters": {"w": {"type": "webhook", "url": "http://127.0.0.1:9/x", "rate": null, "secret": null}},
             "routes": [{"presenters": ["w"], "group_by": null, "match": null}], "api": {"listen": null}}
            """#)
        #expect(nested.routes.count == 1 && nested.routes.first?.grouping == nil)
        #expect(nested.presenters.map(\.name) == ["w"] && nested.presenters.first?.rateLimit == nil)
        // A list's null is not a key: a route that is null is still refused.
        #expect(problems(#"{"routes": [null]}"#) == ["routes[0]: must be an object"])
        // Nor is a null in a map of data: a label matched against null would have matched every alert.
        let label = problems(#"{"presenters": {"w": {"type": "webhook", "url": "http://127.0.0.1:9/x"}}, "routes": [{"presenters": ["w"], "match": {"labels": {"team": null}}}]}"#)
        #expect(label.count == 1 && label.first?.hasPrefix("routes[0].match.labels") == true, "\(label)")
        let header = problems(#"{"presenters": {"w": {"type": "webhook", "url": "http://127.0.0.1:9/x", "headers": {"X-Team": null}}}}"#)
        #expect(header.count == 1 && header.first?.hasPrefix("presenters.w.headers") == true, "\(header)")
    }

    /// Label names in `inhibit[].equal` are checked: a label missing on both
    /// sides counts as equal, so a misspelt one widened the rule unseen.
    @Test func anInhibitionsEqualLabelsAreLabelNames() {
        func rule(_ equal: String) -> String {
            #"{"inhibit": [{"source_matchers": ["a=\"b\""], "target_matchers": ["c=\"d\""], "equal": [\#(equal)]}]}"#
        }
        #expect(problems(rule(#""instance", "job""#)).isEmpty)
        #expect(problems(rule(#""instance", "1 bad""#))
                == [#"inhibit[0].equal[1]: "1 bad" is not a label name (letters, digits and _, not starting with a digit)"#])
    }

    /// A socket mode is octal digits; `UInt16(_:radix:)` alone took "+660".
    @Test func aSocketModeIsOctalDigitsOnly() throws {
        #expect(try parse(#"{"api": {"socket_mode": "0640"}}"#).api.socketMode == 0o640)
        for bad in ["+660", "-0", "0o660", "0778", "1777", ""] {
            #expect(problems(#"{"api": {"socket_mode": "\#(bad)"}}"#) == [#"api.socket_mode: must be an octal mode such as "0660", got "\#(bad)""#], "\(bad)")
        }
    }

    @Test func everyProblemIsReportedWithItsPath() {
        let p = problems("""
        {
          "presenters": {"chat": {"type": "webhook", "url": "ftp://x", "timeout": "soon"}, "x": {"type": "pager"}},
          "routes": [{"presenters": ["chat"]}, {"presenters": ["chat"]}, {"presenters": ["opz"], "match": {"severity": ["urgent"]}}],
          "retry": {"jitter": 1, "factr": 2},
          "apii": {}
        }
        """)
        #expect(p.contains("presenters.chat.url: must be an http or https URL, got \"ftp://x\""))
        // A URL that is refused is named by its origin: the rest may be a credential.
        #expect(problems(#"{"presenters": {"w": {"type": "webhook", "url": "http://user:W3PASS@[::1:99999/x?k=W3QSEC"}}}"#)
                == ["presenters.w.url: must be an http or https URL, got \"http://[::1:99999…\""])
        #expect(problems(#"{"presenters": {"w": {"type": "webhook", "url": "ftp://user:FTPPASS@files.example/up"}}}"#)
                == ["presenters.w.url: must be an http or https URL, got \"ftp://files.example…\""])
        // Even when the password holds what would end the authority.
        for (url, shown) in [("http://alice:s3cr/et@host:99999/", "http://host:99999…"), ("https://svc:Tok3n?rest@exa mple.com/", "https://exa mple.com…"),
                             ("http://user:W6P#A?S/S@host/x", "http://host…")] {
            let p = problems(#"{"presenters": {"w": {"type": "webhook", "url": "\#(url)"}}}"#)
            let blank = url.contains(" ") ? " (a URL has no spaces: write one as %20)" : ""
            #expect(p == ["presenters.w.url: must be an http or https URL, got \"\(shown)\"\(blank)"], "\(p)")
        }
        // URLComponents takes a space; libcurl refuses it at every delivery.
        #expect(problems(#"{"presenters": {"w": {"type": "webhook", "url": "http://a b/"}}}"#)
                == ["presenters.w.url: must be an http or https URL, got \"http://a b…\" (a URL has no spaces: write one as %20)"])
        #expect(problems(#"{"presenters": {"w": {"type": "webhook", "url": "http://127.0.0.1:1/a\tb"}}}"#).count == 1)
        // A store URL whose password holds a bare / would be misread by libpq, password and all.
        let slash = problems(#"{"store": {"url": "postgres://alertd:PG2/SEC2@127.0.0.1:1/db"}}"#)
        #expect(slash == ["store.url: the password holds a bare `/`, which libpq reads as the end of the host and port; write it as %2F"])
        #expect(problems(#"{"store": {"url": "postgres://alertd:PG2%2FSEC2@127.0.0.1:1/db"}}"#).isEmpty)
        // What libpq cannot read is the configuration's problem, not a database that "cannot be reached".
        let unreadable = problems(#"{"store": {"url": "postgres://alertd:PGpct%zzSECRET@127.0.0.1:1/db"}}"#)
        #expect(unreadable.count == 1 && unreadable[0].hasPrefix("store.url: libpq cannot read it: ") && !unreadable[0].contains("SECRET"),
                "\(unreadable)")
        #expect(problems(#"{"store": {"url": "postgres://alertd@127.0.0.1:1/db?passwd=x"}}"#).first?.contains("passwd") == true)
        // A duration no clock can hold is refused by name; 1e300 once crashed the check.
        for value in ["1e300", "\"9223372036854775807s\"", "\"36501d\""] {
            #expect(problems(#"{"retry": {"max_age": \#(value)}}"#) == ["retry.max_age: must be at most 100 years (36500d)"], "\(value)")
        }
        #expect(problems(#"{"retry": {"max_age": "36500d", "max_delay": 3153600000}}"#).isEmpty)
        // A route matching no severity at all could never take an alert.
        #expect(problems(#"{"presenters": {"a": {"type": "log"}}, "routes": [{"match": {"severity": []}, "presenters": ["a"]}]}"#)
                == ["routes[0].match.severity: lists no severity, so the route would match no alert; name at least one, or leave it out"])
        #expect(p.contains { $0.hasPrefix("presenters.chat.timeout: `soon` is not a duration") })
        // A duration that is zero is one, too short; a setting with a word besides durations names it.
        #expect(problems(#"{"retry": {"max_age": "0s"}}"#) == ["retry.max_age: must be more than zero"])
        #expect(problems(#"{"store": {"retention": "never"}}"#)
                == [#"store.retention: `never` is not a duration or "forever"; write e.g. "500ms", "1s", "10m", "24h""#])
        // A type's typo gets a suggestion, and routes naming its presenter are not told it does not exist.
        let typo = problems(#"{"presenters": {"hook": {"type": "webhok", "url": "https://x.example"}}, "default_route": {"presenters": ["hook"]}}"#)
        #expect(typo.count == 1 && typo[0].hasPrefix(#"presenters.hook.type: unknown presenter type "webhok" (did you mean "webhook"?); one of "#), "\(typo)")
        #expect(p.contains { $0.hasPrefix("presenters.x.type: unknown presenter type \"pager\"") })
        #expect(p.contains { $0.hasPrefix("routes[2].presenters[0]: no presenter named \"opz\"") })
        #expect(p.contains { $0.hasPrefix("routes[2].match.severity[0]: unknown severity \"urgent\"") })
        #expect(p.contains("retry.jitter: must be true or false"))
        #expect(p.contains { $0.hasPrefix("retry.factr: unknown key (did you mean \"factor\"?)") })
        #expect(p.contains { $0.hasPrefix("apii: unknown key (did you mean \"api\"?)") })
        #expect(p.count == 8)
    }

    /// A URL with a scheme other than http or https was said to have no
    /// scheme when it had no `://`; the scheme is named now, and only it:
    /// the rest may be a credential.
    @Test func aWebhookURLWithAnotherSchemeNamesIt() {
        func urlProblems(_ url: String) -> [String] { problems(#"{"presenters": {"w": {"type": "webhook", "url": "\#(url)"}}}"#) }
        #expect(urlProblems("htp:/nope") == [#"presenters.w.url: must be an http or https URL, got the scheme "htp:", which is neither"#])
        #expect(urlProblems("mailto:ops@example.com") == [#"presenters.w.url: must be an http or https URL, got the scheme "mailto:", which is neither"#])
        #expect(urlProblems("https:/receiver.example/hook") == [#"presenters.w.url: must be an http or https URL, got "https:" without "//" and a host"#])
        // A host and port is no scheme.
        for url in ["receiver.example/hook", "receiver.example:8443/hook"] {
            #expect(urlProblems(url) == ["presenters.w.url: must be an http or https URL, got text with no scheme (such as https://)"], "\(url)")
        }
    }

    /// A listen address whose port is past 65535 says so, not only that it must be host:port.
    @Test func aListenPortOutOfRangeIsSaidToBe() {
        #expect(problems(#"{"api": {"listen": "localhost:99999"}}"#)
                == [#"api.listen: port 99999 of "localhost:99999" is out of range; a port is at most 65535"#])
        #expect(problems(#"{"api": {"listen": "[::1]:70000"}}"#)
                == [#"api.listen: port 70000 of "[::1]:70000" is out of range; a port is at most 65535"#])
        #expect(problems(#"{"api": {"listen": "localhost:http"}}"#)
                == [#"api.listen: must be host:port such as "127.0.0.1:9190", got "localhost:http""#])
    }

    /// A route's `severity` given as one string is a list of one, or meant as `min_severity`.
    @Test func aSingleSeverityInARouteGetsAHint() {
        let p = problems(#"{"presenters": {"a": {"type": "log"}}, "routes": [{"match": {"severity": "critical"}, "presenters": ["a"]}]}"#)
        #expect(p == [#"routes[0].match.severity: must be a list of strings; write ["critical"], or "min_severity": "critical" for critical and above"#], "\(p)")
        // Another spelling of one is still that one; what is none gets a list to copy.
        let warning = problems(#"{"presenters": {"a": {"type": "log"}}, "routes": [{"match": {"severity": "Warning"}, "presenters": ["a"]}]}"#)
        #expect(warning.first?.hasSuffix(#"write ["warning"], or "min_severity": "warning" for warning and above"#) == true, "\(warning)")
        let two = problems(#"{"presenters": {"a": {"type": "log"}}, "routes": [{"match": {"severity": "warning,critical"}, "presenters": ["a"]}]}"#)
        #expect(two.first?.hasSuffix(#"write a list such as ["warning", "critical"], or "min_severity": "warning" for warning and above"#) == true, "\(two)")
    }

    @Test func malformedJSONIsOneClearProblem() {
        #expect(problems("{\"api\": ").first?.hasPrefix("not valid JSON") == true)
        #expect(problems("[]").first?.contains("must be an object") == true)
    }

    @Test func listenAddressesParse() {
        #expect(ListenAddress("127.0.0.1:9190") == ListenAddress("127.0.0.1:9190"))
        #expect(ListenAddress("[::1]:80")?.host == "::1")
        #expect(ListenAddress("localhost") == nil)
        #expect(ListenAddress(":80") == nil)
        #expect(ListenAddress("h:99999") == nil)
    }
}

/// A reload's log line says what it changed.
@Suite struct ConfigurationChangesTests {
    @Test func namesPresentersByNameAndTheOtherSectionsByKey() throws {
        func terminal(_ name: String, maxConcurrency: Int? = nil) -> PresenterDefinition {
            PresenterDefinition(name: name, configuration: TerminalPresenterConfiguration(), maxConcurrency: maxConcurrency)
        }
        var old = DaemonConfiguration(stateDirectory: "/var/lib/alertd")
        old.presenters = [terminal("a"), terminal("b")]
        #expect(old.changes(from: old).isEmpty)
        var new = old
        new.presenters = [terminal("b", maxConcurrency: 3), terminal("c")]
        new.retry.maxAttempts = 5
        new.limits.maxBatch += 1
        #expect(new.changes(from: old) == ["presenters added: c", "presenters removed: a", "presenters changed: b", "retry, limits"])
    }
}

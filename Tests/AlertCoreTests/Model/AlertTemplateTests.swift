import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdLogging
@testable import AlertdCommandLine
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

@Suite struct AlertTemplateTests {
    static let disk = AlertTemplate(
        name: "disk_full", title: "Disk full on {host}", message: "{mount} at {pct}%", severity: "{severity}",
        labels: ["host": "{host}", "team": "storage"],
        confirm: AlertAction(label: "Expand", url: "https://ops.example/expand?host={host}"),
        dedupKey: "disk:{host}:{mount}", expiresAfter: "{ttl}")

    static let values = ["host": "db1", "mount": "/var", "pct": "97", "severity": "critical", "ttl": "30m"]

    @Test func fillsEveryFieldFromValues() throws {
        let spec = try Self.disk.fill(.init(), values: Self.values).build().get()
        #expect(spec.title == "Disk full on db1")
        #expect(spec.message == "/var at 97%")
        #expect(spec.severity == .critical)
        #expect(spec.labels == ["host": "db1", "team": "storage"])
        #expect(spec.confirm == AlertAction(label: "Expand", url: "https://ops.example/expand?host=db1"))
        #expect(spec.dedupKey == "disk:db1:/var")
        #expect(spec.expiresAfter == .minutes(30))
        #expect(Self.disk.placeholders == ["host", "mount", "pct", "severity", "ttl"])
    }

    /// A value put into a handler URL is data: `x&y=1#/../other` added a
    /// query parameter and a fragment to the handler the template named.
    @Test func valuesInAHandlerURLArePercentEncoded() throws {
        var values = Self.values
        values["host"] = "x&y=1#/../other é"
        let spec = try Self.disk.fill(.init(), values: values).build().get()
        #expect(spec.confirm?.url == "https://ops.example/expand?host=x%26y%3D1%23%2F..%2Fother%20%C3%A9")
        // Everywhere else the value is the text as typed.
        #expect(spec.title == "Disk full on x&y=1#/../other é")
        #expect(AlertTemplate.percentEncoded("A-z_0.9~") == "A-z_0.9~")
    }

    /// `.` and `..` are unreserved, so percent-encoding leaves them, and a
    /// server reads `%2E` as `.` anyway: values that make a whole segment
    /// empty, `.` or `..` move the handler's path, so they are refused.
    /// Within a segment they are text.
    @Test func aDotSegmentValueInAHandlerURLIsRefused() throws {
        let t = AlertTemplate(name: "t", title: "{host} down", cancel: AlertAction(label: "Skip", url: "https://ops.example/ok/{host}/skip"))
        for dots in [".", "..", ""] {
            let errors = try #require(t.fill(.init(), values: ["host": dots]).build().failure)
            #expect(errors.codes == [.invalidTemplateValue])
            #expect(errors.errors[0].message.contains("puts `host` in a handler URL"))
        }
        let split = AlertTemplate(name: "t", title: "x", cancel: AlertAction(label: "Rm", url: "https://ops.example/files/{name}.{ext}/delete"))
        #expect(try #require(split.fill(.init(), values: ["name": "", "ext": ""]).build().failure).codes == [.invalidTemplateValue])
        #expect(try split.fill(.init(), values: ["name": "a", "ext": ""]).build().get().cancel?.url == "https://ops.example/files/a./delete")
        // A template's own empty segment or trailing slash is its author's.
        let own = AlertTemplate(name: "t", title: "x", cancel: AlertAction(label: "Rm", url: "https://ops.example//a/{x}/"))
        #expect(try own.fill(.init(), values: ["x": "b"]).build().get().cancel?.url == "https://ops.example//a/b/")
        #expect(try t.fill(.init(), values: ["host": "db..1"]).build().get().cancel?.url == "https://ops.example/ok/db..1/skip")
        // A cancel given outright takes no value from the template's URL.
        #expect(try t.fill(.init().cancel("Mine", handler: "https://ops.example/mine"), values: ["host": ".."]).build().get().title == ".. down")
    }

    @Test func explicitFieldsWin() throws {
        let explicit = AlertSpec.Builder().title("Mine").severity(.warning).label("team", "db").expires(after: .hours(1))
        let spec = try Self.disk.fill(explicit, values: Self.values).build().get()
        #expect(spec.title == "Mine")
        #expect(spec.severity == .warning)
        #expect(spec.labels == ["host": "db1", "team": "db"])
        #expect(spec.expiresAfter == .hours(1))
        #expect(spec.message == "/var at 97%")
    }

    @Test func missingPlaceholdersAreReportedTogether() throws {
        let errors = try #require(Self.disk.fill(.init(), values: ["mount": "/var"]).build().failure)
        #expect(errors.codes == [.missingTemplateValues])
        #expect(errors.errors[0].field == "template")
        #expect(errors.errors[0].message.contains("needs values for: host, pct, severity, ttl."))
    }

    @Test func placeholdersOfOverriddenFieldsNeedNoValue() throws {
        let template = AlertTemplate(name: "t", title: "Down: {host}", message: "since {time}")
        let spec = try template.fill(.init().title("Down: everything"), values: ["time": "noon"]).build().get()
        #expect(spec.title == "Down: everything")
        #expect(spec.message == "since noon")
    }

    @Test func valuesAreInsertedAsTyped() throws {
        let template = AlertTemplate(name: "t", title: "{a} and {b} and {not a placeholder} {}")
        let spec = try template.fill(.init(), values: ["a": "{b}", "b": "x"]).build().get()
        #expect(spec.title == "{b} and x and {not a placeholder} {}")
    }

    @Test func invalidFilledValuesAreReportedWithTheirSource() throws {
        let errors = try #require(Self.disk.fill(.init(), values: Self.values.merging(["severity": "huge"]) { $1 }).build().failure)
        #expect(errors.codes == [.invalidSeverity])
        #expect(errors.errors[0].message.hasPrefix("`template disk_full: severity` is not a severity: `huge`."))
    }

    @Test func libraryLoadsTemplates() throws {
        let library = try AlertTemplateLibrary.parse(Data("""
            {"templates": {
              "disk_full": {"title": "Disk full on {host}", "labels": {"host": "{host}"},
                            "confirm": {"label": "Expand", "url": "https://ops.example/x", "method": "put"}},
              "backup": {"title": "Backup done", "expires_after": "1h"}
            }}
            """.utf8))
        #expect(library.names == ["backup", "disk_full"])
        #expect(library["disk_full"]?.confirm?.method == .put)
        #expect(library["backup"]?.expiresAfter == "1h")
        #expect(library["nope"] == nil)
    }

    @Test func libraryReportsEveryProblem() {
        let json = """
            {"templates": {
              "a": {"title": 1, "labels": {"x": 2}, "colour": "red"},
              "b": {"confirm": {"label": "OK"}, "cancel": {"label": "No", "url": "https://x.example", "method": "DELETE"}},
              "c": "not an object",
              "d": {"title": "t", "severity": "nope", "expires_after": "soon"},
              "e": {"title": "t", "severity": "{{sev}}", "expires_after": "{{ttl}}"}
            }}
            """
        #expect {
            try AlertTemplateLibrary.parse(Data(json.utf8), path: "t.json")
        } throws: { error in
            guard let error = error as? TemplateFileError else { return false }
            return error.path == "t.json" && error.problems == [
                "templates.a.colour: unknown field; the fields are title, message, severity, labels, confirm, cancel, dedup_key, expires_after",
                "templates.a.labels.x: must be a string, not a number",
                "templates.a.title: must be a string, not a number",
                "templates.b.cancel.method: must be one of POST, PUT, PATCH, GET",
                "templates.b.confirm: needs url: an action has label, url and optionally method",
                "templates.c: must be an object",
                "templates.d.expires_after: `soon` is not a duration. \(AlertDuration.spellingHint)",
                "templates.d.severity: `nope` is not a severity; use one of: \(Severity.spellings)",
            ]
        }
    }

    /// Each wrong part is named, and `null` is a field left out, as in the
    /// configuration file: a confirm with an extra key was "must be an
    /// object with string fields label and url", its key never named, and a
    /// label value's wrong type hid the next label's bad name.
    @Test func libraryNamesEachWrongPartAndTakesNullAsLeftOut() {
        let json = """
            {"templates": {
              "a": {"title": "t", "message": null, "labels": {"host": 3, "1bad": "x"},
                    "confirm": {"label": "OK", "url": "https://x.example", "extra": "y"},
                    "cancel": {"label": "No", "url": "https://x.example", "method": null}, "expires_after": 30}
            }}
            """
        #expect(throws: TemplateFileError(path: "t.json", problems: [
            "templates.a.confirm.extra: unknown field; an action has label, url and optionally method",
            "templates.a.expires_after: must be a string, e.g. \"30m\", not a number",
            "templates.a.labels.1bad: `1bad` is not a valid label name: use letters, digits and underscores, not starting with a digit (e.g. `host`, `env_name`).",
            "templates.a.labels.host: must be a string, not a number",
        ])) {
            try AlertTemplateLibrary.parse(Data(json.utf8), path: "t.json")
        }
        let fine = #"{"templates": {"a": {"title": "t", "message": null, "cancel": {"label": "No", "url": "https://x.example", "method": null}}}}"#
        #expect(throws: Never.self) { try AlertTemplateLibrary.parse(Data(fine.utf8), path: "t.json") }
    }

    /// Label names are used as written, only values filled: a name no alert
    /// may have is refused with the file, not at every use of the template.
    @Test func libraryRefusesLabelNamesNoAlertMayHave() {
        #expect(throws: TemplateFileError(path: "t.json", problems: [
            "templates.a.labels.__x: Label names starting with `__` are reserved; rename `__x`.",
            "templates.a.labels.{k}: `{k}` is not a valid label name: use letters, digits and underscores, not starting with a digit (e.g. `host`, `env_name`). Placeholders fill values, not names.",
        ])) {
            try AlertTemplateLibrary.parse(Data(#"{"templates": {"a": {"title": "t", "labels": {"{k}": "{v}", "__x": "1", "ok": "{v}"}}}}"#.utf8), path: "t.json")
        }
    }

    /// What no value fills is judged under the daemon's limits when the file
    /// loads: a template that breaks them would fail every use. What a
    /// placeholder fills can only be judged filled, so it is left alone.
    @Test func fixedPartsAreJudgedUnderTheDaemonsLimits() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-templates-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.path + "/t.json"
        var many: [String: String] = [:]
        for i in 0..<5 { many["l\(i)"] = i < 2 ? "{v\(i)}" : "fixed" }
        let file: [String: Any] = ["templates": [
            "many": ["title": "t", "labels": many],
            "long": ["title": String(repeating: "t", count: 30), "labels": ["env": String(repeating: "e", count: 20) + "\u{7}"],
                     "expires_after": "2d"],
            "filled": ["title": "{title}", "message": "{m}", "labels": ["env": "{env}"],
                       "confirm": ["label": "{a}", "url": "{url}"], "cancel": ["label": "{b}", "url": "{url}"]],
            "ok": ["labels": ["env": "prod"], "confirm": ["label": "Go", "url": "https://ops.example/go"]],
        ]]
        try JSONSerialization.data(withJSONObject: file).write(to: URL(fileURLWithPath: path))
        var limits = AlertSpecLimits()
        limits.maxLabels = 4
        limits.maxTitleLength = 20
        limits.maxLabelValueLength = 10
        limits.maxExpiry = .seconds(3600)
        #expect(throws: TemplateFileError.self) { try AlertTemplateLibrary.load(from: path, limits: limits) }
        do {
            _ = try AlertTemplateLibrary.load(from: path, limits: limits)
        } catch {
            let problems = error.problems
            #expect(problems.count == 5, "\(problems)")
            #expect(problems.contains { $0.hasPrefix("templates.many.labels: The alert has 5 labels; the limit is 4.") }, "\(problems)")
            #expect(problems.contains { $0.hasPrefix("templates.long.title: ") }, "\(problems)")
            #expect(problems.filter { $0.hasPrefix("templates.long.labels.env: ") }.count == 2, "\(problems)")
            #expect(problems.contains { $0.hasPrefix("templates.long.expires_after: ") }, "\(problems)")
            #expect(!problems.contains { $0.hasPrefix("templates.filled") || $0.hasPrefix("templates.ok") }, "\(problems)")
        }
        // Without the daemon's limits (alertctl validate) the file is read as it is.
        #expect(try AlertTemplateLibrary.load(from: path).names == ["filled", "long", "many", "ok"])
        // Under the default limits only the control character is left: it is no limit's to raise.
        #expect(throws: TemplateFileError(path: path, problems: [
            "templates.long.labels.env: The value of label `env` contains U+0007 (a control character); it must be one line of plain text. "
                + "Remove the character (terminal escapes, direction overrides and invisible characters change what a reader sees).",
        ])) { try AlertTemplateLibrary.load(from: path, limits: AlertSpecLimits()) }
    }

    @Test func libraryRejectsBadFiles() {
        #expect(throws: TemplateFileError.self) { try AlertTemplateLibrary.parse(Data("{".utf8)) }
        #expect(throws: TemplateFileError(path: "<templates>", problems: [
            "expected an object with one key, \"templates\", mapping names to templates",
        ])) { try AlertTemplateLibrary.parse(Data(#"{"templates": {}, "extra": 1}"#.utf8)) }
        #expect(throws: TemplateFileError(path: "/nonexistent/t.json", problems: [
            "cannot read the template file: there is no such file",
        ])) { try AlertTemplateLibrary.load(from: "/nonexistent/t.json") }
        #expect(throws: TemplateFileError(path: "/tmp", problems: [
            "cannot read the template file: it is not a regular file (a directory, a FIFO or a device)",
        ])) { try AlertTemplateLibrary.load(from: "/tmp") }
    }

    /// A link to a template file is read (a Kubernetes ConfigMap's files
    /// are links); a file past 16 MB is refused, not read whole.
    @Test func aLinkIsFollowedAndAHugeFileRefused() throws {
        let dir = TemporaryDirectory()
        let target = dir.path + "/real.json", link = dir.path + "/templates.json", huge = dir.path + "/huge.json"
        try Data(#"{"templates": {"disk": {"title": "Disk full on {host}"}}}"#.utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(try AlertTemplateLibrary.load(from: link).names == ["disk"])
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: huge))
        try handle.truncate(atOffset: UInt64(AlertTemplateLibrary.largestFile + 1))
        try handle.close()
        #expect(throws: TemplateFileError(path: huge, problems: ["cannot read the template file: it is larger than 16 MB"])) {
            try AlertTemplateLibrary.load(from: huge)
        }
    }
}

import Foundation
import Testing
@testable import AlertdPOSIX
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

@Suite struct TemplatesAndPreflightTests {
    static let templates = """
        {"templates": {"disk_full": {"title": "Disk full on {host}", "severity": "critical",
                                     "labels": {"host": "{host}"}, "dedup_key": "disk:{host}"},
                       "restart": {"title": "Restart {host}?", "confirm": {"label": "Go", "url": "https://ops.example/run/{host}"}}}}
        """

    @Test func theAPIFillsConfiguredTemplates() async throws {
        let files = TemporaryDirectory()
        try Self.templates.write(toFile: files.path + "/templates.json", atomically: true, encoding: .utf8)
        let d = try TestDaemon(config: ["templates": files.path + "/templates.json"])
        try await d.start()

        let id = try await d.send(["template": "disk_full", "values": ["host": "db1"], "message": "/var at 97%"])
        let spec = try #require(try await d.show(id)["spec"] as? [String: Any])
        #expect(spec["title"] as? String == "Disk full on db1")
        #expect(spec["severity"] as? String == "critical")
        #expect(spec["dedup_key"] as? String == "disk:db1")
        #expect(spec["message"] as? String == "/var at 97%")

        // The alert's own fields win over the template's.
        let own = try await d.send(["template": "disk_full", "values": ["host": "db2"], "title": "Custom", "severity": "info"])
        let ownSpec = try #require(try await d.show(own)["spec"] as? [String: Any])
        #expect(ownSpec["title"] as? String == "Custom")
        #expect(ownSpec["severity"] as? String == "info")

        func codes(_ body: [String: Any]) async throws -> [String] {
            let r = try await d.request("POST", "/v1/alerts", json: body)
            #expect(r.status == 422)
            return (try HTTPErrorBody.decode(r.body).details ?? []).map(\.code)
        }
        #expect(try await codes(["template": "disk_fill"]).contains("unknown_template"))
        #expect(try await codes(["template": "disk_full"]) == ["missing_template_values"])
        #expect(try await codes(["title": "x", "values": ["a": "b"]]) == ["unknown_field"])
        // A value of the wrong type is that one problem: the template still gives its title.
        #expect(try await codes(["template": "disk_full", "values": ["host": 97]]) == ["invalid_type"])
        #expect(try await codes(["template": "disk_full", "values": ["db1"]]) == ["invalid_type"])
        #expect(try await codes(["template": "restart", "values": ["host": 97]]) == ["invalid_type"])
        #expect(try await codes(["template": "restart", "values": ["host": ".."]]) == ["invalid_template_value"])
        // A null is a field left out, here as everywhere; a name that is no
        // string is the wrong type, not a template called by its JSON text.
        #expect(try await d.request("POST", "/v1/alerts", json: ["template": NSNull(), "title": "plain"]).status == 202)
        #expect(try await d.request("POST", "/v1/alerts", json: ["title": "plain", "values": NSNull()]).status == 202)
        for name: Any in [123, true, ["disk_full"]] {
            let r = try await d.request("POST", "/v1/alerts", json: ["template": name])
            let details = try HTTPErrorBody.decode(r.body).details ?? []
            #expect(details.map(\.code) == ["invalid_type"], "\(name)")
            #expect(details.allSatisfy { !$0.message.contains("JSON") }, "\(details.map(\.message))")
        }
    }

    /// A reload reads the templates file again, and says so when only its
    /// content changed (it said `changed=nothing`, the path being the same).
    @Test func aReloadTakesTheTemplatesFilesNewContentAndSaysSo() async throws {
        let files = TemporaryDirectory()
        let path = files.path + "/templates.json"
        try Self.templates.write(toFile: path, atomically: true, encoding: .utf8)
        let d = try TestDaemon(config: ["templates": path])
        try await d.start()
        try #"{"templates": {"backup": {"title": "Nightly backup finished"}}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        try await d.reload(["templates": path])
        #expect(d.log.contains(#"configuration reloaded changed="templates (the file's content)""#), "\(d.log)")
        let id = try await d.send(["template": "backup"])
        #expect((try await d.show(id)["spec"] as? [String: Any])?["title"] as? String == "Nightly backup finished")
        // The same content again: nothing changed.
        try await d.reload(["templates": path])
        #expect(d.log.contains(#"configuration reloaded changed=nothing"#), "\(d.log)")
    }

    @Test func checkConfigReadsTheFilesTheConfigNames() async throws {
        let files = TemporaryDirectory()
        let config = files.path + "/alertd.json"
        try #"{"api": {"token_file": "/nonexistent/token"}, "templates": "/nonexistent/templates.json"}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let bad = try await TestBinaries.run(try TestBinaries.path(of: "alertd"), ["--check-config", "--config", config, "--state-dir", files.path])
        #expect(bad.exitCode == 65)
        #expect(bad.stderr.contains("/nonexistent/token"))
        #expect(bad.stderr.contains("/nonexistent/templates.json"))

        try writeSecretFile("0123456789abcdef0123\n", to: files.path + "/token")
        try Self.templates.write(toFile: files.path + "/templates.json", atomically: true, encoding: .utf8)
        try #"{"api": {"token_file": "\#(files.path)/token"}, "templates": "\#(files.path)/templates.json"}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let good = try await TestBinaries.run(try TestBinaries.path(of: "alertd"), ["--check-config", "--config", config, "--state-dir", files.path])
        #expect(good.exitCode == 0, "\(good.stderr)")

        // Under this daemon's limits a fixed title is too long for every use: refused with the file.
        try #"{"templates": {"backup": {"title": "Nightly backup finished"}}}"#
            .write(toFile: files.path + "/fixed.json", atomically: true, encoding: .utf8)
        try #"{"templates": "\#(files.path)/fixed.json", "limits": {"max_title_length": 10}}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let strict = try await TestBinaries.run(try TestBinaries.path(of: "alertd"), ["--check-config", "--config", config, "--state-dir", files.path])
        #expect(strict.exitCode == 65)
        #expect(strict.stderr.contains("templates.backup.title"), "\(strict.stderr)")
    }

    /// A chat service's URL in a file is checked as an inline one is, when
    /// the file is read: by --check-config, not at the first delivery. What
    /// the file holds is a credential, never echoed.
    @Test func checkConfigChecksAURLFile() async throws {
        let files = TemporaryDirectory()
        let config = files.path + "/alertd.json"
        try #"{"presenters": {"d": {"type": "discord", "url_file": "hook"}}, "default_route": {"presenters": ["d"]}}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        try writeSecretFile("not a url SECRET\n", to: files.path + "/hook")
        let bad = try await TestBinaries.run(try TestBinaries.path(of: "alertd"), ["--check-config", "--config", config, "--state-dir", files.path])
        #expect(bad.exitCode == 65)
        #expect(bad.stderr.contains("url_file hook does not hold an http:// or https:// URL with a host"), "\(bad.stderr)")
        #expect(!bad.stderr.contains("SECRET"))
        try writeSecretFile("https://discord.com/api/webhooks/1/SECRET\n", to: files.path + "/hook")
        let good = try await TestBinaries.run(try TestBinaries.path(of: "alertd"), ["--check-config", "--config", config, "--state-dir", files.path])
        #expect(good.exitCode == 0, "\(good.stderr)")
    }

    /// A state directory alertd could not make fails the check as it
    /// would fail the start: under a file, or where mkdir fails even for
    /// root (/proc), whatever access(2) says.
    @Test func checkConfigFindsAStateDirectoryThatCannotBeMade() async throws {
        let files = TemporaryDirectory()
        try "x".write(toFile: files.path + "/plain", atomically: true, encoding: .utf8)
        for (dir, says) in [(files.path + "/plain/state", "is not a directory"), ("/proc/alertd-check", "cannot be created in /proc")] {
            let r = try await TestBinaries.run(try TestBinaries.path(of: "alertd"), ["--check-config", "--state-dir", dir])
            #expect(r.exitCode == 65, "\(dir): \(r.stdout)")
            #expect(r.stderr.contains(says), "\(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: "/proc/alertd-check"))
        let fresh = try await TestBinaries.run(try TestBinaries.path(of: "alertd"), ["--check-config", "--state-dir", files.path + "/new/state"])
        #expect(fresh.exitCode == 0, "\(fresh.stderr)")
        // The check leaves nothing behind: neither the directory nor its probe.
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.path) == ["plain"])
    }

    /// A typo in the file and what only building finds (a secret file, a
    /// command) come in one run: fixing the typo used to show the others.
    @Test func checkConfigReportsTheFileAndTheBuildTogether() async throws {
        let files = TemporaryDirectory()
        let config = files.path + "/alertd.json"
        try #"""
            {"retry": {"jiter": true},
             "presenters": {"h": {"type": "webhook", "url": "http://127.0.0.1:1/", "secret_file": "/nonexistent/secret"},
                            "e": {"type": "exec", "command": ["/nonexistent/notify"]}},
             "default_route": {"presenters": ["h", "e"]}}
            """#.write(toFile: config, atomically: true, encoding: .utf8)
        let r = try await TestBinaries.run(try TestBinaries.path(of: "alertd"), ["--check-config", "--config", config, "--state-dir", files.path])
        #expect(r.exitCode == 65)
        #expect(r.stderr.contains("\(config): retry.jiter: unknown key"), "\(r.stderr)")
        #expect(r.stderr.contains("/nonexistent/secret"), "\(r.stderr)")
        #expect(r.stderr.contains("/nonexistent/notify"), "\(r.stderr)")
        #expect(!r.stdout.contains("valid"))
        // An unreadable file is the one problem: there is nothing to build.
        let missing = try await TestBinaries.run(try TestBinaries.path(of: "alertd"), ["--check-config", "--config", files.path + "/nope.json"])
        #expect(missing.exitCode == 65)
        #expect(missing.stderr == "\(files.path)/nope.json: cannot read the configuration file: No such file or directory (check the path given to --config, and that the user alertd runs as may read it)\n")
    }
}

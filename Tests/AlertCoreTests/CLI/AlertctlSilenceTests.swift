import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdSQLite

/// `alertctl silence` against a real daemon: a silence holds deliveries
/// back, expiring it lets them go, and silences outlast a restart.
@Suite(.serialized) struct AlertctlSilenceTests {
    /// Runs the line of docs/PROMETHEUS.md's alertctl snippet that starts
    /// with `prefix` through the shell, with the built alertctl first on PATH.
    func documented(_ prefix: String, _ d: TestDaemon, environment: [String: String] = [:]) async throws -> TestBinaries.Result {
        let lines = try DocSnippets("docs/PROMETHEUS.md").snippet("alertctl-commands").split(separator: "\n").map(String.init)
        let line = try #require(lines.first { $0.hasPrefix(prefix) }, "no `\(prefix)` line")
        let bin = URL(fileURLWithPath: try TestBinaries.alertctl).deletingLastPathComponent().path
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        return try await TestBinaries.run("/bin/sh", ["-c", line], environment: [
            "PATH": path, "ALERTD_SOCKET": d.socketPath, "USER": "alice",
        ].merging(environment) { $1 })
    }

    @Test func addListAndExpireHoldAndReleaseDeliveries() async throws {
        let d = try TestDaemon(config: ["presenters": ["sink": ["type": "test", "record": "presented.jsonl"]]])
        try await d.start()
        let sink = TestPresenterLog(d)

        let add = try await documented("alertctl silence add", d)
        #expect(add.exitCode == 0, "\(add.stderr)")
        let id = add.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!id.isEmpty)
        let list = try await documented("alertctl silence list", d)
        #expect(list.exitCode == 0)
        let row = try #require(list.stdout.split(separator: "\n").first { $0.hasPrefix(id) })
        #expect(row.contains("active"))
        #expect(row.contains("alice"))
        #expect(row.contains(#"alertname="DiskFull" instance=~"db[0-9]+""#))
        #expect(row.hasSuffix("disk swap on db"))

        let held = try await d.send(["title": "Disk full on db1", "labels": ["alertname": "DiskFull", "instance": "db1"]])
        _ = try await d.send(["title": "Disk full on web1", "labels": ["alertname": "DiskFull", "instance": "web1"]])
        #expect(await sink.wait { $0.contains { $0.title == "Disk full on web1" } })
        try await Task.sleep(for: .milliseconds(500))
        #expect(sink.entries.map(\.title) == ["Disk full on web1"])
        let shown = try await d.show(held)
        #expect(shown["silenced_by"] as? [String] == [id])
        #expect((shown["deliveries"] as? [[String: Any]])?.first?["silenced_by"] as? String == id)
        // `show` says what holds it, not a next attempt as if it had failed.
        let show = try await d.alertctl(["show", held])
        let heldRow = try #require(show.stdout.split(separator: "\n").first { $0.contains("sink") })
        #expect(heldRow.contains("held by silence \(id); checked again "), "\(show.stdout)")
        #expect(!heldRow.contains("next attempt"))

        // Silences outlast a restart, and still hold.
        await d.kill9()
        try await d.start()
        #expect(try await d.alertctl(["silence", "list"]).stdout.contains(id))
        try await Task.sleep(for: .milliseconds(500))
        #expect(sink.entries.count == 1)

        let expire = try await documented("alertctl silence expire", d, environment: ["SILENCE_ID": id])
        #expect(expire.exitCode == 0, "\(expire.stderr)")
        #expect(expire.stdout == "expired \(id)\n")
        #expect(await sink.wait { $0.contains { $0.title == "Disk full on db1" } })
        let none = try await documented("alertctl silence list", d)
        #expect(none.stdout.isEmpty)
        #expect(none.stderr == "no active or pending silences\n")
        let all = try await d.alertctl(["silence", "list", "--all", "--json"])
        let silences = try #require(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [[String: Any]])
        #expect(silences.map { ($0["status"] as? [String: Any])?["state"] as? String } == ["expired"])
        let ended = try await d.alertctl(["silence", "list", "--all"]).stdout
        #expect(ended.contains("expired  ended "), "\(ended)")
    }

    /// alertd refuses control characters in silences now, but a store can
    /// hold one saved before: `silence list` prints it as plain text.
    @Test func aStoredSilenceCannotDriveTheTerminal() async throws {
        let d = try TestDaemon()
        try await d.start()
        let add = try await d.alertctl(["silence", "add", "alertname=DiskFull", "--duration", "1h", "--comment", "swap"])
        #expect(add.exitCode == 0, "\(add.stderr)")
        await d.kill9()
        let conn = try SQLiteConnection(path: d.stateDir + "/alertd.db")
        try conn.withLock { c throws(SQLiteError) in
            try c.execute("UPDATE silences SET comment = 'swap' || char(27) || '[2J' || char(10) || 'x', created_by = 'bob' || char(7)")
        }
        try await d.start()
        let list = try await d.alertctl(["silence", "list"])
        #expect(list.exitCode == 0, "\(list.stderr)")
        #expect(!list.stdout.unicodeScalars.contains { $0.value == 27 || $0.value == 7 })
        #expect(list.stdout.split(separator: "\n").count == 2)
        #expect(list.stdout.contains("swap [2J x"))
    }

    @Test func refusalsAreUsageErrorsOrAlertdsAnswer() async throws {
        let d = try TestDaemon()
        try await d.start()
        let unknown = try await d.alertctl(["silence", "expire", "no-such-silence"])
        #expect(unknown.exitCode == 1)
        #expect(unknown.stderr.contains("not found"))
        #expect(unknown.stderr.contains("[silence_not_found]"))
        let json = try await d.alertctl(["silence", "expire", "no-such-silence", "--json"])
        #expect(try HTTPErrorBody.decode(Data(json.stdout.utf8)).code == "silence_not_found")
        // Checked before anything is sent.
        for arguments in [["silence", "add", "alertname=x"], ["silence", "add", "-c", "why"], ["silence", "add", "job=~a(?=b)", "-c", "why"],
                          ["silence", "add", "x", "-c", "why", "-d", "soon"], ["silence", "add", "x", "-c", "why", "--end", "tomorrow"]] {
            let r = try await d.alertctl(arguments)
            #expect(r.exitCode == 64, "\(arguments): \(r.stderr)")
        }
        let zero = try await d.alertctl(["silence", "add", "x", "-c", "why", "-d", "0s"])
        #expect(zero.exitCode == 64)
        #expect(zero.stderr.contains("a silence lasts more than zero"), "\(zero.stderr)")
        // An end thousands of years on crashed alertctl (SIGILL).
        for far in ["106751991167d", "100000000d", "36501d"] {
            let r = try await d.alertctl(["silence", "add", "x", "-c", "why", "-d", far])
            #expect(r.exitCode == 64, "\(far): \(r.stderr)")
            #expect(r.stderr.contains("at most 36500d (100 years)"), "\(r.stderr)")
        }
        // Expiring goes on past an unknown id, and fails as it did.
        let held = try await d.alertctl(["silence", "add", "host=zz2", "-c", "why"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let both = try await d.alertctl(["silence", "expire", "no-such-silence", held])
        #expect(both.exitCode == 1)
        #expect(both.stdout == "expired \(held)\n", "\(both.stdout)")
        #expect(both.stderr.contains("[silence_not_found]"))
        // alertd's own rules: a silence of everything is refused.
        let everything = try await d.alertctl(["silence", "add", "job=~.*", "-c", "why"])
        #expect(everything.exitCode == 65, "refused as invalid")
        #expect(everything.stderr.contains("[invalid_silence]"))
        let added = try await d.alertctl(["silence", "add", "x", "-c", "why", "--json"])
        #expect(added.stdout.hasPrefix(#"{"silenceID":""#))
    }
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdDelivery

#if canImport(Glibc)
import Glibc
#endif

/// The `exec` presenter with real scripts: what they get on standard input
/// and in the environment, how their exit status is read, and the time limit.
@Suite struct ExecPresenterTests {
    let dir = TemporaryDirectory()

    /// Writes an executable shell script and returns its path.
    func script(_ name: String, _ body: String) throws -> String {
        let path = dir.path + "/" + name
        try Data(("#!/bin/sh\n" + body + "\n").utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o755)
        return path
    }

    func presenter(_ settings: [String: Any]) throws -> any AlertPresenter {
        try ServiceFixtures.presenter(ExecPresenterConfiguration.self, settings, stateDirectory: dir.path)
    }

    @Test func theProgramGetsThePayloadOnStandardInputAndAFewVariables() async throws {
        setenv("ALERTD_TEST_NOT_PASSED_ON", "secret", 1)
        let program = try script("record", #"cat > "$1/stdin.json"; env > "$1/env"; printf '%s' "$#" > "$1/argc""#)
        let p = try presenter(["command": [program, dir.path, "two words"], "environment": ["TEAM": "ops"]])
        let alert = try ServiceFixtures.alert()
        let delivery = DeliveryContext(deliveryID: "dlv-9.0", attempt: 3, actionLinks: [.confirm: ServiceFixtures.confirmLink])
        #expect(await p.present(alert, delivery: delivery) == .delivered)

        let input = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/stdin.json"))
        #expect(input == (try WebhookPayload(alert: alert, delivery: delivery).encoded()))
        let env = Dictionary(
            try String(contentsOfFile: dir.path + "/env", encoding: .utf8).split(separator: "\n").compactMap { line -> (String, String)? in
                guard let eq = line.firstIndex(of: "=") else { return nil }
                return (String(line[..<eq]), String(line[line.index(after: eq)...]))
            }, uniquingKeysWith: { a, _ in a })
        #expect(env["ALERTD_ALERT_ID"] == alert.id.rawValue)
        #expect(env["ALERTD_DELIVERY_ID"] == "dlv-9.0")
        #expect(env["ALERTD_ATTEMPT"] == "3")
        #expect(env["ALERTD_SEVERITY"] == "critical")
        #expect(env["ALERTD_STATE"] == "open")
        #expect(env["ALERTD_TITLE"] == "Disk <full> & db1")
        #expect(env["ALERTD_PRESENTER"] == "p")
        #expect(env["ALERTD_CONFIRM_URL"] == ServiceFixtures.confirmLink)
        #expect(env["ALERTD_CANCEL_URL"] == nil)
        #expect(env["TEAM"] == "ops")
        #expect(env["PATH"] != nil)
        #expect(env["ALERTD_TEST_NOT_PASSED_ON"] == nil, "only a few of alertd's own variables are passed on")
        // An argument vector, no shell: "two words" stays one argument.
        #expect(try String(contentsOfFile: dir.path + "/argc", encoding: .utf8) == "2")
    }

    @Test func exitStatusDecidesAndOutputGoesIntoTheError() async throws {
        let tempfail = try script("tempfail", "echo 'queue full' >&2; echo 'try later'; exit 75")
        let broken = try script("broken", "echo 'boom: no such team'; exit 3")
        let alert = try ServiceFixtures.alert()
        #expect(try await presenter(["command": [tempfail]]).present(alert, delivery: ServiceFixtures.delivery)
            == .retryableFailure(reason: "exec: \(tempfail) exited with 75 (try again later): queue full | try later"))
        #expect(try await presenter(["command": [broken]]).present(alert, delivery: ServiceFixtures.delivery)
            == .permanentFailure(reason: "exec: \(broken) exited with 3: boom: no such team"))
        let killed = try script("killed", "kill -TERM $$")
        #expect(try await presenter(["command": [killed]]).present(alert, delivery: ServiceFixtures.delivery)
            == .permanentFailure(reason: "exec: \(killed) was killed by signal 15"))
        // Much output: the end, where a program says why it failed, is what the reason keeps.
        let chatty = try script("chatty", "head -c 100000 /dev/zero | tr '\\0' x; echo; echo 'fatal: no route to pager'; exit 3")
        let said = try await presenter(["command": [chatty]]).present(alert, delivery: ServiceFixtures.delivery)
        #expect(said.reason?.hasSuffix("xxx | fatal: no route to pager") == true, "\(said.reason ?? "")")
        // A bare name is looked up on PATH.
        #expect(try await presenter(["command": ["true"]]).present(alert, delivery: ServiceFixtures.delivery) == .delivered)
        #expect(try await presenter(["command": ["false"]]).present(alert, delivery: ServiceFixtures.delivery)
            == .permanentFailure(reason: "exec: false exited with 1"))
    }

    @Test func aProgramPastItsTimeIsKilledWithWhatItStartedAndRetried() async throws {
        // One child in its process group, one that left it for a session of its own.
        let slow = try script("slow", #"sleep 30 & echo $! > "$1/child"; setsid sleep 31 & echo $! > "$1/session"; echo started; wait"#)
        let p = try presenter(["command": [slow, dir.path], "timeout": "300ms"])
        let start = ContinuousClock.now
        let outcome = await p.present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery)
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(outcome == .retryableFailure(reason: "exec: \(slow) did not finish within 300ms and was killed: started"))
        // Both went with the program: the one in its process group, and the one setsid took out of it.
        for file in ["child", "session"] {
            let child = try #require(Int32(try String(contentsOfFile: dir.path + "/" + file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
            var gone = false
            for _ in 0..<100 where !gone {
                gone = kill(child, 0) != 0 && errno == ESRCH
                if !gone { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(gone, "\(file) \(child) still runs")
        }
    }

    @Test func aProgramThatIgnoresItsInputStillCounts() async throws {
        let p = try presenter(["command": ["true"]])
        let alert = try ServiceFixtures.alert(message: String(repeating: "x", count: 200_000))
        // The payload outgrows a pipe's buffer, and nothing reads it: EPIPE, not SIGPIPE.
        for _ in 0..<5 { #expect(await p.present(alert, delivery: ServiceFixtures.delivery) == .delivered) }
    }

    @Test func settingsAreCheckedAndAMissingProgramIsFoundAtSetup() throws {
        #expect(ServiceFixtures.read(ExecPresenterConfiguration.self, ["command": ["/path/to/program", "arg"]]).1.isEmpty)
        #expect(ServiceFixtures.read(ExecPresenterConfiguration.self, [:]).1
            == ["presenters.p.command: is required: the program and its arguments, e.g. [\"/usr/local/bin/notify\"]"])
        #expect(ServiceFixtures.read(ExecPresenterConfiguration.self, ["command": []]).1.first?.hasPrefix("presenters.p.command: must start with") == true)
        #expect(ServiceFixtures.read(ExecPresenterConfiguration.self, ["command": ["x"], "environment": ["ALERTD_TITLE": "x"]]).1.count == 1)
        #expect(throws: PresenterSetupError("the command \(dir.path)/bin/missing is not an executable file; check the path and its permissions")) {
            try presenter(["command": ["bin/missing"]])
        }
        // A bare name is looked for on the PATH it will run with.
        _ = try presenter(["command": ["sh", "-c", "true"]])
        #expect(throws: PresenterSetupError("no program sh on PATH (\(dir.path)/empty); give its path, or install it")) {
            try presenter(["command": ["sh"], "environment": ["PATH": dir.path + "/empty"]])
        }
        #expect(throws: PresenterSetupError("no program no-such-program-xyz on PATH (/usr/bin:/bin); give its path, or install it")) {
            try presenter(["command": ["no-such-program-xyz"], "environment": ["PATH": "/usr/bin:/bin"]])
        }
    }

    /// Through the daemon: 75 is retried with backoff, then delivered; the
    /// script sees the same delivery id and the attempt number grow.
    @Test func theDaemonRetriesATemporaryFailure() async throws {
        let program = try script("flaky", #"""
            echo "$ALERTD_DELIVERY_ID $ALERTD_ATTEMPT" >> "$1/attempts"
            [ "$ALERTD_ATTEMPT" -ge 3 ] && exit 0
            echo "not yet"; exit 75
            """#)
        let d = try TestDaemon(config: ["presenters": ["run": ["type": "exec", "command": [program, dir.path], "timeout": "5s"]]])
        try await d.start()
        let id = try await d.send(["title": "Rotate logs", "severity": "warning"])
        var delivered: [String: Any]?
        for _ in 0..<250 where delivered == nil {
            delivered = (try await d.show(id)["deliveries"] as? [[String: Any]])?.first { $0["state"] as? String == "delivered" }
            if delivered == nil { try await Task.sleep(for: .milliseconds(40)) }
        }
        let shown = try await d.show(id)
        let delivery = try #require(delivered, "\(shown)")
        #expect(delivery["attempts"] as? Int == 3)
        let lines = try String(contentsOfFile: dir.path + "/attempts", encoding: .utf8).split(separator: "\n").map(String.init)
        let deliveryID = try #require(delivery["id"] as? String)
        #expect(lines == ["\(deliveryID) 1", "\(deliveryID) 2", "\(deliveryID) 3"])
    }
}

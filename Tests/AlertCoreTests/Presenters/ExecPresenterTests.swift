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

    /// Writes an executable shell script and returns its path. Opened
    /// close-on-exec: a program another test started as this one wrote
    /// kept it open for writing for as long as it ran, and running the
    /// script failed with "text file busy".
    func script(_ name: String, _ body: String) throws -> String {
        let path = dir.path + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let text = Array(("#!/bin/sh\n" + body + "\n").utf8)
        let written = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == text.count else { throw POSIXError(.EIO) }
        return path
    }

    func presenter(_ settings: [String: Any]) throws -> any AlertPresenter {
        try ServiceFixtures.presenter(ExecPresenterConfiguration.self, settings, stateDirectory: dir.path)
    }

    /// The program gets standard input, output and error, and no other
    /// descriptor of alertd's: it had inherited alertd's kept connections to
    /// other presenters' services (libcurl's sockets, opened without
    /// close-on-exec), and wrote requests of its own on them.
    @Test func theProgramInheritsNoOtherDescriptor() async throws {
        // A socket pair as a library would open one: no close-on-exec, high numbers no run opens itself.
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        try #require(dup2(pair[0], 250) == 250 && dup2(pair[1], 251) == 251)
        close(pair[0])
        close(pair[1])
        defer { close(250); close(251) }
        let program = try script("fds", #"for f in /proc/$$/fd/*; do echo "${f##*/}"; done > "$1/fds""#)
        #expect(await (try presenter(["command": [program, dir.path]])).present(try ServiceFixtures.alert(), delivery: ServiceFixtures.delivery) == .delivered)
        let fds = Set(try String(contentsOfFile: dir.path + "/fds", encoding: .utf8).split(separator: "\n").compactMap { Int($0) })
        #expect(!fds.contains(250) && !fds.contains(251), "\(fds.sorted())")
        #expect(fds.isSuperset(of: [0, 1, 2]))
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
        // Cut in scalars, not characters: one letter with thousands of combining marks is one character.
        let marks = try script("marks", "printf 'disk full'; for i in $(seq 800); do printf '\\314\\201\\314\\201\\314\\201\\314\\201\\314\\201'; done; exit 3")
        let marked = try await presenter(["command": [marks]]).present(alert, delivery: ServiceFixtures.delivery)
        #expect((marked.reason?.unicodeScalars.count ?? 0) < 1_200, "\(marked.reason?.unicodeScalars.count ?? 0) scalars")
        // The program's bytes go into `last_error` and events, which terminals show:
        // no escape sequence, bell or bidi override survives.
        let hostile = try script("hostile", #"printf '\033]0;PWNED\007\033[31mRED\033[2J\n\342\200\256 rev'; exit 1"#)
        let shown = try await presenter(["command": [hostile]]).present(alert, delivery: ServiceFixtures.delivery).reason ?? ""
        #expect(shown.hasSuffix("PWNED") == false && shown.contains("RED"), "\(shown)")
        #expect(!shown.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{7F}" || $0 == "\u{202E}" }, "\(shown.debugDescription)")
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

    /// A program that prints without end costs alertd the end of what it
    /// printed, not all of it: cut from the front in place, the output read
    /// stayed in memory, and one printing 300 MB took the daemon past 300 MB
    /// (`yes` grew it by 450 MB a second until its timeout).
    @Test func aProgramThatPrintsWithoutEndCostsTheDaemonOnlyItsLastWords() async throws {
        let flood = try script("flood", "head -c 300000000 /dev/zero | tr '\\0' x; echo; echo 'fatal: flooded'; exit 3")
        let d = try TestDaemon(config: ["presenters": ["flood": ["type": "exec", "command": [flood]]],
                                        "default_route": ["presenters": ["flood"]]])
        try await d.start()
        let pid = try #require(d.pid)
        #expect(try await d.request("POST", "/v1/alerts", json: ["title": "chatty"]).status == 202)
        let deadline = ContinuousClock.now + .seconds(60)
        var dead = 0
        while ContinuousClock.now < deadline, dead == 0 {
            try await Task.sleep(for: .milliseconds(100))
            let health = try JSONSerialization.jsonObject(with: try await d.request("GET", "/v1/health").body) as? [String: Any]
            dead = health?["dead_deliveries"] as? Int ?? 0
        }
        #expect(dead == 1, "the delivery did not end")
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let peak = Int(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }?.split(separator: " ").dropFirst().first ?? "") ?? 0
        #expect(peak > 0 && peak < 96 * 1024, "peak RSS \(peak) kB")
        #expect(d.log.contains("fatal: flooded"), "the end of the output is the delivery's error")
    }

    /// A program still open for writing somewhere (a deployment's copy
    /// finishing) is run once it is free, where the run failed for good.
    @Test func aProgramBusyForAMomentIsRunOnceFree() async throws {
        let program = try script("busy", "exit 0")
        let writer = open(program, O_WRONLY | O_CLOEXEC)
        #expect(writer >= 0)
        let p = try presenter(["command": [program]])
        let alert = try ServiceFixtures.alert()
        async let outcome = p.present(alert, delivery: ServiceFixtures.delivery)
        try await Task.sleep(for: .milliseconds(20))
        close(writer)
        #expect(await outcome == .delivered)
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
        // A directory is no program, though root may "execute" any with an x bit.
        #expect(throws: PresenterSetupError("the command \(dir.path) is not an executable file; check the path and its permissions")) {
            try presenter(["command": [dir.path]])
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

import Foundation

/// A test server written in Python, started and waited for.
enum PythonServer {
    /// Runs `python3 script arguments…`, its output to `log`. Under
    /// setpriv's parent-death signal, from a thread that never exits: a
    /// test run that crashes takes the server with it (plain children
    /// outlived crashed runs, twenty at a time).
    static func spawn(_ script: String, _ arguments: [String], log: String) throws -> SpawnedProcess {
        let command = ["--pdeathsig", "KILL", "--", "/usr/bin/env", "python3", script] + arguments
        return try SpawningThread.shared.run { try SpawnedProcess("/usr/bin/setpriv", command, output: log) }
    }

    /// ``spawn(_:_:log:)``, then waits until the server has written the
    /// port it listens on to `portFile`.
    static func start(_ script: String, _ arguments: [String], portFile: String, log: String,
                      what: String) async throws -> (process: SpawnedProcess, port: Int) {
        let p = try spawn(script, arguments, log: log)
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text) { return (p, port) }
            if p.isFinished { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        p.kill()
        throw TestDaemon.Failure("\(what) did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }
}

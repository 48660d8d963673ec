import Foundation
import Synchronization
@testable import AlertdHTTP
@testable import AlertdCurl

#if canImport(Glibc)
import Glibc
#endif

/// A real third-party server (Prometheus, Alertmanager) run for a test on
/// loopback, its output in a file. It dies with the test process (setpriv's
/// parent-death signal) and is stopped when the value goes away, whatever
/// the test did.
final class ExternalProgram: Sendable {
    let name: String
    let logPath: String
    private let process: SpawnedProcess

    struct Missing: Error, CustomStringConvertible {
        let name: String
        var description: String {
            "\(name) is not installed; the Prometheus tests run the real programs: run `bash scripts/install-deps.sh --test` (Debian: prometheus, prometheus-alertmanager)"
        }
    }

    /// Where `name` is installed, from PATH or the usual Debian places.
    static func path(of name: String) throws -> String {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin", "/usr/sbin", "/bin"]
        guard let found = dirs.map({ "\($0)/\(name)" }).first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw Missing(name: name)
        }
        return found
    }

    /// Starts `name` with `arguments`, appending its output to `logPath`.
    init(_ name: String, _ arguments: [String], logPath: String, environment: [String: String] = [:]) throws {
        self.name = name
        self.logPath = logPath
        let executable = try Self.path(of: name)
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") {
            process = try SpawnedProcess("/usr/bin/setpriv", ["--pdeathsig", "KILL", "--", executable] + arguments,
                                         environment: environment, output: logPath)
        } else {
            process = try SpawnedProcess(executable, arguments, environment: environment, output: logPath)
        }
    }

    deinit { process.kill() }

    /// What it printed so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func signal(_ sig: Int32) { process.signal(sig) }

    /// Its exit status once it exits within `timeout`; nil while it runs.
    func waitForExit(timeout: Duration) async -> Int32? { await process.waitForExit(timeout: timeout) }

    /// Waits until `url` answers 200, or fails with its log.
    func waitUntilReady(_ url: String, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = await process.waitForExit(timeout: .zero) {
                throw TestDaemon.Failure("\(name) exited with \(status) while starting:\n\(log)")
            }
            if let r = try? await Self.send("GET", url), r.status == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestDaemon.Failure("\(name) was not ready at \(url) within \(timeout):\n\(log)")
    }

    /// SIGTERM, a bounded wait, then SIGKILL.
    func stop() async {
        process.signal(SIGTERM)
        if await process.waitForExit(timeout: .seconds(5)) == nil { process.kill() }
    }

    /// One HTTP request to a program on loopback.
    static func send(_ method: String, _ url: String, json: String? = nil) async throws -> HTTPClientResponse {
        var headers: HTTPHeaders = [:]
        if json != nil { headers.set("Content-Type", "application/json") }
        return try await HTTPClient.shared.send(HTTPClientRequest(
            url: url, method: method, headers: headers, body: json.map { Data($0.utf8) },
            connectTimeout: .seconds(2), timeout: .seconds(10), maxResponseBytes: 4 << 20))
    }
}

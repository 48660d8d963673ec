import Foundation
import Synchronization
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdSQLite
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdLogging
@testable import AlertdCommandLine
@testable import AlertdStore
@testable import AlertdSQLiteStore
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

#if canImport(Glibc)
import Glibc
#endif

/// A real `alertd` process on a temp state dir, a temp Unix socket and a
/// free loopback port. It is killed when the value goes away, whatever the
/// test did.
final class TestDaemon: Sendable {
    let dir: TemporaryDirectory
    let port: UInt16
    let configPath: String
    /// A command alertd runs under, e.g. `ip netns exec <name>`; empty for none.
    let launcher: [String]
    /// The address its TCP listener binds: loopback, unless it runs in a
    /// network namespace of the test's (``IsolatedNetwork``).
    let listenHost: String
    private let process = Mutex<Process?>(nil)
    private let starts = Mutex(0)

    var socketPath: String { dir.path + "/alertd.sock" }
    /// `state` in the daemon's temp dir, unless the test named another.
    let stateDir: String
    var baseURL: String { "http://127.0.0.1:\(port)" }
    var logPath: String { dir.path + "/alertd.log" }

    /// `config` is merged into a base config: no terminal presenter, fast retries.
    /// `stateDir` may be another daemon's, to run two on one.
    init(config: [String: Any] = [:], launcher: [String] = [], listenHost: String = "127.0.0.1", stateDir: String? = nil) throws {
        dir = TemporaryDirectory()
        self.stateDir = stateDir ?? dir.path + "/state"
        port = try TestDaemon.freePort()
        configPath = dir.path + "/config.json"
        self.launcher = launcher
        self.listenHost = listenHost
        try rewriteConfig(config)
    }

    /// Writes `config`, merged into the base config, over the config file;
    /// SIGHUP makes a running daemon read it.
    func rewriteConfig(_ config: [String: Any]) throws {
        var base: [String: Any] = [
            "presenters": ["log": ["type": "log", "path": "alerts.log"]],
            "retry": ["initial_delay": "100ms", "factor": 2, "max_delay": "1s", "jitter": false],
        ]
        for (k, v) in config { base[k] = v }
        // "$BASE_URL" in the config stands for this daemon's own TCP address.
        let text = String(decoding: try JSONSerialization.data(withJSONObject: base, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self)
            .replacingOccurrences(of: "$BASE_URL", with: "http://127.0.0.1:\(port)")
        try Data(text.utf8).write(to: URL(fileURLWithPath: configPath))
    }

    /// Rewrites the config, sends SIGHUP and waits for the daemon to log the reload.
    func reload(_ config: [String: Any]) async throws {
        let before = log.components(separatedBy: "configuration reloaded").count
        try rewriteConfig(config)
        signal(SIGHUP)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if log.components(separatedBy: "configuration reloaded").count > before { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure("alertd did not reload within 10 s:\n\(log)")
    }

    deinit {
        process.withLock { p in
            if let p, p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
        }
    }

    /// Starts alertd and waits until its socket answers `/v1/health`.
    /// `standardOutput` replaces the log file for stdout (a pseudo-terminal).
    /// Waits for a healthy answer, or with `anyAnswer` for any answer of `/v1/health`.
    func start(extraArguments: [String] = [], environment: [String: String] = [:], standardOutput: FileHandle? = nil,
               anyAnswer: Bool = false) async throws {
        let p = try launch(extraArguments: extraArguments, environment: environment, standardOutput: standardOutput)
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if !p.isRunning {
                throw Failure("alertd exited with \(p.terminationStatus) while starting:\n\(self.log)")
            }
            if let r = try? await request("GET", "/v1/health"), r.status == 200 || anyAnswer { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure("alertd did not become healthy within 15 s:\n\(self.log)")
    }

    /// Starts alertd where it is expected to refuse to start; its exit
    /// status, or nil (and it is killed) if it is still running after `timeout`.
    func startExpectingExit(timeout: Duration = .seconds(15)) async throws -> Int32? {
        _ = try launch(extraArguments: [], environment: [:], standardOutput: nil)
        guard let status = await waitForExit(timeout: timeout) else {
            await kill9()
            return nil
        }
        return status
    }

    private func launch(extraArguments: [String], environment: [String: String], standardOutput: FileHandle?) throws -> Process {
        let p = Process()
        let alertd = try TestBinaries.path(of: "alertd")
        let arguments = [
            "--config", configPath, "--state-dir", stateDir, "--socket", socketPath,
            "--listen", "\(listenHost):\(port)",
        ] + extraArguments
        // setpriv's parent-death signal kills the daemon even if the test
        // process itself crashes before its deinit can.
        let command = launcher + [alertd] + arguments
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") {
            p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            p.arguments = ["--pdeathsig", "KILL", "--"] + command
        } else {
            p.executableURL = URL(fileURLWithPath: command[0])
            p.arguments = Array(command.dropFirst())
        }
        var env = ProcessInfo.processInfo.environment
        for name in ["NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "JOURNAL_STREAM", "WATCHDOG_USEC"] { env[name] = nil }
        p.environment = env.merging(environment) { $1 }
        if !FileManager.default.fileExists(atPath: logPath) { _ = FileManager.default.createFile(atPath: logPath, contents: nil) }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        p.standardOutput = standardOutput ?? log
        p.standardError = log
        p.standardInput = FileHandle.nullDevice
        // On a thread that never exits: the parent-death signal follows the starting thread.
        nonisolated(unsafe) let starting = p
        try SpawningThread.shared.run { try starting.run() }
        process.withLock { $0 = p }
        starts.withLock { $0 += 1 }
        return p
    }

    var pid: Int32? { process.withLock { $0?.processIdentifier } }

    /// Sends a signal to the running daemon.
    func signal(_ sig: Int32) {
        process.withLock { p in if let p, p.isRunning { kill(p.processIdentifier, sig) } }
    }

    /// Waits for the daemon to exit; its exit status, or nil on timeout.
    func waitForExit(timeout: Duration = .seconds(15)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let done = process.withLock { p -> Int32? in
                guard let p else { return 0 }
                return p.isRunning ? nil : p.terminationStatus
            }
            if let done { return done }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// SIGKILL and reap.
    func kill9() async {
        signal(SIGKILL)
        _ = await waitForExit()
    }

    /// What alertd printed so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// A request over the Unix socket.
    func request(_ method: String, _ path: String, json: Any? = nil, body: Data? = nil,
                 headers: HTTPHeaders = [:], tcp: Bool = false) async throws -> HTTPClientResponse {
        var h = headers
        var payload = body
        if let json {
            payload = try JSONSerialization.data(withJSONObject: json)
            if !h.contains("Content-Type") { h.set("Content-Type", "application/json") }
        }
        let request = HTTPClientRequest(
            url: (tcp ? baseURL : "http://localhost") + path, method: method, headers: h, body: payload,
            connectTimeout: .seconds(2), timeout: .seconds(20), unixSocketPath: tcp ? nil : socketPath,
            maxResponseBytes: 16 << 20)
        return try await HTTPClient.shared.send(request)
    }

    /// Runs the built alertctl against this daemon's socket.
    func alertctl(_ arguments: [String], stdin: String? = nil) async throws -> TestBinaries.Result {
        try await TestBinaries.run(try TestBinaries.alertctl, arguments, stdin: stdin,
                                   environment: ["ALERTD_SOCKET": socketPath])
    }

    /// `alertd --check-config` on this daemon's configuration.
    func checkConfig() async throws -> TestBinaries.Result {
        try await TestBinaries.run(try TestBinaries.path(of: "alertd"), ["--check-config", "--config", configPath, "--state-dir", stateDir])
    }

    /// Submits one alert over the socket; its id, once acknowledged.
    func send(_ alert: [String: Any]) async throws -> String {
        let r: HTTPClientResponse
        do { r = try await request("POST", "/v1/alerts", json: alert) } catch {
            // A send that never got an answer is a failure of the daemon's
            // as often as of the test's: its log says which.
            throw Failure("send failed: \(error)\nalertd log:\n\(log)")
        }
        guard r.status == 202, let obj = try JSONSerialization.jsonObject(with: r.body) as? [String: Any],
              let id = obj["id"] as? String else {
            throw Failure("send failed: \(r.status) \(String(decoding: r.body, as: UTF8.self))")
        }
        return id
    }

    /// `GET /v1/alerts/{id}` as JSON.
    func show(_ id: String) async throws -> [String: Any] {
        let r = try await request("GET", "/v1/alerts/\(id)")
        return try JSONSerialization.jsonObject(with: r.body) as? [String: Any] ?? [:]
    }

    /// A loopback port free now, below Linux's ephemeral range (32768 up):
    /// one the kernel picked (port 0) is from that range, and between this
    /// check and the daemon's bind an outgoing connection (a PostgreSQL
    /// pool's, a delivery's) could take it, as it once did.
    static func freePort() throws -> UInt16 {
        for _ in 0..<256 {
            let port = UInt16.random(in: 20_000..<32_768)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            addr.sin_port = port.bigEndian
            let bound = withUnsafeMutablePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            if bound { return port }
        }
        throw Failure("no free port")
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }
}

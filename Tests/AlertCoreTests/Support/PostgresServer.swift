import Foundation
import Synchronization
@testable import AlertdPostgres

#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL cluster for tests: `initdb` into a temp dir, then the
/// `postgres` server on a free loopback port with its Unix socket in the
/// same dir. `shared` is started on first use and serves every PostgreSQL
/// test of the process, each in a database of its own (``makeDatabase()``);
/// a test that stops the server makes its own.
///
/// The server runs under setpriv's parent-death signal, so it cannot
/// outlive the test process, and is stopped and its directory removed at
/// exit (or deinit). Under root (CI), initdb and postgres refuse to run,
/// so both run as `nobody`.
final class PostgresServer: Sendable {
    let dir: String
    let port: UInt16
    private let binaries: String
    private let process = Mutex<SpawnedProcess?>(nil)
    private let databases = Atomic<Int>(0)

    var dataDir: String { dir + "/data" }
    var logPath: String { dir + "/postgres.log" }
    /// A URL to the `postgres` database, for administration.
    var adminURL: String { "postgresql://alertd@127.0.0.1:\(port)/postgres" }

    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "PostgreSQL's server programs are not installed (looked in /usr/lib/postgresql/*/bin); run `bash scripts/install-deps.sh --test` (Debian: postgresql)"
        }
    }

    /// The process's shared cluster, started on first use.
    static func shared() throws -> PostgresServer {
        try sharedServer.withLock { s in
            if let s { return s }
            let server = try PostgresServer()
            s = server
            return server
        }
    }
    private static let sharedServer = Mutex<PostgresServer?>(nil)

    /// Runs `initdb` and starts the server.
    init() throws {
        binaries = try Self.binaryDirectory()
        dir = NSTemporaryDirectory() + "alertd-pg-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        port = try TestDaemon.freePort()
        if getuid() == 0 {
            guard let nobody = getpwnam("nobody") else { throw TestDaemon.Failure("no user nobody to run PostgreSQL as") }
            chown(dir, nobody.pointee.pw_uid, nobody.pointee.pw_gid)
        }
        Self.running.withLock { $0.insert(dir) }
        Self.registerExitHandler()
        let initdb = try run(binaries + "/initdb", ["-D", dataDir, "-U", "alertd", "--auth=trust", "-E", "UTF8", "--no-sync",
                                                  "--no-instructions"])
        guard initdb == 0 else { throw TestDaemon.Failure("initdb failed (\(initdb)):\n\(log)") }
        try start()
    }

    deinit { stopAndRemove() }

    /// Starts (or restarts) the server and waits until it takes connections.
    func start() throws {
        let arguments = asServiceUser(["--pdeathsig", "KILL", "--", binaries + "/postgres",
            "-D", dataDir, "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=400",
            "-c", "shared_buffers=32MB"])
        let log = logPath
        // From a thread that never exits: the parent-death signal follows the
        // thread that started the child, and a pool thread may end any time.
        let p = try SpawningThread.shared.run {
            try SpawnedProcess("/usr/bin/setpriv", arguments, environment: ["LC_ALL": "C"], output: log)
        }
        process.withLock { $0 = p }
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if (try? PostgresConnection(url: adminURL, redactedURL: adminURL)) != nil { return }
            if p.isFinished { throw TestDaemon.Failure("postgres exited while starting:\n\(log)") }
            usleep(50_000)
        }
        throw TestDaemon.Failure("postgres did not take connections within 30 s:\n\(log)")
    }

    /// A fast shutdown (SIGINT, as `pg_ctl stop -m fast`): open sessions are
    /// cut off, committed work is kept. Waits until the server is gone.
    func stop() {
        guard let p = process.withLock({ p in defer { p = nil }; return p }) else { return }
        p.signal(SIGINT)
        let deadline = ContinuousClock.now + .seconds(30)
        while !p.isFinished && ContinuousClock.now < deadline { usleep(20_000) }
        p.kill()
    }

    /// A new, empty database; its URL.
    func makeDatabase() throws -> String {
        let name = "t\(getpid())_\(databases.add(1, ordering: .relaxed).newValue)_\(UUID().uuidString.prefix(6).lowercased())"
        let admin = try PostgresConnection(url: adminURL, redactedURL: adminURL)
        try admin.withLock { conn throws(PostgresError) in try conn.execute("CREATE DATABASE \(name)") }
        return "postgresql://alertd@127.0.0.1:\(port)/\(name)"
    }

    /// What the server logged.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    private func stopAndRemove() {
        stop()
        try? FileManager.default.removeItem(atPath: dir)
        Self.running.withLock { _ = $0.remove(dir) }
    }

    /// Runs a PostgreSQL program to completion as the service user.
    private func run(_ program: String, _ arguments: [String]) throws -> Int32 {
        let p = try SpawnedProcess("/usr/bin/setpriv", asServiceUser(["--", program] + arguments), environment: ["LC_ALL": "C"], output: logPath)
        while !p.isFinished { usleep(20_000) }
        return p.exitStatus ?? -1
    }

    /// setpriv's arguments to drop root for `nobody`, when running as root.
    private func asServiceUser(_ arguments: [String]) -> [String] {
        getuid() == 0 ? ["--reuid=nobody", "--regid=nogroup", "--clear-groups"] + arguments : arguments
    }

    private static func binaryDirectory() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted(by: >)
        guard let found = versions.map({ "\(root)/\($0)/bin" })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }) else { throw Missing() }
        return found
    }

    /// Data directories of servers not yet stopped, for the exit handler.
    private static let running = Mutex<Set<String>>([])
    private static let exitHandler = Mutex(false)

    /// At exit, every server still up is stopped and its directory removed.
    /// The shared one lives in a static, whose deinit never runs.
    private static func registerExitHandler() {
        let first = exitHandler.withLock { registered in
            defer { registered = true }
            return !registered
        }
        guard first else { return }
        atexit {
            if let server = PostgresServer.sharedServer.withLock({ $0 }) { server.stopAndRemove() }
            for dir in PostgresServer.running.withLock({ $0 }) {
                if let pid = try? String(contentsOfFile: dir + "/data/postmaster.pid", encoding: .utf8).split(separator: "\n").first,
                   let n = Int32(pid) {
                    kill(n, SIGKILL)
                }
                try? FileManager.default.removeItem(atPath: dir)
            }
        }
    }
}

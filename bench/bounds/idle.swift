// bench/bounds/idle.swift: an idle alertd with alertd taken out, to bound
// figure (3)'s idle RSS. It holds what an idle alertd cannot do without, on
// the same libraries, built the way alertd's release is (static Swift
// runtime and FoundationEssentials, lld, packed relocations):
//   - the Swift runtime and the task pool (one task asleep);
//   - FoundationEssentials (a JSON config decoded at start, as alertd reads one);
//   - libmicrohttpd, as alertd starts it: two daemons (TCP and a Unix socket
//     in the state dir), each an epoll thread pool of 2 with suspend/resume,
//     without a listener of its own: one thread accepts for both and hands
//     each connection over; GET on any path answers 200 (health);
//   - SQLite: a WAL database with synchronous=FULL, one writer thread waiting
//     for work, one reader connection; the tables created on start.
// Nothing else: no routes, store, presenters, log, metrics or maintenance.
//
//   swiftc -O -static-stdlib -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs \
//       -Xlinker --no-export-dynamic -Xfrontend -function-sections \
//       -Xlinker --symbol-ordering-file=bench/bounds/idle.order -Xlinker --no-warn-symbol-ordering \
//       -I Sources/CMicroHTTPD -I Sources/CSQLite bench/bounds/idle.swift -o idle
//
// idle.order lists the functions it runs from start to idle, first to last,
// as scripts/order-symbols.py lists alertd's (callgrind, 2 s after the first
// health check; functions in large shared sections left out), so its code is
// laid out as alertd's release is.
//   idle <port> <state dir>
//
// SIGTERM or SIGINT stops it (the default action).
import CMicroHTTPD
import CSQLite
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

struct Config: Decodable {
    var listen: String
    var threads: Int
}

func fail(_ message: String) -> Never {
    fputs("idle: \(message)\n", stderr)
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let port = UInt16(arguments[1]) else { fail("usage: idle <port> <state dir>") }
let stateDir = arguments[2]
let config = try JSONDecoder().decode(
    Config.self, from: Data("{\"listen\": \"127.0.0.1:\(port)\", \"threads\": 2}".utf8))

// SQLite: WAL, synchronous=FULL, a table; a writer thread and a reader connection.
func open(_ path: String) -> OpaquePointer {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
          let db else { fail("cannot open \(path)") }
    return db
}
let databasePath = stateDir + "/idle.db"
let writer = open(databasePath)
for sql in ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL",
            "CREATE TABLE IF NOT EXISTS alerts (id TEXT PRIMARY KEY, spec TEXT NOT NULL, state TEXT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS deliveries (id TEXT PRIMARY KEY, alert TEXT NOT NULL, state TEXT NOT NULL)"] {
    guard sqlite3_exec(writer, sql, nil, nil, nil) == SQLITE_OK else { fail("cannot run \(sql)") }
}
let reader = open(databasePath)
guard sqlite3_exec(reader, "SELECT count(*) FROM alerts", nil, nil, nil) == SQLITE_OK else { fail("cannot read") }

nonisolated(unsafe) var work = pthread_cond_t()
nonisolated(unsafe) var workLock = pthread_mutex_t()
pthread_cond_init(&work, nil)
pthread_mutex_init(&workLock, nil)
var writerThread = pthread_t()
pthread_create(&writerThread, nil, { _ in
    pthread_mutex_lock(&workLock)
    while true { pthread_cond_wait(&work, &workLock) }
}, nil)

// libmicrohttpd: TCP and a Unix socket, as alertd listens.
func listening(_ family: Int32, _ address: UnsafeRawPointer, _ length: Int) -> Int32 {
    let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var on: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
    guard bind(fd, address.assumingMemoryBound(to: sockaddr.self), socklen_t(length)) == 0, listen(fd, 128) == 0 else {
        fail("cannot listen (errno \(errno))")
    }
    return fd
}
var inet = sockaddr_in()
inet.sin_family = sa_family_t(AF_INET)
inet.sin_port = port.bigEndian
inet.sin_addr.s_addr = inet_addr("127.0.0.1")
let tcp = withUnsafePointer(to: &inet) { listening(AF_INET, $0, MemoryLayout<sockaddr_in>.size) }
var unixAddress = sockaddr_un()
unixAddress.sun_family = sa_family_t(AF_UNIX)
let socketPath = stateDir + "/idle.sock"
unlink(socketPath)
withUnsafeMutableBytes(of: &unixAddress.sun_path) { path in
    for (i, byte) in socketPath.utf8.prefix(path.count - 1).enumerated() { path[i] = byte }
}
let unixSocket = withUnsafePointer(to: &unixAddress) { listening(AF_UNIX, $0, MemoryLayout<sockaddr_un>.size) }

let answer: MHD_AccessHandlerCallback = { _, connection, _, _, _, _, _, _ in
    let body = "ok\n"
    let response = body.withCString { MHD_create_response_from_buffer(3, UnsafeMutableRawPointer(mutating: $0), .RESPMEM_MUST_COPY) }
    let queued = MHD_queue_response(connection, 200, response)
    MHD_destroy_response(response)
    return queued
}
// Started as alertd starts them: no listener of their own, each connection
// handed over by one accepting thread.
let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
    | MHD_USE_NO_LISTEN_SOCKET.rawValue | MHD_USE_ITC.rawValue
nonisolated(unsafe) var listeners: [(fd: Int32, daemon: OpaquePointer)] = []
for fd in [tcp, unixSocket] {
    guard let daemon = alertd_mhd_start(
        flags, nil, nil, answer, nil, nil, nil, nil, nil, nil, nil, UInt32(config.threads), 2048, 30, 32 * 1024)
    else { fail("cannot start libmicrohttpd") }
    listeners.append((fd, daemon))
}
var acceptThread = pthread_t()
pthread_create(&acceptThread, nil, { _ in
    var fds = listeners.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
    while true {
        guard poll(&fds, nfds_t(fds.count), -1) > 0 else { continue }
        for (i, ready) in fds.enumerated() where ready.revents != 0 {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listeners[i].fd, $0, &length) }
            }
            guard fd >= 0 else { continue }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { MHD_add_connection(listeners[i].daemon, fd, $0, length) }
            }
        }
    }
}, nil)

// The task pool: one task asleep, as alertd's services wait. The main thread
// waits for signals, as alertd's does (CurrentProcess.exit(running:)).
print("idle ready at \(Date()) on \(config.listen)")
fflush(stdout)
Task.detached { try? await Task.sleep(for: .seconds(86_400 * 365)) }
var noSignalsBlocked = sigset_t()
sigemptyset(&noSignalsBlocked)
while true { sigsuspend(&noSignalsBlocked) }

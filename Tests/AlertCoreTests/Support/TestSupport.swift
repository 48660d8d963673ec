import Synchronization
import Foundation
@testable import AlertModel
@testable import AlertdSQLite
@testable import AlertdHTTP
@testable import AlertdHTTPServer
@testable import AlertdPOSIX
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

/// Records what a test server received, for assertions after the fact.
actor RequestRecorder {
    private(set) var requests: [HTTPRequest] = []

    func record(_ request: HTTPRequest) {
        requests.append(request)
    }

    var paths: [String] { requests.map(\.path) }
}

/// A fresh directory under the system's temp dir, removed on deinit. Kept
/// short because Unix socket paths are limited to 107 bytes.
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "alertd-" + UUID().uuidString.prefix(8).lowercased()
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Starts a server on 127.0.0.1 with an ephemeral port; `configure` sets the rest.
func startLoopbackServer(
    maxBodyBytes: Int = 1 << 20, shutdownGracePeriod: Duration = .seconds(5), trimmer: HeapTrimmer = .shared,
    answerBudget: MemoryBudget = .answers, configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    handler: @escaping HTTPServer.Handler
) throws -> (server: HTTPServer, baseURL: String) {
    var configuration = HTTPServerConfiguration(listener: .tcp(host: "127.0.0.1", port: 0))
    configuration.maxBodyBytes = maxBodyBytes
    configuration.trimmer = trimmer
    configuration.answerBudget = answerBudget
    configuration.shutdownGracePeriod = shutdownGracePeriod
    configure(&configuration)
    let server = HTTPServer(configuration: configuration, handler: handler)
    try server.start()
    return (server, "http://127.0.0.1:\(server.port ?? 0)")
}

/// A handler answering with an event stream of `count` events,
/// `data: 0` to `data: count-1`, one every `interval`.
func countingEventStream(_ count: Int, every interval: Duration) -> HTTPServer.Handler {
    { _ in
        let (stream, continuation) = AsyncStream<Data>.makeStream()
        Task {
            for i in 0..<count {
                continuation.yield(Data("data: \(i)\n\n".utf8))
                try? await Task.sleep(for: interval)
            }
            continuation.finish()
        }
        return HTTPResponse(headers: ["Content-Type": "text/event-stream"], stream: stream)
    }
}

/// A JSON rendering of a request, so a test client can see what the server saw.
struct EchoedRequest: Codable, Equatable {
    var method: String
    var path: String
    var query: String
    var queryItems: [[String]]
    var headers: [[String]]
    var body: String
    var peer: String
    var listener: String
    var localAddress: String?

    init(_ r: HTTPRequest) {
        method = r.method
        path = r.path
        query = r.query
        queryItems = r.queryItems.map { [$0.name, $0.value] }
        headers = r.headers.fields.map { [$0.name, $0.value] }
        body = String(decoding: r.body, as: UTF8.self)
        switch r.peer {
        case .unix(let uid, let gid, let pid): peer = "unix:\(uid):\(gid):\(pid)"
        case .tcp(let address): peer = "tcp:\(address)"
        }
        listener = r.listener == .tcp ? "tcp" : "unix"
        localAddress = r.localAddress
    }

    static let handler: HTTPServer.Handler = { request in
        .json(body: (try? JSONEncoder().encode(EchoedRequest(request))) ?? Data())
    }

    static func decode(_ data: Data) throws -> EchoedRequest {
        try JSONDecoder().decode(EchoedRequest.self, from: data)
    }
}

/// Shared mutable state for test tasks: a `Mutex` that escaping closures can capture.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<T>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }

    var value: Value { mutex.withLock { $0 } }
}

/// Writes a secret (a token, a key) as an operator should: readable by its
/// owner only, since alertd refuses secret files every user may read.
func writeSecretFile(_ text: String, to path: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
}

/// Whether `python3` here can import `module` (scripts/install-deps.sh --test
/// installs the ones the tests use: aiosmtpd, selenium).
func pythonCanImport(_ module: String) -> Bool {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["python3", "-c", "import \(module)"]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return false }
    p.waitUntilExit()
    return p.terminationStatus == 0
}

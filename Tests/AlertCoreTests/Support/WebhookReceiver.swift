import Foundation
import Synchronization
@testable import AlertModel
@testable import AlertdSQLite
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdHTTPServer
@testable import AlertdCommandLine
@testable import AlertdDelivery
@testable import AlertdDaemon
@testable import AlertdClient

/// A real HTTP receiver (on 127.0.0.1 unless told) for webhook and handler tests. It
/// answers from a script of status codes (then 200), optionally slowly, and
/// records every request it got. A body holding `refusing` is answered 500,
/// whatever the script says.
final class WebhookReceiver: Sendable {
    struct Received: Sendable {
        let request: HTTPRequest
        let at: ContinuousClock.Instant

        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] ?? [:]
        }

        /// The alert id in an alert payload.
        var alertID: String? { (json["alert"] as? [String: Any])?["id"] as? String }
    }

    private struct State {
        var script: [Int]
        var refusing: Data?
        var received: [Received] = []
    }

    private final class Shared: Sendable {
        let state: Mutex<State>
        init(_ s: State) { state = Mutex(s) }
    }

    private let shared: Shared
    private let server: HTTPServer
    let delay: Duration
    let host: String

    /// Starts listening on `host`:`port` (0 picks a free one).
    init(port: UInt16 = 0, host: String = "127.0.0.1", script: [Int] = [], refusing: String? = nil, delay: Duration = .zero) throws {
        let shared = Shared(State(script: script, refusing: refusing.map { Data($0.utf8) }))
        self.shared = shared
        self.delay = delay
        self.host = host
        var config = HTTPServerConfiguration(listener: .tcp(host: host, port: port))
        config.shutdownGracePeriod = .seconds(1)
        server = HTTPServer(configuration: config) { request in
            let status = shared.state.withLock { s -> Int in
                s.received.append(Received(request: request, at: .now))
                if let refused = s.refusing, request.body.range(of: refused) != nil { return 500 }
                return s.script.isEmpty ? 200 : s.script.removeFirst()
            }
            if delay > .zero { try? await Task.sleep(for: delay) }
            return HTTPResponse(status: status, body: Data("ok".utf8))
        }
        try server.start()
    }

    var port: UInt16 { server.port ?? 0 }
    var url: String { "http://\(host):\(port)/hook" }

    /// `http://name:port` + `path`: this receiver under a host name.
    func url(name: String, path: String) -> String { "http://\(name):\(port)\(path)" }

    var received: [Received] { shared.state.withLock { $0.received } }

    /// Answers the next requests with these statuses (then 200 again).
    func script(_ statuses: [Int]) { shared.state.withLock { $0.script = statuses } }

    func stop() async { await server.stop() }

    /// Waits until `condition` holds for what was received, or `timeout` passes.
    @discardableResult
    func wait(timeout: Duration = .seconds(10), until condition: ([Received]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(received) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(received)
    }
}

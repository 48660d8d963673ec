import Foundation
@testable import AlertdCurl

/// A webhook receiver as many are written: Python's `ThreadingHTTPServer`,
/// HTTP/1.1, and its listen backlog of 5. It counts the requests and the
/// connections they came on; `GET /` answers `{"requests": N, "connections": N}`.
final class PythonWebhookReceiver {
    let dir = TemporaryDirectory()
    let port: Int
    private let process: SpawnedProcess

    var url: String { "http://127.0.0.1:\(port)/hook" }

    init() async throws {
        let script = dir.path + "/receiver.py"
        try Data(Self.server.utf8).write(to: URL(fileURLWithPath: script))
        (process, port) = try await PythonServer.start(script, [dir.path + "/port"], portFile: dir.path + "/port",
                                                       log: dir.path + "/receiver.log", what: "the Python receiver")
    }

    deinit { process.kill() }

    /// Requests and the connections they came on, so far.
    func counts() async throws -> (requests: Int, connections: Int) {
        let response = try await HTTPClient.shared.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/", method: "GET"))
        let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Int] ?? [:]
        return (object["requests"] ?? 0, object["connections"] ?? 0)
    }

    static let server = #"""
    import json, os, sys, threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    lock = threading.Lock()
    state = {"requests": 0, "ports": set()}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        def log_message(self, *args): pass
        def answer(self, body):
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        def do_GET(self):
            with lock:
                body = json.dumps({"requests": state["requests"], "connections": len(state["ports"])}).encode()
            self.answer(body)
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with lock:
                state["requests"] += 1
                state["ports"].add(self.client_address[1])
            self.answer(b"")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    server.serve_forever()
    """#
}

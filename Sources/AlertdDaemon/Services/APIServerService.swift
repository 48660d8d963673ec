import Dispatch
import AlertdHTTPServer
import AlertdLogging
import AlertdServices

/// One API listener as a service. It binds in `start()`, so a port in use
/// stops startup before anyone is told alertd is ready; serves until asked
/// to stop; then stops accepting and lets the requests in progress finish,
/// which cancellation cuts short with 503s.
package final class APIServerService: Service {
    package let server: HTTPServer
    private let shutdown = ShutdownSignal()
    private let log: Logger

    package init(server: HTTPServer, log: Logger) {
        self.server = server
        self.log = log
    }

    /// How often the Unix socket's file is looked for.
    static let socketFileCheckInterval: Duration = .seconds(2)

    package var isTCP: Bool { server.configuration.listener.isTCP }

    package var name: String { isTCP ? "api-tcp" : "api-unix" }

    package func start() throws(DaemonError) {
        do { try server.start() } catch {
            // The server's words say what to change; these, where it is set.
            let setting = switch error {
            case .addressInUse, .addressUnavailable: " The address is api.listen in the configuration, or --listen."
            case .socketPathInUse, .socketPathNotASocket, .socketPathTooLong: " The path is api.socket in the configuration, or --socket."
            default: ""
            }
            throw DaemonError(code: .listener, message: error.description + setting)
        }
    }

    package func run() async {
        if case .unixSocket(let path, _) = server.configuration.listener { await watchSocketFile(path) }
        await shutdown.wait()
        // Cancelled, stop() skips its waits: the grace is over.
        await server.stop()
    }

    /// Until the stop, looks for the socket's file every few seconds and
    /// makes it again if it is gone. What it finds is logged when it
    /// changes, not at every look.
    private func watchSocketFile(_ path: String) async {
        var last = HTTPServer.SocketFileCheck.inPlace
        var failing = false
        while !(await shutdown.wait(for: Self.socketFileCheckInterval)), !Task.isCancelled {
            // Off the task pool: a remake waits for the old acceptor's thread to end.
            let checked = await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPServer.SocketFileCheck, HTTPServerError>, Never>) in
                DispatchQueue.global().async { [server] in
                    continuation.resume(returning: Result { () throws(HTTPServerError) in try server.remakeSocketFileIfRemoved() })
                }
            }
            switch checked {
            case .success(let found):
                if found == .remade {
                    log.warning("the API socket's file was removed while alertd ran (a clean-up of its directory?); made it again", ["socket": path])
                } else if found == .taken, last != .taken {
                    log.error("another file has taken the API socket's path; alertctl cannot reach alertd there until it is removed (alertd then makes its socket again) or alertd is restarted",
                              ["socket": path])
                }
                last = found
                failing = false
            case .failure(let error):
                if !failing {
                    log.error("the API socket's file was removed and cannot be made again (its directory gone?); alertctl cannot connect until it can, tried every few seconds",
                              ["socket": path, "error": error.description])
                }
                failing = true
            }
        }
    }

    package func shutdownGracefully() {
        shutdown.trigger()
    }
}

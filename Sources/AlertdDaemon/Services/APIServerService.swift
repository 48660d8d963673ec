import AlertdHTTPServer
import AlertdServices

/// One API listener as a service. It binds in `start()`, so a port in use
/// stops startup before anyone is told alertd is ready; serves until asked
/// to stop; then stops accepting and lets the requests in progress finish,
/// which cancellation cuts short with 503s.
package final class APIServerService: Service {
    package let server: HTTPServer
    private let shutdown = ShutdownSignal()

    package init(server: HTTPServer) {
        self.server = server
    }

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
        await shutdown.wait()
        // Cancelled, stop() skips its waits: the grace is over.
        await server.stop()
    }

    package func shutdownGracefully() {
        shutdown.trigger()
    }
}

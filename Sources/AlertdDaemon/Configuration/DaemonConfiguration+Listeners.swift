import FoundationEssentials
import AlertdHTTPServer
import AlertdPOSIX

extension DaemonConfiguration {
    /// The listeners the API serves, Unix socket first: each activated
    /// socket in place of the one alertd would bind, then the configured
    /// socket path and `api.listen` for the rest. A TCP socket systemd passed
    /// is served even with `api.listen` unset: enabling the socket unit is
    /// the operator's choice.
    public func apiListeners(
        environment: [String: String] = CurrentProcess.environment
    ) -> [HTTPServerConfiguration.Listener] {
        var listeners: [HTTPServerConfiguration.Listener] = []
        if let fd = api.activatedListeners.unixSocket {
            listeners.append(.listeningSocket(descriptor: fd, kind: .unixSocket))
        } else {
            listeners.append(.unixSocket(path: resolvedSocketPath(environment: environment), mode: api.socketMode))
        }
        if let fd = api.activatedListeners.tcp {
            listeners.append(.listeningSocket(descriptor: fd, kind: .tcp))
        } else if let listen = api.listen.flatMap(ListenAddress.init) {
            listeners.append(.tcp(host: listen.host, port: listen.port))
        }
        return listeners
    }
}

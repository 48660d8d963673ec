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

    /// Why no Unix socket can ever have the configured path: `sun_path`
    /// holds 107 bytes and a NUL. A start found it only at bind, after it
    /// had made the state directory and the store, and `--check-config`
    /// called the file valid.
    public func socketPathLengthProblem(environment: [String: String] = CurrentProcess.environment) -> String? {
        guard api.activatedListeners.unixSocket == nil else { return nil }
        let path = resolvedSocketPath(environment: environment)
        guard path.utf8.count > ListeningSocket.longestUnixPath else { return nil }
        return "api.socket: \(path) is \(path.utf8.count) bytes long, and a Unix socket's path may have at most "
            + "\(ListeningSocket.longestUnixPath): choose a shorter api.socket (or --socket)."
    }

    /// Why the Unix socket cannot be bound where configured, when its
    /// directory does not exist: alertd creates only the state directory
    /// (and systemd `$RUNTIME_DIRECTORY`), so a start would fail at bind;
    /// it fails saying this instead, and `--check-config` warns of it.
    public func socketDirectoryProblem(environment: [String: String] = CurrentProcess.environment) -> String? {
        guard api.activatedListeners.unixSocket == nil else { return nil }
        let path = resolvedSocketPath(environment: environment)
        let directory = Directory.parent(of: path)
        func standardized(_ p: String) -> String { URL(fileURLWithPath: p.isEmpty ? "." : p).standardizedFileURL.path }
        guard standardized(directory) != standardized(stateDirectory), case .failure = FileStatus.of(directory.isEmpty ? "." : directory) else {
            return nil
        }
        return "The socket's directory \(directory) does not exist, and alertd creates only the state directory: create it for the user "
            + "alertd runs as (under systemd, RuntimeDirectory= makes /run/alertd), or change api.socket (or --socket)."
    }
}

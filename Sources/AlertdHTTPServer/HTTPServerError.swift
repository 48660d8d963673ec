import FoundationEssentials
import AlertdPOSIX

/// Why an ``HTTPServer`` could not start. Each case has a stable ``code`` and
/// a ``message`` that says what to do about it.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another process already listens on the address.
    case addressInUse(address: String)
    /// Binding needs privileges the process lacks (ports below 1024, a socket
    /// directory it may not write).
    case permissionDenied(address: String)
    /// The host is not an address of this machine, or cannot be resolved.
    case addressUnavailable(address: String, reason: String)
    /// A live server already answers on the Unix socket path.
    case socketPathInUse(path: String)
    /// Something other than a socket sits at the Unix socket path.
    case socketPathNotASocket(path: String)
    /// Unix socket paths are limited to 107 bytes.
    case socketPathTooLong(path: String)
    /// `start()` was called on a server that is running or was stopped.
    case alreadyStarted
    /// A system call failed for another reason.
    case system(operation: String, address: String, errno: Int32)
    /// libmicrohttpd refused to start with this configuration.
    case startFailed(reason: String)
    /// A descriptor handed over (by systemd's socket activation) is not a
    /// stream socket that listens; `reason` says what it is instead.
    case notAListeningSocket(address: String, reason: String)

    /// A stable machine-readable code.
    public var code: String {
        switch self {
        case .addressInUse: "address_in_use"
        case .permissionDenied: "permission_denied"
        case .addressUnavailable: "address_unavailable"
        case .socketPathInUse: "socket_path_in_use"
        case .socketPathNotASocket: "socket_path_not_a_socket"
        case .socketPathTooLong: "socket_path_too_long"
        case .alreadyStarted: "already_started"
        case .system: "system_error"
        case .startFailed: "start_failed"
        case .notAListeningSocket: "not_a_listening_socket"
        }
    }

    /// A sentence a person can act on.
    public var message: String {
        switch self {
        case .addressInUse(let a):
            "Cannot listen on \(a): the address is already in use. Stop the other process or choose another port."
        case .permissionDenied(let a):
            "Cannot listen on \(a): permission denied. Use a port above 1023, or a socket directory this user may write."
        case .addressUnavailable(let a, let reason):
            "Cannot listen on \(a): \(reason). Use an address of this machine, e.g. 127.0.0.1."
        case .socketPathInUse(let p):
            "Cannot listen on \(p): another server is already listening there. Stop it (is alertd already running?) or choose another path."
        case .socketPathNotASocket(let p):
            "Cannot listen on \(p): a file that is not a socket is in the way. Remove it or choose another path."
        case .socketPathTooLong(let p):
            "Cannot listen on \(p): Unix socket paths are limited to 107 bytes. Choose a shorter path."
        case .alreadyStarted:
            "The server was already started; make a new server to listen again."
        case .system(let op, let a, let e):
            "Cannot listen on \(a): \(op) failed: \(Errno(e).description) (errno \(e))."
        case .startFailed(let reason):
            "The HTTP server could not start: \(reason)."
        case .notAListeningSocket(let a, let reason):
            "Cannot listen on \(a): \(reason). Check what passes it (a systemd socket unit needs ListenStream=)."
        }
    }

    public var description: String { "\(message) [\(code)]" }
}

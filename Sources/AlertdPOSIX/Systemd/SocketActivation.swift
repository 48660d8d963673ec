import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The listening sockets systemd passed in (socket activation), read the way
/// `sd_listen_fds_with_names(3)` does, without libsystemd.
///
/// systemd sets `LISTEN_PID` (who the sockets are for), `LISTEN_FDS` (how
/// many, starting at descriptor 3) and `LISTEN_FDNAMES` (colon-separated
/// `FileDescriptorName=`s). alertd knows two names: `api` is the Unix socket,
/// `http` the TCP listener. A socket without a name (systemd says `unknown`)
/// is classified by its address family; a name alertd does not know is
/// reported in ``warnings`` and left alone.
/// ```swift
/// let activation = try SocketActivation.fromProcess()
/// for w in activation.warnings { log.warning("socket activation", ["problem": w]) }
/// config.api.activatedListeners = activation.activatedListeners
/// ```
public struct SocketActivation: Sendable, Equatable {
    /// A socket's address family, from `getsockname(2)`.
    public enum Family: Sendable, Equatable, CustomStringConvertible {
        case unix, inet, inet6
        case other(Int32)

        public var description: String {
            switch self {
            case .unix: "AF_UNIX"
            case .inet: "AF_INET"
            case .inet6: "AF_INET6"
            case .other(let f): "address family \(f)"
            }
        }
    }

    /// What alertd does with a socket.
    public enum Role: String, Sendable, Equatable, CaseIterable {
        /// The API's Unix socket: `FileDescriptorName=api`.
        case api
        /// The API on TCP: `FileDescriptorName=http`.
        case http
    }

    /// One passed descriptor.
    public struct PassedSocket: Sendable, Equatable {
        public var descriptor: Int32
        /// `FileDescriptorName=`; nil when systemd passed none (`unknown`).
        public var name: String?
        public var family: Family
        /// The role alertd gives it; nil when it is not used.
        public var role: Role?
    }

    /// Every passed descriptor, in order.
    public var sockets: [PassedSocket] = []
    /// Problems worth a log line that do not stop alertd: an unknown name,
    /// a socket of the wrong kind, two sockets for one role.
    public var warnings: [String] = []

    /// Nothing passed.
    public init() {}

    /// Whether systemd passed any sockets at all.
    public var isActive: Bool { !sockets.isEmpty }

    /// The descriptor serving `role`, if one was passed.
    public func descriptor(for role: Role) -> Int32? {
        sockets.first { $0.role == role }?.descriptor
    }

    /// The environment variables systemd sets for socket activation.
    public static let environmentNames = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]

    /// Reads the sockets passed to `pid`, numbered from `firstDescriptor`
    /// (3 in a real service; tests pass their own). Sets `FD_CLOEXEC` on each,
    /// so a child alertd starts does not inherit them. Returns no sockets
    /// when `LISTEN_PID` is unset or names another process: the variables
    /// were inherited, not meant for us.
    public static func parse(
        environment: [String: String], firstDescriptor: Int32 = 3, pid: Int32 = getpid()
    ) throws(SocketActivationError) -> SocketActivation {
        var result = SocketActivation()
        guard let pidText = environment["LISTEN_PID"], !pidText.isEmpty else { return result }
        guard let listenPID = Int32(pidText), listenPID > 0 else { throw .invalidVariable("LISTEN_PID", pidText) }
        guard listenPID == pid else { return result }
        guard let countText = environment["LISTEN_FDS"], !countText.isEmpty else { return result }
        guard let count = Int32(countText), count >= 0, count <= 1024 else { throw .invalidVariable("LISTEN_FDS", countText) }
        guard count > 0 else { return result }

        var names: [String?] = Array(repeating: nil, count: Int(count))
        if let namesText = environment["LISTEN_FDNAMES"], !namesText.isEmpty {
            let given = namesText.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard given.count == Int(count) else { throw .nameCountMismatch(names: given.count, descriptors: Int(count)) }
            names = given.map { $0.isEmpty || $0 == "unknown" ? nil : $0 }
        }

        for (index, name) in names.enumerated() {
            let fd = firstDescriptor + Int32(index)
            let flags = fcntl(fd, F_GETFD)
            guard flags >= 0, fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == 0 else {
                throw .badDescriptor(fd, errno: errno)
            }
            let family = Self.family(of: fd)
            var socket = PassedSocket(descriptor: fd, name: name, family: family, role: nil)
            let label = "descriptor \(fd)" + (name.map { " (\"\($0)\")" } ?? "")
            let wanted: Role?
            switch name {
            case nil:
                switch family {
                case .unix: wanted = .api
                case .inet, .inet6: wanted = .http
                case .other:
                    result.warnings.append("\(label) is a socket of \(family); alertd serves only AF_UNIX and TCP sockets, so it is ignored.")
                    wanted = nil
                }
            case let name?:
                wanted = Role(rawValue: name)
                if wanted == nil {
                    let known = Role.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " and ")
                    result.warnings.append("\(label) has a name alertd does not know; it knows \(known). It is ignored.")
                }
            }
            if let role = wanted {
                if let problem = Self.problem(fd: fd, family: family, role: role) {
                    result.warnings.append("\(label): \(problem) It is ignored.")
                } else if let taken = result.descriptor(for: role) {
                    result.warnings.append("\(label) is a second \"\(role.rawValue)\" socket; alertd serves descriptor \(taken) and ignores this one.")
                } else {
                    socket.role = role
                }
            }
            result.sockets.append(socket)
        }
        return result
    }

    /// The real thing: this process's environment and descriptors from 3.
    /// Removes the three variables afterwards, as `sd_listen_fds(1)` does, so
    /// children never see them.
    public static func fromProcess() throws(SocketActivationError) -> SocketActivation {
        defer { for name in environmentNames { unsetenv(name) } }
        return try parse(environment: CurrentProcess.environment, firstDescriptor: 3, pid: getpid())
    }

    /// The socket's address family, or `.other(-1)` when it is not a socket.
    public static func family(of fd: Int32) -> Family {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0 else { return .other(-1) }
        switch Int32(storage.ss_family) {
        case AF_UNIX: return .unix
        case AF_INET: return .inet
        case AF_INET6: return .inet6
        case let f: return .other(f)
        }
    }

    /// Why `fd` cannot serve `role`, or nil if it can: it must be a listening
    /// stream socket of the role's family.
    private static func problem(fd: Int32, family: Family, role: Role) -> String? {
        switch (role, family) {
        case (.api, .unix), (.http, .inet), (.http, .inet6): break
        case (.api, _): return "the \"api\" socket must be a Unix socket, but this one is \(family)."
        case (.http, _): return "the \"http\" socket must be a TCP socket, but this one is \(family)."
        }
        var type: Int32 = 0, listening: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) == 0 else { return "it is not a socket." }
        guard type == Int32(SOCK_STREAM.rawValue) else {
            return "it is not a stream socket (use ListenStream=, not ListenDatagram= or ListenSequentialPacket=)."
        }
        size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0, listening != 0 else {
            return "it is not listening (Accept=yes is not supported; alertd accepts connections itself)."
        }
        return nil
    }
}

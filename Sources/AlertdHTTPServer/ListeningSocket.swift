import CMicroHTTPD
import FoundationEssentials
import AlertdHTTP
import AlertdPOSIX

#if canImport(Glibc)
import Glibc
#endif

/// A bound, listening, non-blocking socket for the server's
/// ``ConnectionAcceptor``. Binding it here rather than in libmicrohttpd lets
/// startup failures carry the real errno.
package struct ListeningSocket: Sendable {
    package let descriptor: Int32
    package let kind: HTTPRequest.Listener
    /// The TCP port actually bound; nil for Unix sockets.
    package let port: UInt16?
    /// Whether `close()` should close the descriptor (false for adopted ones).
    package let owned: Bool
    /// The socket file to remove on close, with its identity at creation so a
    /// file someone else put there since is left alone.
    package let unixPath: (path: String, identity: FileStatus.Identity)?

    /// Human-readable, for error messages.
    package let address: String

    package static func tcp(host: String, port: UInt16) throws(HTTPServerError) -> ListeningSocket {
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw .addressUnavailable(address: address, reason: String(cString: gai_strerror(rc)))
        }
        defer { freeaddrinfo(list) }

        let fd = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .system(operation: "socket", address: address, errno: errno) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let e = errno
            _ = Glibc.close(fd)
            throw bindError(e, address: address)
        }
        guard listen(fd, SOMAXCONN) == 0 else {
            let e = errno
            _ = Glibc.close(fd)
            throw .system(operation: "listen", address: address, errno: e)
        }
        let bound = boundPort(fd) ?? port
        return ListeningSocket(
            descriptor: fd, kind: .tcp, port: bound, owned: true, unixPath: nil,
            address: host.contains(":") ? "[\(host)]:\(bound)" : "\(host):\(bound)")
    }

    /// The longest path a Unix socket can have, in bytes: `sun_path` less its NUL.
    package static let longestUnixPath = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    package static func unix(path: String, mode: UInt16) throws(HTTPServerError) -> ListeningSocket {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        guard path.utf8.count <= longestUnixPath, !path.isEmpty else { throw .socketPathTooLong(path: path) }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
        }
        let addrLen = socklen_t(MemoryLayout<sockaddr_un>.size)

        try removeStaleSocket(at: path, address: addr)

        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .system(operation: "socket", address: path, errno: errno) }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, addrLen) }
        }
        guard bound == 0 else {
            let e = errno
            _ = Glibc.close(fd)
            throw bindError(e, address: path)
        }
        // chmod before listen: until listen() nobody can connect, so the
        // umask-derived mode bind() left is never exposed.
        guard chmod(path, mode_t(mode)) == 0 else {
            let e = errno
            _ = Glibc.close(fd)
            unlink(path)
            throw .system(operation: "chmod", address: path, errno: e)
        }
        guard case .success(let status) = FileStatus.of(path), listen(fd, SOMAXCONN) == 0 else {
            let e = errno
            _ = Glibc.close(fd)
            unlink(path)
            throw .system(operation: "listen", address: path, errno: e)
        }
        return ListeningSocket(
            descriptor: fd, kind: .unixSocket, port: nil, owned: true,
            unixPath: (path, status.identity), address: path)
    }

    package static func adopt(descriptor: Int32, kind: HTTPRequest.Listener) throws(HTTPServerError) -> ListeningSocket {
        let address = "socket descriptor \(descriptor)"
        if let reason = notListeningReason(descriptor) { throw .notAListeningSocket(address: address, reason: reason) }
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0 else { throw .system(operation: "fcntl", address: address, errno: errno) }
        // The acceptor takes what is queued until accept() says none is left; a blocking one would wait for the next.
        guard fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw .system(operation: "fcntl", address: address, errno: errno)
        }
        return ListeningSocket(
            descriptor: descriptor, kind: kind, port: kind == .tcp ? boundPort(descriptor) : nil,
            owned: false, unixPath: nil, address: address)
    }

    /// Why `descriptor` cannot be listened on, when it is not a stream
    /// socket that listens; nil when it is. libmicrohttpd refuses some such
    /// descriptors with no reason given, and takes others (a socket that
    /// does not listen) to serve nothing.
    private static func notListeningReason(_ descriptor: Int32) -> String? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &value, &length) == 0 else {
            let e = errno
            return e == ENOTSOCK ? "it is not a socket" : "its kind cannot be read: \(Errno(e).description)"
        }
        guard value == Int32(SOCK_STREAM.rawValue) else { return "it is a socket, but not a stream socket" }
        length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &value, &length) == 0, value != 0 else {
            return "it is a stream socket that does not listen"
        }
        return nil
    }

    /// Closes the socket if it is ours and removes its file if it is still the one we made.
    package func close() {
        if owned { _ = Glibc.close(descriptor) }
        if let unixPath {
            if case .success(let entry) = FileStatus.link(unixPath.path), entry.identity == unixPath.identity {
                unlink(unixPath.path)
            }
        }
    }

    /// A socket file nobody listens on is left over from a crash: remove it.
    /// A live one, or a file that is not a socket, is somebody else's.
    private static func removeStaleSocket(at path: String, address: sockaddr_un) throws(HTTPServerError) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        guard st.st_mode & S_IFMT == S_IFSOCK else { throw .socketPathNotASocket(path: path) }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { throw .system(operation: "socket", address: path, errno: errno) }
        defer { _ = Glibc.close(probe) }
        var addr = address
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if rc == 0 { throw .socketPathInUse(path: path) }
        let e = errno
        guard e == ECONNREFUSED else {
            throw e == EACCES ? .permissionDenied(address: path) : .system(operation: "connect", address: path, errno: e)
        }
        guard unlink(path) == 0 else { throw bindError(errno, address: path) }
    }

    private static func bindError(_ e: Int32, address: String) -> HTTPServerError {
        switch e {
        case EADDRINUSE: .addressInUse(address: address)
        case EACCES, EPERM: .permissionDenied(address: address)
        case EADDRNOTAVAIL: .addressUnavailable(address: address, reason: "the address is not available on this machine")
        default: .system(operation: "bind", address: address, errno: e)
        }
    }

    private static func boundPort(_ fd: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard rc == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
        default:
            return nil
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A connected stream socket (a Unix socket or TCP) with blocking-style
/// calls bounded by a deadline: `connect(2)`, `write(2)` and `read(2)` on a
/// non-blocking descriptor, waiting in `poll(2)`. Each call blocks its
/// thread, so callers run them off the cooperative pool. It is Sendable so
/// that another thread can ``shutDown()`` a call blocked on it.
package final class StreamSocket: Sendable {
    /// Why a call stopped: the deadline passed, or the system call failed.
    package enum Failure: Error, Equatable {
        case timedOut
        case failed(Errno)
    }

    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }

    /// The user the process at the other end of a Unix socket ran as when
    /// it made the socket (`SO_PEERCRED`): who is answering, whatever the
    /// path led to. Nil for TCP, or when the kernel does not say.
    package var peerUserID: UInt32? { Self.peerUserID(of: fd) }

    /// ``peerUserID`` of the socket `fd`, whoever made it.
    package static func peerUserID(of fd: Int32) -> UInt32? {
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
              Int(length) == MemoryLayout.size(ofValue: credentials) else { return nil }
        return credentials.uid
    }

    /// Connects to the Unix socket at `path`.
    package static func connect(unixSocket path: String, deadline: ContinuousClock.Instant) -> Result<StreamSocket, Failure> {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return .failure(.failed(Errno(ENAMETOOLONG))) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: bytes) }
        return connect(family: AF_UNIX, deadline: deadline) { fd in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }
    }

    /// Connects over TCP to `host` (a numeric IPv4 or IPv6 address) and `port`.
    package static func connect(tcpHost host: String, port: UInt16, deadline: ContinuousClock.Instant) -> Result<StreamSocket, Failure> {
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            return connect(family: AF_INET, deadline: deadline) { fd in
                withUnsafePointer(to: &v4) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
            }
        }
        var v6 = sockaddr_in6()
        guard inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 else { return .failure(.failed(Errno(EINVAL))) }
        v6.sin6_family = sa_family_t(AF_INET6)
        v6.sin6_port = port.bigEndian
        return connect(family: AF_INET6, deadline: deadline) { fd in
            withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }

    private static func connect(family: Int32, deadline: ContinuousClock.Instant, _ call: (Int32) -> Int32)
        -> Result<StreamSocket, Failure> {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .failure(.failed(.current)) }
        let connection = StreamSocket(fd: fd)
        if family != AF_UNIX {
            // Small requests and answers: send each at once rather than wait for an ACK (Nagle).
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        if call(fd) == 0 { return .success(connection) }
        guard errno == EINPROGRESS || errno == EAGAIN || errno == EINTR else { return .failure(.failed(.current)) }
        if let failure = connection.wait(for: Int16(POLLOUT), until: deadline) { return .failure(failure) }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return .failure(.failed(.current)) }
        return error == 0 ? .success(connection) : .failure(.failed(Errno(error)))
    }

    /// Ends the connection both ways, from any thread: a call blocked on it
    /// in another thread returns at once (reads see the end of input). The
    /// descriptor stays open until the socket is freed, so no other file
    /// can take its number while that call still holds it.
    package func shutDown() {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Writes every byte of `bytes`.
    package func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant) -> Failure? {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if n >= 0 {
                    offset += n
                } else if errno == EAGAIN || errno == EINTR {
                    if let failure = wait(for: Int16(POLLOUT), until: deadline) { return failure }
                } else {
                    return .failed(.current)
                }
            }
            return nil
        }
    }

    /// Reads what has arrived into `buffer` (at most its size); 0 at end of input.
    package func read(into buffer: inout [UInt8], deadline: ContinuousClock.Instant) -> Result<Int, Failure> {
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n >= 0 { return .success(n) }
            guard errno == EAGAIN || errno == EINTR else { return .failure(.failed(.current)) }
            if let failure = wait(for: Int16(POLLIN), until: deadline) { return .failure(failure) }
        }
    }

    /// Waits in `poll(2)` until the socket is ready for `events` or the deadline passes.
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) -> Failure? {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return .timedOut }
            let (seconds, attoseconds) = left.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var poller = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&poller, 1, milliseconds)
            if ready > 0 { return nil }
            if ready < 0, errno != EINTR { return .failed(.current) }
        }
    }
}

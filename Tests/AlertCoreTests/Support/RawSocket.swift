import Foundation

/// A plain TCP client for sending bytes no well-behaved client would send and
/// for watching a response arrive piece by piece.
final class RawSocket {
    let fd: Int32

    /// Connects to 127.0.0.1:`port`, from `source` (another loopback
    /// address, to look like another client) and with a receive buffer of
    /// `receiveBuffer` bytes (a small one makes a slow reader) when given.
    init(port: UInt16, source: String? = nil, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            // No close() before these throws: every stored property is set,
            // so a throw runs deinit, which closes fd. A second close here
            // once closed whatever descriptor another thread had just been
            // given that number (libmicrohttpd's epoll set, its listener) and
            // aborted the test process.
            guard bound == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) {
        send(bytes: Array(text.utf8))
    }

    func send(bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    /// Reads until `done` is satisfied by everything read so far, the peer
    /// closes, or 5 s pass. The blocking reads run on a thread of their own:
    /// on the cooperative pool they would starve the server's handler tasks.
    func read(until done: @escaping @Sendable (String) -> Bool = { _ in false }) async -> String {
        let fd = self.fd
        return await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: Self.blockingRead(fd, until: done))
            }.start()
        }
    }

    /// Reads until the peer closes (true) or 5 s pass without a byte (false).
    func readToEnd() async -> (text: String, closedByPeer: Bool) {
        let fd = self.fd
        return await withCheckedContinuation { continuation in
            Thread {
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 64 * 1024)
                while true {
                    let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if n <= 0 {
                        continuation.resume(returning: (String(decoding: received, as: UTF8.self), n == 0 || errno == ECONNRESET))
                        return
                    }
                    received += buffer[..<n]
                }
            }.start()
        }
    }

    private static func blockingRead(_ fd: Int32, until done: (String) -> Bool) -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !done(String(decoding: received, as: UTF8.self)) {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received += buffer[..<n]
        }
        return String(decoding: received, as: UTF8.self)
    }
}

/// A TCP port that accepts connections (the kernel completes the handshake
/// into the backlog) but never reads or answers: a hung server.
final class SilentListener {
    let fd: Int32
    let port: UInt16

    init() throws {
        (fd, port) = try bindLoopback()
        listen(fd, 64)
    }

    deinit { close(fd) }
}

/// A TCP port whose server answers every connection with `reply`, which is
/// not HTTP, and hangs up: TLS on a plain port, a proxy's garbage.
final class GarbageListener: @unchecked Sendable {
    // Only the accepting thread uses `fd` after init; deinit's close ends it.
    let fd: Int32
    let port: UInt16

    init(reply: [UInt8]) throws {
        (fd, port) = try bindLoopback()
        listen(fd, 64)
        let fd = fd
        Thread.detachNewThread {
            while true {
                let c = accept(fd, nil, nil)
                guard c >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = read(c, &buffer, buffer.count)
                _ = reply.withUnsafeBytes { write(c, $0.baseAddress, $0.count) }
                close(c)
            }
        }
    }

    deinit { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }
}

/// A TCP port that is bound but not listening, so connecting is refused and
/// no other test can take the port meanwhile.
final class ClosedPort {
    let fd: Int32
    let port: UInt16

    init() throws {
        (fd, port) = try bindLoopback()
    }

    deinit { close(fd) }
}

private func bindLoopback() throws -> (Int32, UInt16) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let rc = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Int32 in
            guard bind(fd, p, len) == 0 else { return -1 }
            return getsockname(fd, p, &len)
        }
    }
    guard rc == 0 else {
        close(fd)
        throw POSIXError(.init(rawValue: errno) ?? .EIO)
    }
    return (fd, UInt16(bigEndian: addr.sin_port))
}

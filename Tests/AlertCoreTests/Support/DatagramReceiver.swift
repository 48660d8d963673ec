import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A bound `SOCK_DGRAM` Unix socket standing in for systemd's notify socket:
/// a file in a temp dir, or a Linux abstract name. `address` is what goes
/// in `NOTIFY_SOCKET`.
final class DatagramReceiver: Sendable {
    let fd: Int32
    /// `/tmp/.../notify` or `@alertd-test-...`.
    let address: String
    private let dir: TemporaryDirectory?

    init(abstract: Bool = false) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let name: [UInt8]
        if abstract {
            dir = nil
            let n = "alertd-test-\(UUID().uuidString.prefix(12).lowercased())"
            address = "@" + n
            name = [0] + Array(n.utf8)
        } else {
            let d = TemporaryDirectory()
            dir = d
            address = d.path + "/notify"
            name = Array(address.utf8) + [0]
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + name.count)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        // deinit closes fd when this throws (every stored property is set); closing it here too would close another's.
        guard rc == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }

    deinit { close(fd) }

    /// The next datagram, or nil if none arrives within `timeout`. Polls
    /// without blocking, so it is safe on the cooperative pool.
    func next(timeout: Duration = .seconds(2)) async -> String? {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n >= 0 { return String(decoding: buffer[..<n], as: UTF8.self) }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Datagrams until one contains `line` (returned with all before it), or nil on timeout.
    func wait(for line: String, timeout: Duration = .seconds(15)) async -> [String]? {
        let deadline = ContinuousClock.now + timeout
        var seen: [String] = []
        while ContinuousClock.now < deadline {
            guard let message = await next(timeout: deadline - ContinuousClock.now) else { return nil }
            seen.append(message)
            if message.split(separator: "\n").contains(Substring(line)) { return seen }
        }
        return nil
    }
}

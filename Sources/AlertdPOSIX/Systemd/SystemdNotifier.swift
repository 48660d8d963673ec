import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Tells the service manager how the daemon is doing, over the `sd_notify`
/// protocol, without libsystemd: one `SOCK_DGRAM` datagram of newline-separated
/// `NAME=value` fields to the socket named by `$NOTIFY_SOCKET`.
///
/// When `$NOTIFY_SOCKET` is unset (not started by systemd, or not
/// `Type=notify`), every call is a no-op. When it is set but the socket is
/// gone, calls throw a ``SystemdNotifierError``; nothing ever traps.
/// ```swift
/// let notifier = SystemdNotifier()
/// try? notifier.ready()
/// try? notifier.status("3 alerts pending")
/// ```
public struct SystemdNotifier: Sendable {
    /// Where datagrams go, as parsed from `$NOTIFY_SOCKET`.
    public enum Destination: Sendable, Equatable {
        /// A socket file, e.g. `/run/systemd/notify`.
        case path(String)
        /// A Linux abstract socket; `name` excludes the leading `@` (sent as a NUL byte).
        case abstract(String)
    }

    /// Nil when notifications are off because `$NOTIFY_SOCKET` is unset or empty.
    public let destination: Destination?
    /// Why `$NOTIFY_SOCKET` could not be used, when it is set but unusable
    /// (reported on the first send, and readable up front for a log line).
    public let configurationProblem: SystemdNotifierError?

    /// Reads `$NOTIFY_SOCKET` from `environment`; pass a dictionary to test.
    public init(environment: [String: String] = CurrentProcess.environment) {
        guard let raw = environment["NOTIFY_SOCKET"], !raw.isEmpty else {
            destination = nil
            configurationProblem = nil
            return
        }
        let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        if raw.hasPrefix("@") {
            // The abstract name may use the whole of sun_path after the NUL.
            if raw.utf8.count > capacity {
                destination = nil
                configurationProblem = .socketPathTooLong(raw)
            } else {
                destination = .abstract(String(raw.dropFirst()))
                configurationProblem = nil
            }
        } else if raw.hasPrefix("/") {
            if raw.utf8.count >= capacity {
                destination = nil
                configurationProblem = .socketPathTooLong(raw)
            } else {
                destination = .path(raw)
                configurationProblem = nil
            }
        } else {
            // e.g. systemd 254's `vsock:` addresses, which alertd does not need.
            destination = nil
            configurationProblem = .unsupportedAddress(raw)
        }
    }

    /// Whether anything is sent at all.
    public var isEnabled: Bool { destination != nil || configurationProblem != nil }

    // MARK: - The protocol's messages

    /// `READY=1`: startup is done; listeners are bound and alerts are being delivered.
    public func ready(status: String? = nil) throws(SystemdNotifierError) {
        try send(["READY=1"] + (status.map { ["STATUS=\($0)"] } ?? []))
    }

    /// `STATUS=…`: one line shown by `systemctl status`.
    public func status(_ text: String) throws(SystemdNotifierError) {
        try send(["STATUS=\(text)"])
    }

    /// `STOPPING=1`: shutdown has begun.
    public func stopping(status: String? = nil) throws(SystemdNotifierError) {
        try send(["STOPPING=1"] + (status.map { ["STATUS=\($0)"] } ?? []))
    }

    /// `RELOADING=1` with `MONOTONIC_USEC`, which systemd 253+ requires to tie
    /// the reload to its request; send ``ready(status:)`` when done.
    public func reloading(status: String? = nil) throws(SystemdNotifierError) {
        try send(["RELOADING=1", "MONOTONIC_USEC=\(Self.monotonicMicroseconds())"]
                 + (status.map { ["STATUS=\($0)"] } ?? []))
    }

    /// `WATCHDOG=1`: the daemon is alive. Send more often than ``watchdogInterval(environment:pid:)``.
    public func watchdog() throws(SystemdNotifierError) {
        try send(["WATCHDOG=1"])
    }

    /// Sends `fields` in one datagram, in key order so messages are stable.
    /// Newlines in values become spaces: a value cannot span fields.
    public func notify(_ fields: [String: String]) throws(SystemdNotifierError) {
        var lines: [String] = []
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            guard !key.isEmpty, !key.contains("="), !key.contains(where: \.isNewline) else {
                throw .invalidField(key)
            }
            lines.append("\(key)=\(value)")
        }
        try send(lines)
    }

    /// Sends `lines` (each already `NAME=value`) in one datagram.
    package func send(_ lines: [String]) throws(SystemdNotifierError) {
        if let configurationProblem { throw configurationProblem }
        guard let destination, !lines.isEmpty else { return }
        let message = lines.map { String($0.map { $0.isNewline ? " " : $0 }) }.joined(separator: "\n") + "\n"
        try Self.sendDatagram(Array(message.utf8), to: destination)
    }

    // MARK: - Watchdog

    /// The watchdog timeout systemd expects pings within (`WatchdogSec=`),
    /// from `$WATCHDOG_USEC`, or nil when the watchdog is off. `$WATCHDOG_PID`,
    /// when set, must name this process: the variables may be inherited by a
    /// child that is not the service's main process.
    public static func watchdogInterval(
        environment: [String: String] = CurrentProcess.environment, pid: Int32 = getpid()
    ) -> Duration? {
        guard let raw = environment["WATCHDOG_USEC"], let usec = UInt64(raw), usec > 0 else { return nil }
        if let pidText = environment["WATCHDOG_PID"], !pidText.isEmpty {
            guard let watched = Int32(pidText), watched == pid else { return nil }
        }
        return .microseconds(Int64(clamping: usec))
    }

    /// `CLOCK_MONOTONIC` in microseconds, the clock systemd's `MONOTONIC_USEC` uses.
    public static func monotonicMicroseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1_000
    }

    // MARK: - The socket

    /// One `sendto(2)` on a fresh `SOCK_DGRAM | SOCK_CLOEXEC` socket. The
    /// address length is exact: an abstract name's length is part of the name.
    private static func sendDatagram(_ bytes: [UInt8], to destination: Destination) throws(SystemdNotifierError) {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let nameBytes: [UInt8]
        switch destination {
        case .path(let path): nameBytes = Array(path.utf8) + [0]
        case .abstract(let name): nameBytes = [0] + Array(name.utf8)
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: nameBytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + nameBytes.count)

        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system(operation: "socket", errno: errno) }
        defer { _ = close(fd) }
        while true {
            let sent = bytes.withUnsafeBytes { buffer in
                withUnsafePointer(to: &addr) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), $0, length)
                    }
                }
            }
            if sent >= 0 { return }
            let e = errno
            if e == EINTR { continue }
            throw .sendFailed(destination: destination, errno: e)
        }
    }
}

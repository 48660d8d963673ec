import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Closes connections that take too long to send a request, however
/// steadily they trickle it.
///
/// libmicrohttpd's own timeout closes a connection only when it goes silent.
/// One that sends a header line every few seconds (slowloris) would keep its
/// slot for ever, and enough of them, from a handful of addresses, lock
/// every other client out of the listener, with no token needed.
///
/// So each connection is timed from when it opened, or its last answer was
/// sent, until its request is whole and with the handler (an event stream
/// it then reads for hours is not timed). A sweep shuts down the socket of
/// any that overran; libmicrohttpd sees the end of the stream and closes
/// the connection. With most of the connection limit in use the allowance
/// shrinks, so connections that trickle make room for new clients.
package final class ConnectionWatch: Sendable {
    private struct Entry {
        let fd: Int32
        var since: ContinuousClock.Instant
        /// Its request is with the handler, or its answer is being sent.
        var busy = false
        /// Its socket was shut down; libmicrohttpd has yet to close it.
        var cut = false
    }

    /// Keyed by the connection's address, which libmicrohttpd keeps until it
    /// reports the connection closed.
    private let entries = Mutex<[UInt: Entry]>([:])
    private let timeout: Duration
    private let timeoutUnderLoad: Duration
    private let loadThreshold: Int

    /// `timeout` for a whole request; `timeoutUnderLoad` once `loadThreshold`
    /// connections are open.
    package init(timeout: Duration, timeoutUnderLoad: Duration, loadThreshold: Int) {
        self.timeout = timeout
        self.timeoutUnderLoad = min(timeout, timeoutUnderLoad)
        self.loadThreshold = max(1, loadThreshold)
    }

    package func opened(_ connection: OpaquePointer, fd: Int32, at now: ContinuousClock.Instant = .now) {
        guard fd >= 0 else { return }
        entries.withLock { $0[Self.key(connection)] = Entry(fd: fd, since: now) }
    }

    /// libmicrohttpd reports a connection closed before it closes the
    /// socket; removing it under the lock the sweep holds means the sweep
    /// never shuts down a descriptor number that was closed and reused.
    package func closed(_ connection: OpaquePointer) {
        _ = entries.withLock { $0.removeValue(forKey: Self.key(connection)) }
    }

    /// The connection's request is whole and with the handler.
    package func requestStarted(_ connection: OpaquePointer) {
        update(connection) { $0.busy = true }
    }

    /// The connection's answer was sent; the time for its next request starts.
    package func requestFinished(_ connection: OpaquePointer, at now: ContinuousClock.Instant = .now) {
        update(connection) { entry in
            entry.busy = false
            entry.since = now
        }
    }

    /// Changes a connection's entry by reading it out and storing it back:
    /// changing it in place (`entries[key]?.busy = true`) went through three
    /// nested modify accessors whose frames were heap-allocated: seventeen
    /// allocations a request on the server's thread.
    private func update(_ connection: OpaquePointer, _ change: (inout Entry) -> Void) {
        let key = Self.key(connection)
        entries.withLock { e in
            guard var entry = e[key] else { return }
            change(&entry)
            e.updateValue(entry, forKey: key)
        }
    }

    /// How often the server sweeps while connections are open: about the
    /// most an overrun lasts past its allowance (a second more when the
    /// first connection after a quiet spell overruns).
    package static let sweepInterval: Duration = .milliseconds(250)

    /// Open connections.
    package var count: Int { entries.withLock { $0.count } }

    /// Shuts down every connection past its allowance; how many it cut.
    @discardableResult
    package func sweep(at now: ContinuousClock.Instant = .now) -> Int {
        entries.withLock { e in
            let allowance = e.count >= loadThreshold ? timeoutUnderLoad : timeout
            var cut = 0
            for (key, entry) in e where !entry.busy && !entry.cut && now - entry.since > allowance {
                shutdown(entry.fd, Int32(SHUT_RDWR))
                e[key]?.cut = true
                cut += 1
            }
            return cut
        }
    }

    /// Whether the client at the other end of `fd` has closed or reset its
    /// end, looked at without waiting or taking a byte.
    package static func peerHasGone(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection))) }
}

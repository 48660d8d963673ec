import CMicroHTTPD
import Dispatch
import Synchronization
import AlertdPOSIX

#if canImport(Glibc)
import Glibc
#endif

/// Accepts connections on the listener, on a thread of its own, and hands
/// each to libmicrohttpd (`MHD_add_connection`), which runs without a
/// listening socket.
///
/// Given the listener, libmicrohttpd with a pool of threads calls
/// `shutdown(2)` on it as it stops, and a listener systemd passed is the
/// one systemd keeps for the next start: after a restart nothing could
/// connect until the socket unit was restarted too. Accepting here, the
/// listener is never shut down, and a stop only stops accepting: what
/// connects meanwhile waits in the listener's queue, for the next start
/// under systemd. At the connection limit it leaves connections queued
/// there, as libmicrohttpd did.
///
/// The limit is kept here, counting what it handed over and what
/// libmicrohttpd closed since: libmicrohttpd 0.9.75, handed a connection
/// for a worker at its own limit, returns from the refusal with the
/// worker's cleanup mutex still locked, and the worker then waits on itself
/// for good. So libmicrohttpd is started with room for every connection in
/// each of its workers (``HTTPServer``), and never reaches its limit.
///
/// A listener whose socket file is gone (``HTTPServer/remakeSocketFileIfRemoved()``)
/// is handed to the next acceptor as *retiring*: no one can connect to it
/// any more, but what connected before waits in its queue, and is taken
/// up, as room allows, before the acceptor closes it.
///
/// `@unchecked Sendable`: the daemon handle is only used through
/// `MHD_add_connection`, which libmicrohttpd allows from any thread of a
/// daemon started with an inter-thread channel, and `handedOver` and
/// `retiring` only on the acceptor's own thread, or after it ended
/// (``stop()``); everything else is immutable or atomic.
final class ConnectionAcceptor: @unchecked Sendable {
    private let listener: Int32
    private let daemon: OpaquePointer
    private let core: MHDServerCore
    private let connectionLimit: Int
    /// Connections handed to libmicrohttpd; only the acceptor's thread touches it.
    private var handedOver = 0
    /// Listeners nobody can reach any more, still open while their queues are not empty.
    private var retiring: [Int32]
    /// The pipe written once to stop the thread: its read and write ends.
    private let wake: (read: Int32, write: Int32)
    private let finished = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)

    /// Starts accepting on `listener` (non-blocking) for `daemon`. Taking
    /// over from a stopped acceptor of the same daemon, `from` is what its
    /// ``stop()`` returned: the count of connections it handed over, which
    /// may still be open, and its retiring listeners, to which `retiring`
    /// adds; the acceptor owns them and closes each once its queue is empty.
    init(listener: Int32, daemon: OpaquePointer, core: MHDServerCore, connectionLimit: Int, address: String,
         from previous: Handover = Handover(), retiring: [Int32] = []) throws(HTTPServerError) {
        self.listener = listener
        self.daemon = daemon
        self.core = core
        self.connectionLimit = max(1, connectionLimit)
        self.handedOver = previous.handedOver
        self.retiring = previous.retiring + retiring
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .system(operation: "pipe", address: address, errno: errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        wake = (ends[0], ends[1])
        DetachedThread.start(name: "alertd-accept") { [self] in
            run()
            finished.signal()
        }
    }

    /// What one acceptor leaves the next: see ``init(listener:daemon:core:connectionLimit:address:from:retiring:)``.
    struct Handover {
        var handedOver = 0
        var retiring: [Int32] = []
    }

    /// Stops accepting and returns once the thread has: after it, nothing is
    /// handed to the daemon, which may then be stopped. The thread is woken
    /// at once, so the wait is that of one `MHD_add_connection` at most.
    /// Returns the count of connections handed over and the retiring
    /// listeners still open, which are the caller's from then on (to close,
    /// or to hand to the next acceptor). Calls after the first return the same.
    @discardableResult
    func stop() -> Handover {
        if !stopped.exchange(true, ordering: .acquiringAndReleasing) {
            var one: UInt8 = 1
            _ = write(wake.write, &one, 1)
            finished.wait()
            _ = close(wake.read)
            _ = close(wake.write)
        }
        return Handover(handedOver: handedOver, retiring: retiring)
    }

    private func run() {
        while true {
            // Full, no listener is watched, and the count looked at again shortly.
            let full = open >= connectionLimit
            if !full { drainRetiring() }
            let listeners = [listener] + retiring
            var fds = listeners.map { pollfd(fd: $0, events: full ? 0 : Int16(POLLIN), revents: 0) }
            fds.append(pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0))
            let ready = poll(&fds, nfds_t(fds.count), full ? 20 : -1)
            if ready < 0 {
                if errno != EINTR { _ = poll(nil, 0, 20) }
                continue
            }
            if fds[fds.count - 1].revents != 0 { return }
            for (fd, polled) in zip(listeners, fds) where polled.revents != 0 {
                if polled.revents & Int16(POLLIN) != 0 {
                    _ = acceptQueued(from: fd)
                } else {
                    // An error on the listener itself: keep looking, without spinning.
                    _ = poll(nil, 0, 100)
                }
            }
        }
    }

    /// Takes what waits on the retiring listeners, and closes each found
    /// empty: nobody can connect to one any more, so it stays empty.
    private func drainRetiring() {
        retiring.removeAll { fd in
            guard acceptQueued(from: fd) else { return false }
            _ = close(fd)
            return true
        }
    }

    /// Connections handed over and not yet closed, those libmicrohttpd has
    /// still to take up included.
    private var open: Int { handedOver - core.connectionsClosed.load(ordering: .acquiring) }

    /// Takes up to a batch of connections queued on `listener`, while there
    /// is room; poll(2) reports the rest. True when the queue was found empty.
    private func acceptQueued(from listener: Int32) -> Bool {
        for _ in 0..<64 where open < connectionLimit {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    alertd_accept4(listener, $0, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
                }
            }
            guard fd >= 0 else {
                switch errno {
                case EINTR, ECONNABORTED, EPROTO:
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors or memory: the queue stays readable, so wait rather than spin.
                    _ = poll(nil, 0, 100)
                    return false
                case EAGAIN, EWOULDBLOCK:
                    return true
                default:
                    return false
                }
            }
            // Past its client's limit a connection is closed unanswered, as
            // libmicrohttpd's own limit closed it. Given back when
            // libmicrohttpd reports it closed; one it took but failed to set
            // up (out of memory) it reports neither opened nor closed, and
            // its slot, like its place in `handedOver`, stays taken.
            let client = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { MHDServerCore.client(of: $0, length: length) }
            }
            if let client, !core.clientConnections.take(client) {
                _ = close(fd)
                continue
            }
            // Refused (the accept policy while stopping), libmicrohttpd closes
            // it, before any notice of it: not counted.
            let taken = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { MHD_add_connection(daemon, fd, $0, length) }
            }
            if taken == .YES {
                handedOver += 1
            } else if let client {
                core.clientConnections.giveBack(client)
            }
        }
        return false
    }
}

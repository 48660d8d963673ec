import Dispatch
import FoundationEssentials
import Synchronization
import AlertdPOSIX
#if canImport(Glibc)
import Glibc
#endif

/// `LISTEN`s on one channel on a connection of its own, on a thread of its
/// own that sleeps in `poll(2)` on the connection's socket, and calls
/// `onNotify` when a notification arrives: a wake-up, not busy polling.
///
/// A lost connection is reported (`onConnectionChange` with why) and
/// reconnected with the connection's backoff; once back, `onNotify` is
/// called once, since notifications sent meanwhile were lost.
package final class PostgresListener: Sendable {
    private let connection: PostgresConnection
    private let channel: String
    private let stopping = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)

    /// `channel` must be a plain identifier (it is spliced into `LISTEN`).
    package init(
        url: String, redactedURL: String, channel: String, applicationName: String = "alertd",
        onNotify: @escaping @Sendable () -> Void,
        onConnectionChange: @escaping @Sendable (PostgresError?) -> Void = { _ in }
    ) throws(PostgresError) {
        precondition(channel.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }, "channel must be an identifier")
        self.channel = channel
        connection = try PostgresConnection(url: url, redactedURL: redactedURL, applicationName: applicationName) { conn throws(PostgresError) in
            try conn.execute("LISTEN \(channel)")
        }
        DetachedThread.start(name: "alertd-pg-listen") { [self] in
            self.loop(onNotify: onNotify, onConnectionChange: onConnectionChange)
        }
    }

    /// Stops listening and waits for the thread to end (within half a second).
    package func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        stopped.wait()
    }

    private func loop(onNotify: @Sendable () -> Void, onConnectionChange: @Sendable (PostgresError?) -> Void) {
        var down = false
        while !stopping.load(ordering: .acquiring) {
            let result: Result<Int32, PostgresError> = connection.withLock { conn in
                Result { () throws(PostgresError) -> Int32 in
                    try conn.ensureConnected()
                    return conn.socket
                }
            }
            switch result {
            case .failure(let error):
                if !down { onConnectionChange(error) }
                down = true
                usleep(200_000)
                continue
            case .success(let fd):
                if down {
                    down = false
                    onConnectionChange(nil)
                    onNotify()
                }
                // Half a second at most, so `stop()` is seen soon.
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 500) > 0 else { continue }
                let channels = connection.withLock { conn in Result { () throws(PostgresError) in try conn.notifications() } }
                switch channels {
                case .success(let list): if !list.isEmpty { onNotify() }
                case .failure(let error):
                    if !down { onConnectionChange(error) }
                    down = true
                }
            }
        }
        stopped.signal()
    }
}

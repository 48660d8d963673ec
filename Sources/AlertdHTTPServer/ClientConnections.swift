import AlertdHTTP
import Synchronization

/// Open TCP connections per client, an IPv6 client counted by its /64 as
/// ``IPAddress/client`` counts one, within a limit. libmicrohttpd's own
/// limit counts each address apart, so a host with a /64 of its own, as
/// any IPv6 host has, could take every connection the server allows.
final class ClientConnections: Sendable {
    /// Most connections one client may hold open; 0 for no limit.
    private let limit: Int
    private let open = Mutex<[String: Int]>([:])

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// Counts a connection from `client`; false, and not counted, when the
    /// client holds the limit already.
    func take(_ client: String) -> Bool {
        guard limit > 0 else { return true }
        return open.withLock { open in
            let held = open[client, default: 0]
            guard held < limit else { return false }
            open[client] = held + 1
            return true
        }
    }

    /// Counts a connection ``take(_:)`` counted as closed.
    func giveBack(_ client: String) {
        guard limit > 0 else { return }
        open.withLock { open in
            guard let held = open[client] else { return }
            open[client] = held > 1 ? held - 1 : nil
        }
    }

    /// How many connections `client` holds open.
    func held(by client: String) -> Int {
        open.withLock { $0[client, default: 0] }
    }
}

import Synchronization

/// Open TCP connections per client, within a limit per address and a larger
/// one per IPv6 /64 (``ClientKeys``). libmicrohttpd's own limit counted
/// each address apart, so one host with a /64 could take every connection
/// the server allows.
final class ClientConnections: Sendable {
    /// Most connections one address may hold open; 0 for no limit.
    private let perAddress: Int
    /// Most connections the addresses of one /64 may hold open together.
    private let perNetwork: Int
    /// Open connections by address and by /64 (the keys cannot clash: a /64's ends in `/64`).
    private let open = Mutex<[String: Int]>([:])

    init(perAddress: Int, perNetwork: Int) {
        self.perAddress = max(0, perAddress)
        self.perNetwork = max(self.perAddress, perNetwork)
    }

    /// Counts a connection from `client`; false, and not counted, when its
    /// address or its /64 holds its limit already.
    func take(_ client: ClientKeys) -> Bool {
        guard perAddress > 0 else { return true }
        return open.withLock { open in
            guard open[client.address, default: 0] < perAddress else { return false }
            if let network = client.network {
                guard open[network, default: 0] < perNetwork else { return false }
                open[network, default: 0] += 1
            }
            open[client.address, default: 0] += 1
            return true
        }
    }

    /// Counts a connection ``take(_:)`` counted as closed.
    func giveBack(_ client: ClientKeys) {
        guard perAddress > 0 else { return }
        open.withLock { open in
            for key in [client.address, client.network].compactMap({ $0 }) {
                guard let held = open[key] else { continue }
                open[key] = held > 1 ? held - 1 : nil
            }
        }
    }
}

import Synchronization

/// Bounds the memory one kind of exchange holds.
///
/// ``answers``: libmicrohttpd copies an answer and keeps it until the
/// client has read it all, so a client that reads slowly keeps it as long
/// as it likes: one read token asking 100 times at once for a 73 MB page of
/// alerts, and reading none of it, took the daemon to 7.5 GB. Answers of
/// at least ``countedAnswer`` bytes (listings: one alert at the largest
/// default limits is 73 kB) count until their exchange ends. One budget for
/// the process: the TCP and Unix-socket servers share its memory.
///
/// Bodies (``forBodies()``): a request's body is held from its first byte
/// until its exchange ends, and a client may send all of it but the last
/// byte and wait: a thousand such uploads of a megabyte took the daemon to
/// 1.4 GB. A budget a server: a client of a TCP listener without a token
/// holding it would otherwise refuse the Unix socket's posts too.
///
/// What would pass the limit is refused with 503 `server_busy`, unless
/// nothing is held, so any one answer or body can get through.
package final class MemoryBudget: Sendable {
    package static let answers = MemoryBudget(limit: 256 << 20)
    /// A server's budget for the bodies it is receiving and handling.
    package static func forBodies() -> MemoryBudget { MemoryBudget(limit: 128 << 20) }
    /// Smaller answers are neither counted nor refused: health checks,
    /// submissions and single alerts always get theirs.
    package static let countedAnswer = 1 << 20
    package let limit: Int
    private let held = Atomic<Int>(0)

    package init(limit: Int) {
        self.limit = limit
    }

    /// Takes `bytes` from the budget; false when they do not fit.
    package func reserve(_ bytes: Int) -> Bool {
        var current = held.load(ordering: .relaxed)
        while true {
            if current > 0 && current + bytes > limit { return false }
            let (exchanged, original) = held.compareExchange(expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    /// Gives back what ``reserve(_:)`` took, once its exchange is over.
    package func release(_ bytes: Int) {
        if bytes > 0 { held.subtract(bytes, ordering: .relaxed) }
    }

    /// What is held now.
    package var heldBytes: Int { held.load(ordering: .relaxed) }
}

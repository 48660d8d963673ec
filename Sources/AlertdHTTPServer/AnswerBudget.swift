import Synchronization

/// Bounds the memory held by answers waiting for their clients.
/// libmicrohttpd copies an answer and keeps it until the client has read it
/// all, so a client that reads slowly keeps it as long as it likes: one read
/// token asking 100 times at once for a 73 MB page of alerts, and reading
/// none of it, took the daemon to 7.5 GB. Answers of at least ``counted``
/// bytes (listings: one alert at the largest default limits is 73 kB)
/// count against ``limit`` until their exchange ends; one that would
/// pass it is refused with 503 `server_busy`, unless none is held, so any
/// one answer can be sent. One budget for the process: the TCP and
/// Unix-socket servers share its memory.
package final class AnswerBudget: Sendable {
    package static let shared = AnswerBudget()
    /// Smaller answers are neither counted nor refused: health checks,
    /// submissions and single alerts always get theirs.
    package static let counted = 1 << 20
    package let limit: Int
    private let held = Atomic<Int>(0)

    package init(limit: Int = 256 << 20) {
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

    /// What answers not yet sent in full hold now.
    package var heldBytes: Int { held.load(ordering: .relaxed) }
}

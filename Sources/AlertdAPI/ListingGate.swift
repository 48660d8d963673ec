/// Lets at most `width` large answers build at once (alert listings,
/// Alertmanager's, a group with its members); the others wait their turn, in
/// order, but that a costly one (``through(costly:_:)``) may be passed by
/// the others. A listing holds every alert it shows, decoded, with its JSON:
/// some 230 MB with 60,000 open alerts, and six readers at once took the
/// daemon to 1.4 GB; 32 readers of one group of 50,000 took it to 2.3 GB.
/// One gate for all of them, made where the API is wired.
public actor ListingGate {
    private let width: Int
    private var running = 0
    /// Of those running, the costly (``through(costly:_:)``).
    private var runningCostly = 0
    private var waiting: [(costly: Bool, turn: CheckedContinuation<Void, Never>)] = []

    /// Two at once by default: on a machine of two cores, a third would
    /// have no core to itself anyway.
    public init(width: Int = 2) {
        precondition(width > 0)
        self.width = width
    }

    /// Runs `body` once fewer than `width` others are running. A `costly`
    /// one (a listing filtered by regexes, which may run for seconds) also
    /// waits while all but one turn are costly: a few clients looping over
    /// costly filters kept both turns, and every other listing (amtool,
    /// dashboards) waited 5 to 15 s behind them.
    nonisolated func through<T: Sendable>(costly: Bool = false, _ body: () async throws(APIError) -> T) async throws(APIError) -> T {
        await enter(costly: costly)
        let result: Result<T, APIError>
        do {
            // A listing whose client went while it waited gives its turn straight back.
            try APIError.checkClientStayed()
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        await leave(costly: costly)
        return try result.get()
    }

    /// How many listings wait for their turn.
    var queued: Int { waiting.count }

    private func mayStart(costly: Bool) -> Bool {
        running < width && (!costly || runningCostly < max(1, width - 1))
    }

    private func start(costly: Bool) {
        running += 1
        if costly { runningCostly += 1 }
    }

    private func enter(costly: Bool) async {
        // None waits that could start now (``leave(costly:)`` starts them), so none is passed over.
        if mayStart(costly: costly) {
            start(costly: costly)
            return
        }
        await withCheckedContinuation { waiting.append((costly, $0)) }
    }

    /// Hands the turns free now to the longest waiting that may take them.
    private func leave(costly: Bool) {
        running -= 1
        if costly { runningCostly -= 1 }
        while let next = waiting.firstIndex(where: { mayStart(costly: $0.costly) }) {
            let waiter = waiting.remove(at: next)
            start(costly: waiter.costly)
            waiter.turn.resume()
        }
    }
}

/// Lets at most `width` large answers build at once (alert listings,
/// Alertmanager's, a group with its members); the others wait their turn, in
/// order. A listing holds every alert it shows, decoded, with its JSON:
/// some 230 MB with 60,000 open alerts, and six readers at once took the
/// daemon to 1.4 GB; 32 readers of one group of 50,000 took it to 2.3 GB.
/// One gate for all of them, made where the API is wired.
public actor ListingGate {
    private let width: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Two at once by default: on a machine of two cores, a third would
    /// have no core to itself anyway.
    public init(width: Int = 2) {
        precondition(width > 0)
        self.width = width
    }

    /// Runs `body` once fewer than `width` others are running.
    nonisolated func through<T: Sendable>(_ body: () async throws(APIError) -> T) async throws(APIError) -> T {
        await enter()
        let result: Result<T, APIError>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        await leave()
        return try result.get()
    }

    /// How many listings wait for their turn.
    var queued: Int { waiting.count }

    private func enter() async {
        if running < width {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the turn to the longest waiting, if any.
    private func leave() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

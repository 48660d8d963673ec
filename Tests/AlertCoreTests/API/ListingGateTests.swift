import Foundation
import Synchronization
import Testing
@testable import AlertdAPI

/// Alertmanager listings build two at a time: each holds every alert it
/// shows, so six readers at once took the daemon to 1.4 GB.
@Suite struct ListingGateTests {
    final class Running: Sendable {
        let state = Mutex((now: 0, most: 0, done: 0))
    }

    @Test func twoRunAtOnceAndTheRestWaitTheirTurn() async throws {
        let gate = ListingGate(width: 2)
        let running = Running()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    _ = try? await gate.through { () throws(APIError) in
                        running.state.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                        try? await Task.sleep(for: .milliseconds(50))
                        running.state.withLock { $0.now -= 1; $0.done += 1 }
                    }
                }
            }
        }
        let seen = running.state.withLock { $0 }
        #expect(seen.done == 6)
        #expect(seen.most >= 1 && seen.most <= 2)
        #expect(await gate.queued == 0)
    }

    @Test func aFailedListingGivesUpItsTurn() async throws {
        let gate = ListingGate(width: 1)
        await #expect(throws: APIError.self) {
            try await gate.through { () throws(APIError) in throw APIError.invalidQuery("no") }
        }
        #expect(try await gate.through { () throws(APIError) in 7 } == 7)
    }
}

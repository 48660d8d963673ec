import Foundation
import Synchronization
import Testing
@testable import AlertdHTTP
@testable import AlertdStore
@testable import AlertdAPI

/// Large answers build two at a time: each holds every alert it shows, so
/// six Alertmanager listings at once took the daemon to 1.4 GB, and 32
/// readers of one big group 2.3 GB.
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

    /// A listing whose client went while it waited (its task cancelled)
    /// gives its turn straight back: twelve abandoned costly listings held
    /// an operator's for 19 s.
    @Test func aListingWhoseClientWentWhileItWaitedDoesNotRun() async throws {
        let gate = ListingGate(width: 1)
        let ran = Mutex(0)
        let entered = Mutex(false)
        let (release, hold) = AsyncStream.makeStream(of: Void.self)
        let first = Task {
            try await gate.through { () throws(APIError) in
                entered.withLock { $0 = true }
                for await _ in release { break }
            }
        }
        #expect(await eventually { entered.withLock { $0 } })
        let abandoned = Task {
            try await gate.through { () throws(APIError) in ran.withLock { $0 += 1 } }
        }
        #expect(await eventually { await gate.queued == 1 })
        abandoned.cancel()
        hold.yield()
        try await first.value
        do {
            try await abandoned.value
            Issue.record("the abandoned listing ran")
        } catch let error as APIError {
            #expect(error.code == "client_gone")
        }
        #expect(ran.withLock { $0 } == 0)
        #expect(await gate.queued == 0)
    }

    /// Costly listings (regex filters, seconds each) keep one turn free for
    /// the others: a few clients looping over costly filters made every
    /// other listing wait 5 to 15 s behind them.
    @Test func costlyListingsLeaveATurnToTheOthers() async throws {
        let gate = ListingGate(width: 2)
        final class Shared: Sendable { let state = Mutex((costlyNow: 0, costlyMost: 0, release: false, plainDone: false)) }
        let shared = Shared()
        var costly: [Task<Void, any Error>] = []
        for _ in 0..<4 {
            costly.append(Task {
                try await gate.through(costly: true) { () throws(APIError) in
                    shared.state.withLock { $0.costlyNow += 1; $0.costlyMost = max($0.costlyMost, $0.costlyNow) }
                    while !shared.state.withLock({ $0.release }) { try? await Task.sleep(for: .milliseconds(5)) }
                    shared.state.withLock { $0.costlyNow -= 1 }
                }
            })
        }
        var waited = 0
        while await gate.queued < 3, waited < 400 {
            try await Task.sleep(for: .milliseconds(5))
            waited += 1
        }
        #expect(await gate.queued == 3, "one costly listing runs, the others wait")
        // A plain listing takes the turn left free at once, while the costly ones still hold theirs.
        let plain = Task { try await gate.through { () throws(APIError) in shared.state.withLock { $0.plainDone = true } } }
        let deadline = ContinuousClock.now + .seconds(2)
        while !shared.state.withLock({ $0.plainDone }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(shared.state.withLock { $0.plainDone }, "the plain listing waited behind the costly ones")
        shared.state.withLock { $0.release = true }
        try await plain.value
        for task in costly { try await task.value }
        #expect(shared.state.withLock { $0.costlyMost } == 1)
        #expect(await gate.queued == 0)
        // Alone at width 1, a costly one still gets the one turn.
        try await ListingGate(width: 1).through(costly: true) { () throws(APIError) in }
    }

    /// A group's answer waits for a turn of the gate it is given, as the
    /// Alertmanager listings do, and answers once the turn comes.
    @Test func groupAnswersTakeTheirTurn() async throws {
        let gate = ListingGate(width: 1)
        var router = APIRouter(authenticator: APIAuthenticator(token: nil))
        GroupsAPI(store: InMemoryAlertStore(), listings: gate).register(in: &router)
        let turn = Mutex((holding: false, release: false))
        let holder = Task {
            try await gate.through { () throws(APIError) in
                turn.withLock { $0.holding = true }
                while !turn.withLock({ $0.release }) { try? await Task.sleep(for: .milliseconds(5)) }
            }
        }
        while !turn.withLock({ $0.holding }) { try await Task.sleep(for: .milliseconds(5)) }
        let answer = Task { await router.handle(APIFixture.request("GET", "/v1/groups")) }
        var waited = 0
        while await gate.queued == 0, waited < 400 {
            try await Task.sleep(for: .milliseconds(5))
            waited += 1
        }
        #expect(await gate.queued == 1, "the group listing waits for the turn")
        turn.withLock { $0.release = true }
        #expect(await answer.value.status == 200)
        try await holder.value
        #expect(await router.handle(APIFixture.request("GET", "/v1/groups/g-0123456789abcdef")).status == 404)
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

import Foundation
import Testing
@testable import AlertdServices

/// The one wake-up primitive: a change ends every wait at once, a timeout
/// ends its own wait only, and nothing is missed between a look and a wait.
@Suite struct ChangeSignalTests {
    @Test func aChangeEndsEveryWaitAtOnceAndATimeoutOnlyItsOwn() async throws {
        let signal = ChangeSignal()
        let seen = signal.generation
        let clock = ContinuousClock()
        // Three timed waits with deadlines out of order, on one timer.
        let started = clock.now
        async let short = signal.wait(changedFrom: seen, timeout: .milliseconds(150))
        async let shorter = signal.wait(changedFrom: seen, timeout: .milliseconds(50))
        async let long = signal.wait(changedFrom: seen, timeout: .seconds(30))
        #expect(await shorter == seen)
        let first = clock.now - started
        #expect(await short == seen)
        let second = clock.now - started
        #expect(first >= .milliseconds(50) && first < .milliseconds(140))
        #expect(second >= .milliseconds(150) && second < .seconds(5))
        // The long one ends with the change, long before its deadline.
        signal.notify()
        #expect(await long == seen + 1)
        #expect(clock.now - started < .seconds(5))
    }

    @Test func aChangeBeforeTheWaitIsNotMissed() async {
        let signal = ChangeSignal()
        let seen = signal.generation
        signal.notify()
        let clock = ContinuousClock()
        let started = clock.now
        #expect(await signal.wait(changedFrom: seen, timeout: .seconds(30)) == seen + 1)
        #expect(await signal.wait(changedFrom: seen) == seen + 1)
        #expect(clock.now - started < .seconds(5))
    }

    @Test func cancellationEndsAWait() async {
        let signal = ChangeSignal()
        let waiting = Task { await signal.wait(changedFrom: signal.generation, timeout: .seconds(30)) }
        try? await Task.sleep(for: .milliseconds(50))
        let clock = ContinuousClock()
        let started = clock.now
        waiting.cancel()
        _ = await waiting.value
        #expect(clock.now - started < .seconds(5))
    }

    @Test func manyTimedWaitsEachEndOnTime() async {
        let signal = ChangeSignal()
        let seen = signal.generation
        let clock = ContinuousClock()
        let started = clock.now
        let ended = await withTaskGroup(of: Duration.self) { group in
            for i in 0..<50 {
                group.addTask {
                    _ = await signal.wait(changedFrom: seen, timeout: .milliseconds(10 + 2 * i))
                    return clock.now - started
                }
            }
            return await group.reduce(into: [Duration]()) { $0.append($1) }
        }
        #expect(ended.count == 50)
        #expect(ended.allSatisfy { $0 >= .milliseconds(10) && $0 < .seconds(5) })
    }
}

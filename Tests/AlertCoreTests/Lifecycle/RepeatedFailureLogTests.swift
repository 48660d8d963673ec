import Foundation
import Testing
@testable import AlertdLogging

@Suite struct RepeatedFailureLogTests {
    /// A loop failing every round logs the first failure, then one line a
    /// period, and the round that works again once.
    @Test func aRunOfFailuresIsLoggedWhenItStartsThenOnceAPeriodAndWhenItEnds() async throws {
        // Kept quiet: the decisions are what is tested, not the lines.
        var log = Logger(label: "test")
        log.logLevel = .critical
        var failures = RepeatedFailureLog(period: .milliseconds(300))
        var logged: [Bool] = []
        logged.append(failures.succeeded(log, "works"))
        logged.append(failures.failed(log, "down", [:]))
        for _ in 0..<50 { logged.append(failures.failed(log, "down", [:])) }
        #expect(logged == [false, true] + Array(repeating: false, count: 50))
        try await Task.sleep(for: .milliseconds(350))
        logged = [failures.failed(log, "down", [:]), failures.failed(log, "down", [:])]
        logged += [failures.succeeded(log, "works"), failures.succeeded(log, "works")]
        // A new run is news again.
        logged.append(failures.failed(log, "down", [:]))
        #expect(logged == [true, false, true, false, true])
    }
}

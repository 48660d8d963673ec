import Foundation
import Testing
@testable import AlertdLogging
@testable import AlertdServices

/// What the services of one test did, in order.
final class ServiceJournal: Sendable {
    private let entries = Locked<[String]>([])

    func note(_ entry: String) { entries.withLock { $0.append(entry) } }

    var all: [String] { entries.value }

    /// Waits until `entry` has been noted.
    func wait(for entry: String, timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if all.contains(entry) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }
}

/// A service that notes what happens to it, with the misbehaviours a group must survive.
final class ProbeService: Service {
    enum Behaviour: Sendable {
        /// Stops when asked.
        case cooperative
        /// Ignores the graceful request; stops only when cancelled.
        case ignoresGracefulStop
        /// Ignores even cancellation for a while.
        case ignoresCancellation(Duration)
        /// Returns from run() at once, unasked.
        case exitsEarly
        /// Throws from start().
        case failsToStart
        /// Takes this long to start, then stops only when cancelled.
        case startsSlowly(Duration)
    }

    struct StartFailure: Error {}

    let name: String
    private let behaviour: Behaviour
    private let journal: ServiceJournal
    private let shutdown = ShutdownSignal()

    init(_ name: String, _ behaviour: Behaviour = .cooperative, journal: ServiceJournal) {
        self.name = name
        self.behaviour = behaviour
        self.journal = journal
    }

    func start() async throws {
        if case .failsToStart = behaviour { throw StartFailure() }
        if case .startsSlowly(let time) = behaviour { try? await Task.sleep(for: time) }
        journal.note("start \(name)")
    }

    func run() async throws {
        switch behaviour {
        case .cooperative, .failsToStart:
            await shutdown.wait()
        case .ignoresGracefulStop, .startsSlowly:
            try? await Task.sleep(for: .seconds(60))
            journal.note("cancelled \(name)")
        case .ignoresCancellation(let stubbornness):
            try? await Task.sleep(for: .seconds(60))
            // A wait cancellation cannot end, that holds no thread: sleeping
            // on one of the pool's two threads here starved the group's own
            // timer on a busy machine.
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().asyncAfter(deadline: .now() + Double(stubbornness.components.seconds)
                    + Double(stubbornness.components.attoseconds) / 1e18) { done.resume() }
            }
        case .exitsEarly:
            break
        }
        journal.note("stop \(name)")
    }

    func shutdownGracefully() async {
        shutdown.trigger()
    }
}

@Suite struct ServiceGroupTests {
    let journal = ServiceJournal()

    func running(_ group: ServiceGroup) -> Task<ServiceGroupError?, Never> {
        Task {
            do throws(ServiceGroupError) {
                try await group.run()
                return nil
            } catch {
                return error
            }
        }
    }

    @Test func startsInOrderAndStopsInReverse() async throws {
        let group = ServiceGroup(services: ["a", "b", "c"].map { ProbeService($0, journal: journal) }, gracePeriod: .seconds(5))
        let run = running(group)
        #expect(await journal.wait(for: "start c"))
        await group.triggerGracefulShutdown()
        #expect(await run.value == nil)
        #expect(journal.all == ["start a", "start b", "start c", "stop c", "stop b", "stop a"])
    }

    @Test func aServiceThatCannotStartStopsTheOnesBeforeIt() async throws {
        let group = ServiceGroup(services: [
            ProbeService("a", journal: journal), ProbeService("b", .failsToStart, journal: journal), ProbeService("c", journal: journal),
        ], gracePeriod: .seconds(5))
        let error = try #require(await running(group).value)
        #expect(error.code == .startFailed)
        #expect(error.service == "b")
        #expect(error.underlying is ProbeService.StartFailure)
        #expect(journal.all == ["start a", "stop a"])
    }

    @Test func aServiceThatStopsUnaskedStopsTheGroup() async throws {
        let group = ServiceGroup(services: [ProbeService("a", journal: journal), ProbeService("b", .exitsEarly, journal: journal)],
                                 gracePeriod: .seconds(5))
        let error = try #require(await running(group).value)
        #expect(error.code == .exitedEarly)
        #expect(error.service == "b")
        #expect(journal.all.last == "stop a")
    }

    /// The grace counts from the request to stop, not from when the group
    /// got to it: on a daemon busy with a thousand connections that was
    /// 600 ms later, and the shutdown overran its grace by as much.
    @Test func theGraceCountsFromTheRequest() async throws {
        let group = ServiceGroup(services: [ProbeService("slow", .startsSlowly(.seconds(1)), journal: journal)], gracePeriod: .milliseconds(800))
        let run = running(group)
        try await Task.sleep(for: .milliseconds(100))
        let asked = ContinuousClock.now
        await group.triggerGracefulShutdown()
        #expect(await run.value == nil)
        let took = ContinuousClock.now - asked
        // Its start ends 0.9 s in, past the grace: it is cancelled then, not 0.8 s later.
        #expect(took >= .milliseconds(850) && took < .milliseconds(1_400), "took \(took)")
        #expect(journal.all == ["start slow", "cancelled slow", "stop slow"])
    }

    @Test func theGraceBoundsTheWholeShutdownThenTheRestIsCancelled() async throws {
        let group = ServiceGroup(services: [ProbeService("slow", .ignoresGracefulStop, journal: journal), ProbeService("b", journal: journal)],
                                 gracePeriod: .milliseconds(200))
        let run = running(group)
        #expect(await journal.wait(for: "start b"))
        let asked = ContinuousClock.now
        await group.triggerGracefulShutdown()
        #expect(await run.value == nil)
        let took = ContinuousClock.now - asked
        #expect(took >= .milliseconds(190) && took < .seconds(2), "took \(took)")
        #expect(journal.all.suffix(3) == ["stop b", "cancelled slow", "stop slow"])
    }

    @Test func stopNowDoesNotWaitForTheGrace() async throws {
        let group = ServiceGroup(services: [ProbeService("slow", .ignoresGracefulStop, journal: journal)], gracePeriod: .seconds(30))
        let run = running(group)
        #expect(await journal.wait(for: "start slow"))
        await group.triggerGracefulShutdown()
        try await Task.sleep(for: .milliseconds(50))
        let asked = ContinuousClock.now
        await group.stopNow()
        #expect(await run.value == nil)
        #expect(ContinuousClock.now - asked < .seconds(2))
        #expect(journal.all.contains("cancelled slow"))
    }

    @Test func cancellingTheCallerIsStopNow() async throws {
        let group = ServiceGroup(services: [ProbeService("slow", .ignoresGracefulStop, journal: journal)], gracePeriod: .seconds(30))
        let run = running(group)
        #expect(await journal.wait(for: "start slow"))
        run.cancel()
        #expect(await run.value == nil)
        #expect(journal.all.contains("cancelled slow"))
    }

    @Test func aServiceDeafToCancellationIsLeftBehind() async throws {
        let group = ServiceGroup(services: [ProbeService("deaf", .ignoresCancellation(.seconds(1)), journal: journal)],
                                 gracePeriod: .milliseconds(50), cancellationLimit: .milliseconds(100))
        let run = running(group)
        #expect(await journal.wait(for: "start deaf"))
        let asked = ContinuousClock.now
        await group.triggerGracefulShutdown()
        #expect(await run.value == nil)
        #expect(ContinuousClock.now - asked < .milliseconds(800))
        #expect(!journal.all.contains("stop deaf"))
    }

    @Test func aShutdownAskedForBeforeRunStartsNothing() async throws {
        let group = ServiceGroup(services: [ProbeService("a", journal: journal)], gracePeriod: .seconds(5))
        await group.triggerGracefulShutdown()
        #expect(await running(group).value == nil)
        #expect(journal.all.isEmpty)
        // A group runs once.
        #expect(await running(group).value?.code == .alreadyRun)
    }
}

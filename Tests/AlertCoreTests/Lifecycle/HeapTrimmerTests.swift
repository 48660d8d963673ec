import AlertdPOSIX
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Large buffers are reused while large work goes on, and the heap is
/// trimmed once, after it has stopped for the quiet time.
@Suite(.serialized) struct HeapTrimmerTests {
    /// The times, since the test began, at which the trimmer released.
    final class Releases: Sendable {
        let start = ContinuousClock.now
        let times = Mutex<[Duration]>([])
        func record() { times.withLock { $0.append(ContinuousClock.now - start) } }
        var count: Int { times.withLock { $0.count } }
    }

    @Test func trimsOnceWhenLargeWorkHasStoppedForTheQuietTime() async throws {
        let releases = Releases()
        let trimmer = HeapTrimmer(quiet: .milliseconds(300)) { releases.record() }
        // Large work every 100 ms for 1 s: never quiet for 300 ms.
        var last = Duration.zero
        for _ in 0..<10 {
            trimmer.exchangeEnded(bytes: HeapTrimmer.threshold)
            last = ContinuousClock.now - releases.start
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(releases.count == 0)
        try await Task.sleep(for: .milliseconds(900))
        let times = releases.times.withLock { $0 }
        #expect(times.count == 1)
        if let first = times.first { #expect(first >= last + .milliseconds(300)) }
    }

    /// Small exchanges trim only once they add up: a thousand uploads of a
    /// megabyte dropped unfinished each counted as nothing.
    @Test func smallExchangesTrimOnlyOnceTheyAddUp() async throws {
        let releases = Releases()
        let trimmer = HeapTrimmer(quiet: .milliseconds(50)) { releases.record() }
        for _ in 0..<5 { trimmer.exchangeEnded(bytes: HeapTrimmer.threshold - 1) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(releases.count == 0)
        trimmer.largeWorkEnded()
        try await Task.sleep(for: .milliseconds(300))
        #expect(releases.count == 1)
        let small = 100 << 10
        for _ in 0..<(HeapTrimmer.accumulated / small + 1) { trimmer.exchangeEnded(bytes: small) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(releases.count == 2)
    }

    /// Small work (requests, commits), each piece too small to count as
    /// large: once it has stopped for the idle quiet, one trim. A soak's
    /// 127,000 small requests left the idle daemon at 90 MB.
    @Test func smallWorkIsGivenBackOnceIdle() async throws {
        let releases = Releases()
        let trimmer = HeapTrimmer(quiet: .milliseconds(50), idleQuiet: .milliseconds(300), idleAtMost: .seconds(30)) { releases.record() }
        var last = Duration.zero
        for _ in 0..<8 {
            trimmer.workEnded()
            trimmer.exchangeEnded(bytes: 200)
            last = ContinuousClock.now - releases.start
            try await Task.sleep(for: .milliseconds(60))
        }
        #expect(releases.count == 0)
        try await Task.sleep(for: .milliseconds(700))
        let times = releases.times.withLock { $0 }
        #expect(times.count == 1)
        if let first = times.first { #expect(first >= last + .milliseconds(300)) }
    }

    /// Work that never stops for the idle quiet is trimmed after
    /// `idleAtMost` all the same, and again after the next.
    @Test func smallWorkThatNeverStopsIsGivenBackAtIntervals() async throws {
        let releases = Releases()
        let trimmer = HeapTrimmer(quiet: .milliseconds(50), idleQuiet: .seconds(10), idleAtMost: .milliseconds(400)) { releases.record() }
        let clock = ContinuousClock()
        let end = clock.now + .milliseconds(1_300)
        while clock.now < end {
            trimmer.workEnded()
            try await Task.sleep(for: .milliseconds(40))
        }
        #expect((2...3).contains(releases.count), "\(releases.times.withLock { $0 })")
    }

    /// A big group's buffers, megabytes each, come from the heap and are
    /// reused: before, each was mapped fresh and faulted in page by page.
    @Test func freedLargeBuffersAreReusedNotFaultedInAgain() {
        CurrentProcess.keepFreedMemory(upTo: 8 << 20)
        let size = 3 << 20
        func minorFaults() -> Int {
            var usage = rusage()
            getrusage(__rusage_who_t(1), &usage)  // RUSAGE_THREAD: this thread alone
            return usage.ru_minflt
        }
        func cycle() {
            guard let block = malloc(size) else { return }
            memset(block, 1, size)
            free(block)
        }
        cycle()
        let before = minorFaults()
        for _ in 0..<20 { cycle() }
        let faults = minorFaults() - before
        // Mapped each time, every cycle faults in all 768 of its pages.
        #expect(faults < 20 * (size / 4096) / 10, "\(faults) page faults in 20 cycles of a 3 MiB buffer")
    }
}

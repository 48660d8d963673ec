import Dispatch
import Synchronization

/// Gives freed memory back to the kernel once large work (a big batch
/// posted, a long listing answered, a big group notified) has stopped for
/// a moment. Without it the daemon's resident size stayed at its
/// high-water mark. The wait is counted from the last large work, not the
/// first: while a big group is notified every second its buffers are
/// reused, not handed back and faulted in again each time. What small
/// work frees (requests, commits) is given back once the daemon has been
/// idle a while, or a minute after such work began. At most one trim of
/// each kind is pending; it runs on a utility queue, off the libmicrohttpd
/// threads and the task pool, since it takes the allocator's locks while
/// it walks the arenas.
package final class HeapTrimmer: Sendable {
    /// The process has one heap, so one trimmer.
    package static let shared = HeapTrimmer()
    /// An exchange this large (request and answer bodies) is followed by a
    /// trim. Blocks above glibc's old mapping threshold (128 KiB) were
    /// handed back as they were freed; they now stay in the heaps
    /// (``CurrentProcess/keepFreedMemory(upTo:)``) until a trim.
    package static let threshold = 128 << 10
    /// Smaller exchanges add up to a trim too: a thousand uploads of a
    /// megabyte dropped unfinished, or 500 event streams of 100 kB, each
    /// below ``threshold``, left the idle daemon at 1.1 GB and 260 MB.
    package static let accumulated = 16 << 20

    /// The two waits before a trim: after large work, ``init(quiet:idleQuiet:idleAtMost:release:)``'s
    /// `quiet`; after any work, `idleQuiet`, or `idleAtMost` after the
    /// first work since the last trim, whichever comes first.
    private enum Wait: Int {
        case large, idle
    }

    private struct Timer {
        var armed = false
        var first = DispatchTime(uptimeNanoseconds: 0)
        var last = DispatchTime(uptimeNanoseconds: 0)
    }

    private let quietNanoseconds: UInt64
    private let idleQuietNanoseconds: UInt64
    private let idleAtMostNanoseconds: UInt64
    private let release: @Sendable () -> Void
    private let timers = Mutex([Timer(), Timer()])
    /// Bytes of the exchanges under ``threshold`` since they last made a trim.
    private let small = Atomic<Int>(0)

    /// `quiet`: how long no large work must have ended before a trim;
    /// longer than the shortest group interval worth keeping buffers for.
    /// `idleQuiet` and `idleAtMost`: how long no work at all must have
    /// ended, or how long since work began, before a trim of what small
    /// work freed. A soak's 127,000 small requests and their deliveries
    /// left the idle daemon at 90 MB, against 9 MB at its start: each
    /// piece was small, and nothing counted them as large work.
    package init(quiet: Duration = .milliseconds(1500), idleQuiet: Duration = .seconds(10), idleAtMost: Duration = .seconds(60),
                 release: @escaping @Sendable () -> Void = { _ = CurrentProcess.releaseFreeHeap() }) {
        quietNanoseconds = Self.nanoseconds(quiet)
        idleQuietNanoseconds = Self.nanoseconds(idleQuiet)
        idleAtMostNanoseconds = Self.nanoseconds(idleAtMost)
        self.release = release
    }

    private static func nanoseconds(_ d: Duration) -> UInt64 {
        let (seconds, attoseconds) = d.components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds / 1_000_000_000))
    }

    /// A request finished that moved `bytes` of bodies (or a stream that
    /// sent them).
    package func exchangeEnded(bytes: Int) {
        workEnded()
        if bytes >= Self.threshold {
            largeWorkEnded()
        } else if bytes > 0, small.add(bytes, ordering: .relaxed).newValue >= Self.accumulated {
            small.store(0, ordering: .relaxed)
            largeWorkEnded()
        }
    }

    /// Work that freed megabytes just ended.
    package func largeWorkEnded() { arm(.large) }

    /// Any work just ended (a request, a commit): what it freed is given
    /// back once the daemon has been idle a while.
    package func workEnded() { arm(.idle) }

    private func arm(_ wait: Wait) {
        let now = DispatchTime.now()
        let arm = timers.withLock { timers in
            defer { timers[wait.rawValue].armed = true; timers[wait.rawValue].last = now }
            guard !timers[wait.rawValue].armed else { return false }
            timers[wait.rawValue].first = now
            return true
        }
        if arm { check(wait, after: wait == .large ? quietNanoseconds : min(idleQuietNanoseconds, idleAtMostNanoseconds)) }
    }

    private func check(_ wait: Wait, after nanoseconds: UInt64) {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .nanoseconds(Int(min(nanoseconds, UInt64(Int.max))))) { [self] in
            let again: UInt64? = timers.withLock { timers in
                let now = DispatchTime.now().uptimeNanoseconds
                let timer = timers[wait.rawValue]
                let quiet = now &- timer.last.uptimeNanoseconds
                let remaining: UInt64
                switch wait {
                case .large:
                    guard quiet < quietNanoseconds else { timers[wait.rawValue].armed = false; return nil }
                    remaining = quietNanoseconds - quiet
                case .idle:
                    let since = now &- timer.first.uptimeNanoseconds
                    guard quiet < idleQuietNanoseconds, since < idleAtMostNanoseconds else { timers[wait.rawValue].armed = false; return nil }
                    remaining = min(idleQuietNanoseconds - quiet, idleAtMostNanoseconds - since)
                }
                return remaining
            }
            if let again { check(wait, after: again) } else { release() }
        }
    }
}

import Dispatch
import Synchronization

/// Gives freed memory back to the kernel once large work (a big batch
/// posted, a long listing answered, a big group notified) has stopped for
/// a moment. Without it the daemon's resident size stayed at its
/// high-water mark. The wait is counted from the last large work, not the
/// first: while a big group is notified every second its buffers are
/// reused, not handed back and faulted in again each time. At most one
/// trim is pending; it runs on a utility queue, off the libmicrohttpd
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

    private struct State {
        var armed = false
        var lastWork = DispatchTime(uptimeNanoseconds: 0)
    }

    private let quietNanoseconds: UInt64
    private let release: @Sendable () -> Void
    private let state = Mutex(State())
    /// Bytes of the exchanges under ``threshold`` since they last made a trim.
    private let small = Atomic<Int>(0)

    /// `quiet`: how long no large work must have ended before a trim;
    /// longer than the shortest group interval worth keeping buffers for.
    package init(quiet: Duration = .milliseconds(1500), release: @escaping @Sendable () -> Void = { CurrentProcess.releaseFreeHeap() }) {
        let (seconds, attoseconds) = quiet.components
        quietNanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds / 1_000_000_000))
        self.release = release
    }

    /// A request finished that moved `bytes` of bodies (or a stream that
    /// sent them).
    package func exchangeEnded(bytes: Int) {
        if bytes >= Self.threshold {
            largeWorkEnded()
        } else if bytes > 0, small.add(bytes, ordering: .relaxed).newValue >= Self.accumulated {
            small.store(0, ordering: .relaxed)
            largeWorkEnded()
        }
    }

    /// Work that freed megabytes just ended.
    package func largeWorkEnded() {
        let arm = state.withLock { state in
            state.lastWork = .now()
            defer { state.armed = true }
            return !state.armed
        }
        if arm { check(after: quietNanoseconds) }
    }

    private func check(after nanoseconds: UInt64) {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [self] in
            let wait: UInt64? = state.withLock { state in
                let since = DispatchTime.now().uptimeNanoseconds &- state.lastWork.uptimeNanoseconds
                guard since >= quietNanoseconds else { return quietNanoseconds - since }
                state.armed = false
                return nil
            }
            if let wait { check(after: wait) } else { release() }
        }
    }
}

import Dispatch
import Synchronization
import AlertdPOSIX

/// Gives freed memory back to the kernel after a large exchange (a big
/// batch posted, a long listing answered), once its buffers are gone:
/// without it the daemon's resident size stayed at its high-water mark.
/// At most one trim is pending; it runs on a utility queue, off the
/// libmicrohttpd threads and the task pool, since it takes the allocator's
/// locks while it walks the arenas.
package final class HeapTrimmer: Sendable {
    /// An exchange this large (request and answer bodies) is followed by a trim.
    package static let threshold = 1 << 20

    private let pending = Atomic<Bool>(false)

    package init() {}

    /// A request finished that moved `bytes` of bodies.
    package func exchangeEnded(bytes: Int) {
        guard bytes >= Self.threshold, !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // A moment later: libmicrohttpd frees its copy of the answer once it is sent.
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .milliseconds(200)) { [self] in
            pending.store(false, ordering: .releasing)
            CurrentProcess.releaseFreeHeap()
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif

extension CurrentProcess {
    /// Lets malloc keep up to `bytes` free at the top of each heap rather
    /// than hand it back at once (`M_TRIM_THRESHOLD`), and serve blocks up
    /// to `bytes` from its heaps rather than map each one on its own
    /// (`M_MMAP_THRESHOLD`).
    ///
    /// glibc's default trim threshold (128 KiB, growing with large frees)
    /// has the heap of every thread that handles a request shrink and grow
    /// again with each burst: an `madvise` and a TLB shootdown on every
    /// core each time, about a tenth of the daemon's CPU under
    /// one-alert-per-request load. Setting it also fixes the mapping
    /// threshold at its 128 KiB start, so every larger buffer (a big
    /// group's snapshot and payloads, megabytes each) was mapped fresh,
    /// faulted in page by page and unmapped when freed: a fifth of the CPU
    /// of notifying a group of 5,000 alerts every second. ``HeapTrimmer``
    /// hands such memory back once the large work has stopped.
    public static func keepFreedMemory(upTo bytes: Int) {
        guard let mallopt = mallopt else { return }
        _ = mallopt(-1, Int32(clamping: bytes))  // M_TRIM_THRESHOLD
        _ = mallopt(-3, Int32(clamping: bytes))  // M_MMAP_THRESHOLD (glibc takes at most 32 MiB)
    }

    /// Hands the kernel back the free memory glibc's allocator keeps in
    /// every arena (`malloc_trim(0)`); true when some was. After a large
    /// answer (100,000 alerts listed) freed memory stayed resident: an
    /// idle daemon of 20 MB stayed at 107 MB, since free chunks sit
    /// between live ones and only the top of the main arena is trimmed by
    /// itself. It walks every arena under its lock: not for every request.
    @discardableResult
    public static func releaseFreeHeap() -> Bool {
        guard let trim = mallocTrim else { return false }
        return trim(0) == 1
    }

    // <malloc.h> is not in Swift's Glibc module: its functions are found by name.
    private static let mallopt: (@convention(c) (Int32, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "mallopt") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    }()

    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()
}

#if canImport(Glibc)
import Glibc
#endif

extension CurrentProcess {
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

    /// glibc's `malloc_trim`, found at run time: the C library's headers as
    /// Swift sees them leave it out.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()
}

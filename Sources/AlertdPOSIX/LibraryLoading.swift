import Synchronization

/// Loading a shared library and releasing startup pages
/// (``CurrentProcess/releaseStartupPages()``) exclude each other. The
/// loader maps a library's whole span read-only first, then maps its
/// writable part over it and relocates it in place: a release that had
/// read the span as clean threw those relocations away, and alertd died in
/// the loader, about once in fifty restarts with deliveries due (the first
/// delivery loaded libcurl as the daemon said it was ready). alertd's own
/// loads, libcurl's and libcrypto's on first use, come through here; libpq
/// is loaded as the store opens, before any release.
package enum LibraryLoading {
    private static let lock = Mutex(())

    /// Runs `body`, which may load a library, while no release runs. A
    /// release takes a few milliseconds, once, as the daemon gets ready:
    /// a load that meets it waits that long.
    package static func run(_ body: () -> Void) {
        lock.withLock { _ in body() }
    }
}

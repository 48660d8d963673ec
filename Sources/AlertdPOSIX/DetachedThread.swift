#if canImport(Glibc)
import Glibc
#endif

/// A thread of its own for a loop that blocks in C (`poll(2)`, `waitpid(2)`,
/// `fsync(2)`, `curl_multi_poll`), off the cooperative pool and Dispatch's
/// workers. Straight `pthread_create(3)`: Foundation's `Thread` is not in
/// FoundationEssentials, and full Foundation brings ICU into every binary.
public enum DetachedThread {
    /// Starts `body` on a new detached thread called `name` (as `ps -L` and
    /// `top -H` show it; Linux keeps the first 15 bytes).
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, runDetachedThread, context)
        // Only when the process is out of threads or memory; nothing would run the loop.
        precondition(status == 0, "pthread_create failed with error \(status)")
        pthread_detach(thread)
    }

    /// `pthread_setname_np(3)` is hidden behind `_GNU_SOURCE` and `prctl(2)`
    /// is variadic, so neither is callable from Swift; the kernel takes the
    /// name written to the thread's `comm` file just the same.
    fileprivate static func nameCurrentThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    fileprivate final class Start: Sendable {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}

/// The new thread's start routine: names it, then runs its body.
private func runDetachedThread(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let start = Unmanaged<DetachedThread.Start>.fromOpaque(context!).takeRetainedValue()
    DetachedThread.nameCurrentThread(start.name)
    start.body()
    return nil
}

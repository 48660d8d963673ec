import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal for a child's output, so the child sees a real tty
/// (`isatty` true) and the test reads what it printed from the other side.
final class PseudoTerminal: Sendable {
    /// The child's end: hand it over as standard output.
    let replica: FileHandle
    private let primary: Int32
    private let text = Mutex("")
    private let done = Atomic(false)

    init() throws {
        primary = Self.libc("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)(O_RDWR | O_NOCTTY)
        let grant = Self.libc("grantpt", as: (@convention(c) (Int32) -> Int32).self)
        let unlock = Self.libc("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
        let ptsname = Self.libc("ptsname", as: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)
        guard primary >= 0, grant(primary) == 0, unlock(primary) == 0, let name = ptsname(primary) else {
            throw TestDaemon.Failure("cannot open a pseudo-terminal: errno \(errno)")
        }
        let fd = open(name, O_RDWR | O_NOCTTY)
        guard fd >= 0 else { throw TestDaemon.Failure("cannot open \(String(cString: name)): errno \(errno)") }
        replica = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !done.load(ordering: .relaxed) {
                var poller = pollfd(fd: primary, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) > 0 else { continue }
                let n = read(primary, &buffer, buffer.count)
                // EIO once every replica descriptor is closed.
                guard n > 0 else { return }
                let chunk = String(decoding: buffer[..<n], as: UTF8.self)
                text.withLock { $0 += chunk }
            }
        }
        thread.start()
    }

    deinit {
        done.store(true, ordering: .relaxed)
        // The reader polls with a timeout and sees `done`; let it go before closing.
        usleep(200_000)
        close(primary)
    }

    /// A C library function Glibc's module map leaves out (these are
    /// X/Open extensions), looked up at run time.
    private static func libc<F>(_ name: String, as type: F.Type) -> F {
        unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)!, to: type)
    }

    /// Everything written to the terminal so far.
    var output: String { text.withLock { $0 } }

    /// Waits until the output contains `needle`.
    func wait(for needle: String, timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if output.contains(needle) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return output.contains(needle)
    }
}

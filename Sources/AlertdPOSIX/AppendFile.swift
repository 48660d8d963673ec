#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file opened for appending (`O_APPEND`, created if missing), written a
/// whole buffer per `write(2)` so lines from concurrent writers, even other
/// processes appending to the same file, never interleave. Closed when the
/// value goes away.
package final class AppendFile: Sendable {
    package let path: String
    private let fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { close(fd) }

    /// Opens (creating with `mode`) `path` for appending; `open(2)`.
    /// Opened without blocking: a FIFO no one reads held the log
    /// presenter's reopen at SIGHUP in `open(2)` for good; now it fails
    /// (`ENXIO`). Writes block as before.
    package static func open(_ path: String, mode: UInt32 = 0o640) -> Result<AppendFile, Errno> {
        let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, mode_t(mode))
        guard fd >= 0 else { return .failure(.current) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return .success(AppendFile(path: path, fd: fd))
    }

    /// Writes all of `bytes`; the error of a failed `write(2)`, if one failed.
    /// A regular file is cut back to where the write began when it fails
    /// part way: a full disk left half a line, and the next line, written
    /// after space came back, was glued to it (neither one readable). Only
    /// when what it ends in is that part: a line another writer appended
    /// meanwhile stays.
    package func write(_ bytes: [UInt8]) -> Errno? {
        let start = lseek(fd, 0, SEEK_END)
        var written = 0
        guard let failure = FileDescriptorWriter.writeAll(fd, bytes, written: &written) else { return nil }
        if start >= 0, written > 0, lseek(fd, 0, SEEK_END) == start + off_t(written) { _ = ftruncate(fd, start) }
        return Errno(failure)
    }
}

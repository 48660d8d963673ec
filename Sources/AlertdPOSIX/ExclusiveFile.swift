#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file that did not exist, created whole with its final mode: `open(2)`
/// with `O_CREAT|O_EXCL` and that mode, so there is no moment in which others
/// may read it, and never an existing file (or a symlink planted in its
/// place) written through.
package enum ExclusiveFile {
    /// Creates `path` with `permissions` (less the creation mask), writes
    /// `contents` and flushes them to disk. On failure nothing is left
    /// behind; `EEXIST` means the path was already taken.
    package static func create(_ path: String, contents: [UInt8], permissions: UInt32) -> Result<Void, Errno> {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(permissions))
        guard fd >= 0 else { return .failure(.current) }
        var failure = FileDescriptorWriter.writeAll(fd, contents).map(Errno.init)
        if failure == nil, fsync(fd) != 0 { failure = .current }
        if close(fd) != 0, failure == nil { failure = .current }
        guard let failure else { return .success(()) }
        unlink(path)
        return .failure(failure)
    }

    /// `unlink(2)`; the error, if it failed.
    package static func remove(_ path: String) -> Errno? {
        unlink(path) == 0 ? nil : .current
    }
}

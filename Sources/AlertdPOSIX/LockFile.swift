#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// An exclusive `flock(2)` on a file that holds the holder's pid, so a second
/// process is refused at once and learns who is in the way. The kernel drops
/// the lock when the holder exits, however it exits, so a crash never leaves
/// a stale lock behind; the file itself stays, and is reused.
package final class LockFile: Sendable {
    package let path: String
    /// -1 once released.
    private let descriptor: Mutex<Int32>

    private init(path: String, fd: Int32) {
        self.path = path
        descriptor = Mutex(fd)
    }

    deinit { release() }

    /// Takes the lock on `path` (created with `permissions` if missing) and
    /// writes this process's pid into it, or says who holds it.
    package static func acquire(_ path: String, permissions: UInt32 = 0o640) -> Result<LockFile, LockFileError> {
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode_t(permissions))
        guard fd >= 0 else { return .failure(.system(path: path, operation: "open", errno: .current)) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let error = Errno.current
            defer { close(fd) }
            guard error.rawValue == EWOULDBLOCK else { return .failure(.system(path: path, operation: "flock", errno: error)) }
            return .failure(.held(path: path, pid: holder(fd)))
        }
        let pid = Array("\(getpid())\n".utf8)
        guard ftruncate(fd, 0) == 0, pwrite(fd, pid, pid.count, 0) == pid.count else {
            let error = Errno.current
            close(fd)
            return .failure(.system(path: path, operation: "write", errno: error))
        }
        return .success(LockFile(path: path, fd: fd))
    }

    /// Lets the lock go; once.
    package func release() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            close(fd)
            fd = -1
        }
    }

    /// The pid the holder wrote, if it has written one yet.
    private static func holder(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n], as: UTF8.self).split(whereSeparator: \.isWhitespace).first.flatMap { Int32($0) }
    }
}

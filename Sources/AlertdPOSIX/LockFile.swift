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
        if let refusal = lock(fd, path, holder: recordedHolder) { return .failure(refusal) }
        let pid = Array("\(getpid())\n".utf8)
        guard ftruncate(fd, 0) == 0, pwrite(fd, pid, pid.count, 0) == pid.count else {
            let error = Errno.current
            close(fd)
            return .failure(.system(path: path, operation: "write", errno: error))
        }
        return .success(LockFile(path: path, fd: fd))
    }

    /// Takes the lock on `path` itself, a file of another format (a
    /// database), created empty with `permissions` if missing, and writes
    /// nothing in it; the holder's pid, when it is refused, is looked up in
    /// `/proc/locks`. Links are followed, as SQLite follows them, so every
    /// name of the file takes the same lock.
    ///
    /// `flock` locks are apart from the POSIX record locks SQLite takes, but
    /// closing any descriptor of a file drops this process's record locks
    /// on it: release the lock only after the file's other users closed it.
    package static func acquireInPlace(_ path: String, permissions: UInt32 = 0o640) -> Result<LockFile, LockFileError> {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode_t(permissions))
        guard fd >= 0 else { return .failure(.system(path: path, operation: "open", errno: .current)) }
        if let refusal = lock(fd, path, holder: flockHolder) { return .failure(refusal) }
        return .success(LockFile(path: path, fd: fd))
    }

    /// Locks `fd`, or closes it and says why not, naming the `holder` it finds.
    private static func lock(_ fd: Int32, _ path: String, holder: (Int32) -> Int32?) -> LockFileError? {
        guard flock(fd, LOCK_EX | LOCK_NB) != 0 else { return nil }
        let error = Errno.current
        defer { close(fd) }
        guard error.rawValue == EWOULDBLOCK else { return .system(path: path, operation: "flock", errno: error) }
        return .held(path: path, pid: holder(fd))
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
    private static func recordedHolder(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n], as: UTF8.self).split(whereSeparator: \.isWhitespace).first.flatMap { Int32($0) }
    }

    /// The pid `/proc/locks` names for a `flock` on `fd`'s file, by its
    /// inode (lines read `1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF`).
    private static func flockHolder(_ fd: Int32) -> Int32? {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        // The kernel's own spelling: major and minor in hex, the inode in decimal.
        let dev = UInt64(status.st_dev)
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfff), minor = (dev & 0xff) | ((dev >> 12) & ~0xff)
        func hex(_ n: UInt64) -> String { let s = String(n, radix: 16); return s.count < 2 ? "0" + s : s }
        let file = "\(hex(major)):\(hex(minor)):\(status.st_ino)"
        var pid: Int32?
        _ = FileDescriptorReader.forEachLine(ofFile: "/proc/locks") { line in
            let fields = line.split(separator: UInt8(ascii: " "))
            guard pid == nil, fields.count >= 6, fields[1].elementsEqual("FLOCK".utf8),
                  fields[5].elementsEqual(file.utf8) else { return }
            pid = Int32(String(decoding: fields[4], as: UTF8.self))
        }
        return pid
    }
}

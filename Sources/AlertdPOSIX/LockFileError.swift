/// Why a ``LockFile`` could not be taken.
package enum LockFileError: Error, Sendable, Equatable {
    /// Another process holds it; its pid when it wrote one.
    case held(path: String, pid: Int32?)
    /// A system call failed, e.g. `open` on a read-only file system.
    case system(path: String, operation: String, errno: Errno)
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An `errno` value, read as the C library's text for it (`strerror`):
/// every message about a failed system call words it the same way.
public struct Errno: Error, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32

    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno`, right after a call failed.
    public static var current: Errno { Errno(errno) }

    /// `EEXIST`: what creating a file that is already there fails with.
    package static let fileExists = Errno(EEXIST)
    /// `ENOENT`: the path names nothing.
    package static let noSuchFile = Errno(ENOENT)
    /// `ENOTDIR`: a part of the path before its last is no directory.
    package static let notADirectory = Errno(ENOTDIR)
    /// `EACCES`: a directory on the path may not be searched, or the file not opened so.
    package static let permissionDenied = Errno(EACCES)
    /// `ECONNREFUSED`: nothing listens where a socket was connected to.
    package static let connectionRefused = Errno(ECONNREFUSED)
    /// `EPIPE`: the reading end of a pipe was closed.
    package static let brokenPipe = Errno(EPIPE)

    /// `No such file or directory`.
    public var description: String { String(cString: strerror(rawValue)) }
}

import FoundationEssentials
import AlertdPOSIX

/// A log file that could not be opened, with the system's reason.
public struct LogFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    /// The `errno` from `open(2)`.
    public let errno: Int32

    public init(path: String, errno: Int32) {
        self.path = path
        self.errno = errno
    }

    /// The code scripts match on.
    public var code: String { "log_file_unavailable" }

    public var description: String {
        "cannot open log file \(path): \(Errno(errno).description) (check that the directory exists and this user may write to it)"
    }
}

import Foundation
import Synchronization
import AlertModel
import AlertdPOSIX

/// Writes each alert as one line to standard error or a file, for log
/// collectors and `grep`.
///
/// A file is opened with `O_APPEND` and each line goes out in a single
/// `write(2)`, so lines from concurrent writers, even other processes
/// appending to the same file, never interleave.
public final class LogPresenter: AlertPresenter {
    public let name: String
    public let configuration: LogPresenterConfiguration
    /// The open file, when the destination is a file and it has been opened.
    /// Held during writes, so `reopen()` cannot close a descriptor mid-write.
    private let file = Mutex<Int32?>(nil)

    public init(name: String = "log", configuration: LogPresenterConfiguration = .init()) {
        self.name = name
        self.configuration = configuration
    }

    deinit {
        file.withLock { fd in if let fd { close(fd) } }
    }

    public func present(_ alert: Alert, delivery: DeliveryContext) async -> PresentationOutcome {
        let line = LogLineFormatter.line(alert, delivery: delivery, format: configuration.format, timestamp: Date()) + "\n"
        let bytes = Array(line.utf8)
        switch configuration.destination {
        case .standardError:
            if let code = FileDescriptorWriter.standardError.write(bytes) {
                return .retryableFailure(reason: "writing to stderr failed: \(Errno(code).description)")
            }
            return .delivered
        case .file(let path):
            return file.withLock { fd -> PresentationOutcome in
                if fd == nil {
                    switch Self.open(path) {
                    case .success(let opened): fd = opened
                    // Retryable: a person can fix the directory or its permissions.
                    case .failure(let error): return .retryableFailure(reason: error.description)
                    }
                }
                if let code = FileDescriptorWriter.writeAll(fd!, bytes) {
                    return .retryableFailure(reason: "writing to log file \(path) failed: \(Errno(code).description)")
                }
                return .delivered
            }
        }
    }

    /// Closes the file and opens the path again, so after logrotate moved the
    /// old file away, new lines go to a fresh one (call on SIGHUP). When the
    /// open fails the next `present` tries again.
    public func reopen() throws(LogFileError) {
        guard case .file(let path) = configuration.destination else { return }
        let result = file.withLock { fd -> Result<Void, LogFileError> in
            if let old = fd { close(old) }
            fd = nil
            return Self.open(path).map { fd = $0 }
        }
        try result.get()
    }

    /// `open(2)` for appending, creating the file (mode 0640) if missing.
    private static func open(_ path: String) -> Result<Int32, LogFileError> {
        let fd = Foundation.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o640)
        return fd >= 0 ? .success(fd) : .failure(LogFileError(path: path, errno: errno))
    }
}

import FoundationEssentials
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
    private let file = Mutex<AppendFile?>(nil)

    public init(name: String = "log", configuration: LogPresenterConfiguration = .init()) {
        self.name = name
        self.configuration = configuration
    }

    public func present(_ alert: Alert, delivery: DeliveryContext) async -> PresentationOutcome {
        let line = LogLineFormatter.line(alert, delivery: delivery, format: configuration.format, timestamp: Date()) + "\n"
        let bytes = Array(line.utf8)
        switch configuration.destination {
        case .standardError:
            if let code = FileDescriptorWriter.standardError.write(bytes) {
                return .retryableFailure(reason: "writing to stderr failed: \(Errno(code))")
            }
            return .delivered
        case .file(let path):
            return file.withLock { open -> PresentationOutcome in
                if open == nil {
                    switch Self.open(path) {
                    case .success(let opened): open = opened
                    // Retryable: a person can fix the directory or its permissions.
                    case .failure(let error): return .retryableFailure(reason: error.description)
                    }
                }
                if let error = open!.write(bytes) {
                    return .retryableFailure(reason: "writing to log file \(path) failed: \(error)")
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
        let result = file.withLock { open -> Result<Void, LogFileError> in
            open = nil
            return Self.open(path).map { open = $0 }
        }
        try result.get()
    }

    /// The file for appending, created (mode 0640) if missing.
    private static func open(_ path: String) -> Result<AppendFile, LogFileError> {
        AppendFile.open(path).mapError { LogFileError(path: path, errno: $0.rawValue) }
    }
}

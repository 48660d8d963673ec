/// Where and how a ``LogPresenter`` writes. The default is JSON lines on
/// standard error, which journald and container runtimes collect.
public struct LogPresenterConfiguration: Sendable, Equatable {
    public enum Destination: Sendable, Equatable {
        case standardError
        /// Appended to; created with mode 0640 if missing.
        case file(String)
    }

    public enum Format: String, Sendable, Equatable, CaseIterable {
        /// One JSON object per line, keys sorted.
        case jsonLines = "json"
        /// `key=value` pairs, quoted where needed.
        case logfmt
    }

    public var destination: Destination
    public var format: Format

    public init(destination: Destination = .standardError, format: Format = .jsonLines) {
        self.destination = destination
        self.format = format
    }
}

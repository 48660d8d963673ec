import AlertModel

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

extension LogPresenterConfiguration: PresenterConfiguration {
    public static let typeName = "log"
    public static let keys = ["path", "format"]
    public static var example: [String: Any] { ["path": "alerts.log", "format": "json"] }
    /// A follow-up is one more line, `event=closed`, with how and by whom.
    public static var followUps: FollowUpSupport { .onByDefault }

    public init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader) {
        self.init()
        if let p = reader.string(object, "path", at: path), p != "-" { destination = .file(p) }
        if let f = reader.string(object, "format", at: path) {
            if let format = Format(rawValue: f) { self.format = format } else { reader.problem(path + ".format", "must be json or logfmt") }
        }
    }

    /// A relative file path is resolved against the state directory here,
    /// so `--state-dir` moves it too.
    public func makePresenter(name: String, context: PresenterContext) -> any AlertPresenter {
        var c = self
        if case .file(let path) = destination { c.destination = .file(context.resolve(path)) }
        return LogPresenter(name: name, configuration: c)
    }
}

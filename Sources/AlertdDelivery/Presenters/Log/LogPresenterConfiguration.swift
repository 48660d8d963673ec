import FoundationEssentials
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
    /// so `--state-dir` moves it too. Its directory is checked now, so
    /// `--check-config` and a reload find a mistyped path: else every
    /// delivery retried until `retry.max_age` and died.
    public func makePresenter(name: String, context: PresenterContext) throws(PresenterSetupError) -> any AlertPresenter {
        var c = self
        if case .file(let path) = destination {
            let resolved = context.resolve(path)
            try Self.checkWritable(resolved, stateDirectory: context.stateDirectory)
            c.destination = .file(resolved)
        }
        return LogPresenter(name: name, configuration: c)
    }

    /// A file right in a state directory not made yet passes: alertd makes
    /// that directory as it starts (`--check-config` on a first run).
    private static func checkWritable(_ path: String, stateDirectory: String) throws(PresenterSetupError) {
        var isDirectory = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard !isDirectory else { throw PresenterSetupError("\(path) is a directory; give the path of a file in it") }
            guard FileManager.default.isWritableFile(atPath: path) else {
                throw PresenterSetupError("alertd's user may not write to \(path); change its owner or mode, or give another path")
            }
            return
        }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) }.flatMap { $0.isEmpty ? "/" : $0 } ?? "."
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            if directory == stateDirectory { return }
            throw PresenterSetupError("the directory \(directory) of \(path) does not exist; create it, or give another path")
        }
        guard isDirectory else { throw PresenterSetupError("\(directory), where \(path) would be, is not a directory; give another path") }
        guard FileManager.default.isWritableFile(atPath: directory) else {
            throw PresenterSetupError("alertd's user may not create \(path): its directory is not writable by it; change the directory's owner or mode, or give another path")
        }
    }
}

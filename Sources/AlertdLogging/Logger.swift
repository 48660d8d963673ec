import FoundationEssentials
import AlertModel

/// A logger in the manner of swift-log: a value with a label, a level and
/// metadata, one method per level. Messages are fixed text; anything that
/// varies goes in metadata, so logs can be searched and parsed.
public struct Logger: Sendable {
    public typealias Metadata = [String: String]

    public enum Level: String, Sendable, CaseIterable, Comparable {
        case trace, debug, info, notice, warning, error, critical

        package var rank: Int { Level.allCases.firstIndex(of: self)! }

        public static func < (a: Level, b: Level) -> Bool { a.rank < b.rank }

        /// The syslog priority journald reads from a `<N>` prefix.
        public var syslogPriority: Int {
            switch self {
            case .trace, .debug: 7
            case .info: 6
            case .notice: 5
            case .warning: 4
            case .error: 3
            case .critical: 2
            }
        }
    }

    public let label: String
    /// Entries below this level are dropped; defaults to the system's level.
    public var logLevel: Level
    public var metadata: Metadata = [:]

    public init(label: String) {
        self.label = label
        self.logLevel = LoggingSystem.level
    }

    public subscript(metadataKey key: String) -> String? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The message and the metadata are only worked out for an entry that
    /// is kept: debug lines on hot paths cost nothing at the default level.
    public func log(level: Level, _ message: @autoclosure () -> String, _ metadata: @autoclosure () -> Metadata = [:]) {
        guard level >= logLevel else { return }
        let metadata = metadata()
        let merged = self.metadata.isEmpty ? metadata : self.metadata.merging(metadata) { _, new in new }
        LoggingSystem.handler.log(LogEntry(level: level, label: label, message: message(), metadata: merged, date: Date()))
    }

    public func trace(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> Metadata = [:]) { log(level: .trace, message(), metadata()) }
    public func debug(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> Metadata = [:]) { log(level: .debug, message(), metadata()) }
    public func info(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> Metadata = [:]) { log(level: .info, message(), metadata()) }
    public func notice(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> Metadata = [:]) { log(level: .notice, message(), metadata()) }
    public func warning(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> Metadata = [:]) { log(level: .warning, message(), metadata()) }
    public func error(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> Metadata = [:]) { log(level: .error, message(), metadata()) }
    public func critical(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> Metadata = [:]) { log(level: .critical, message(), metadata()) }

    /// RFC 3339 UTC with milliseconds, for metadata values that are times.
    public static func timestamp(_ date: Date) -> String { UTCTimestamp.iso8601(date) }
}

/// One log record, as handed to the handler.
public struct LogEntry: Sendable {
    public let level: Logger.Level
    public let label: String
    public let message: String
    public let metadata: Logger.Metadata
    public let date: Date
}

import AlertModel
import AlertdPOSIX
import FoundationEssentials

/// Where log entries go. Bootstrapped once, in `LoggingSystem`.
public protocol LogHandler: Sendable {
    func log(_ entry: LogEntry)
}

/// Writes entries to standard error, one whole line per `write(2)` so lines
/// from different threads never mix.
public struct StreamLogHandler: LogHandler {
    public enum Format: String, Sendable, CaseIterable {
        /// `2026-11-30T12:00:00.000Z warning dispatcher: delivery failed alert.id=… error="…"`
        case human
        /// `<4>dispatcher: delivery failed alert.id=…`: journald reads the
        /// priority from the prefix and adds its own timestamp.
        case journal
        /// One JSON object per line, for log shippers.
        case json
    }

    public let format: Format
    private let fd: Int32

    public init(format: Format, fd: Int32 = 2) {
        self.format = format
        self.fd = fd
    }

    /// `journal` when stderr is connected to journald (`JOURNAL_STREAM` is
    /// set), `human` otherwise.
    public static func automaticFormat(environment: [String: String] = CurrentProcess.environment) -> Format {
        environment["JOURNAL_STREAM"].map { !$0.isEmpty } == true ? .journal : .human
    }

    public func log(_ entry: LogEntry) {
        // A log line that cannot be written has nowhere to be reported.
        _ = FileDescriptorWriter.writeAll(fd, Array((Self.render(entry, format: format) + "\n").utf8))
    }

    public static func render(_ entry: LogEntry, format: Format) -> String {
        switch format {
        case .json:
            var fields: [String: String] = entry.metadata
            fields["ts"] = Logger.timestamp(entry.date)
            fields["level"] = entry.level.rawValue
            fields["logger"] = entry.label
            fields["msg"] = entry.message
            var json = JSONObject()
            json.strings(fields)
            return json.json
        case .journal:
            return "<\(entry.level.syslogPriority)>\(entry.label): \(entry.message)\(Logfmt.pairs(entry.metadata))"
        case .human:
            return "\(Logger.timestamp(entry.date)) \(entry.level.rawValue) \(entry.label): \(entry.message)\(Logfmt.pairs(entry.metadata))"
        }
    }
}

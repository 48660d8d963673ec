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

    /// `journal` when stderr is connected to journald: `JOURNAL_STREAM`
    /// names the device and inode of the journal's stream, and `stderr`'s are
    /// those (systemd's advice: the variable is inherited by children whose
    /// stderr goes elsewhere, to a terminal or a file); `human` otherwise.
    public static func automaticFormat(environment: [String: String] = CurrentProcess.environment, stderr: Int32 = 2) -> Format {
        guard let stream = environment["JOURNAL_STREAM"] else { return .human }
        let parts = stream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]),
              case .success(let status) = FileStatus.of(descriptor: stderr),
              status.identity == FileStatus.Identity(device: device, inode: inode)
        else { return .human }
        return .journal
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

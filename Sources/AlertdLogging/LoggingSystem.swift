import Synchronization

/// The process-wide log handler and level, set once at start by the executable.
public enum LoggingSystem {
    private static let state = Mutex<(handler: any LogHandler, level: Logger.Level)>(
        (StreamLogHandler(format: StreamLogHandler.automaticFormat()), .info))

    /// Installs the handler and default level. Call once, before logging.
    public static func bootstrap(_ handler: any LogHandler, level: Logger.Level) {
        state.withLock { $0 = (handler, level) }
    }

    package static var handler: any LogHandler { state.withLock { $0.handler } }
    package static var level: Logger.Level { state.withLock { $0.level } }
}

import Dispatch
import AlertdLogging

extension AlertDaemon {
    /// ``build(_:mode:logger:)`` on a thread of its own. Building opens and
    /// migrates the store (seconds for a large one after an upgrade) and
    /// reads files: blocking work that must not hold one of Swift's few
    /// cooperative threads.
    public static func open(
        _ config: DaemonConfiguration, mode: Mode, logger: Logger = Logger(label: "alertd")
    ) async throws(DaemonBuildError) -> AlertDaemon {
        let result: Result<AlertDaemon, DaemonBuildError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(DaemonBuildError) -> AlertDaemon in
                    try build(config, mode: mode, logger: logger)
                })
            }
        }
        return try result.get()
    }
}

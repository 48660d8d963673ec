import FoundationEssentials

import AlertdLogging
import AlertdPOSIX

/// Keeps systemd's watchdog (`WatchdogSec=`) fed while the daemon is really
/// alive: every half timeout it runs `probe`, and pings only if the probe
/// answers true. A hung store or dispatcher makes the probe hang or fail, the
/// pings stop, and systemd restarts the service; a timer alone would keep
/// pinging from a wedged process.
public struct SystemdWatchdog: Sendable {
    public let notifier: SystemdNotifier
    /// The timeout systemd enforces; pings go out every half of it.
    public let timeout: Duration
    private let probe: @Sendable () async -> Bool
    private let log: Logger

    /// Nil when the watchdog is off (`$WATCHDOG_USEC` unset, or meant for another pid).
    public init?(
        notifier: SystemdNotifier, environment: [String: String] = CurrentProcess.environment,
        pid: Int32 = CurrentProcess.id, logger: Logger = Logger(label: "watchdog"),
        probe: @escaping @Sendable () async -> Bool
    ) {
        guard let timeout = SystemdNotifier.watchdogInterval(environment: environment, pid: pid) else { return nil }
        self.init(notifier: notifier, timeout: timeout, logger: logger, probe: probe)
    }

    public init(notifier: SystemdNotifier, timeout: Duration, logger: Logger = Logger(label: "watchdog"),
                probe: @escaping @Sendable () async -> Bool) {
        self.notifier = notifier
        self.timeout = timeout
        self.probe = probe
        self.log = logger
    }

    /// How often the probe runs and a ping is sent.
    public var period: Duration { timeout / 2 }

    /// Probes and pings until the task is cancelled. A failed probe or ping is
    /// logged once per run of failures, not every period.
    public func run() async {
        var pingFailing = false, probeFailing = false
        while !Task.isCancelled {
            if await probe() {
                if probeFailing { log.notice("liveness probe passes again; pinging the watchdog") }
                probeFailing = false
                do {
                    try notifier.watchdog()
                    pingFailing = false
                } catch {
                    if !pingFailing { log.warning("watchdog ping failed", ["error": error.message]) }
                    pingFailing = true
                }
            } else {
                if !probeFailing {
                    log.error("liveness probe failed; not pinging the watchdog",
                              ["timeout_ms": "\(timeout.milliseconds)"])
                }
                probeFailing = true
            }
            do { try await Task.sleep(for: period) } catch { return }
        }
    }
}

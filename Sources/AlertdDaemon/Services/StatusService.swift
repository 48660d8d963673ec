import FoundationEssentials
import AlertdLogging
import AlertdPOSIX
import AlertdServices

/// Says how the daemon is doing, to the log and to systemd: `alertd ready`
/// and READY=1 once every service before it has started, the status line
/// and watchdog pings while the daemon is alive, `alertd stopping` and
/// STOPPING=1 as soon as shutdown begins. Last in the group, so first to stop.
package actor StatusService: Service {
    package nonisolated let name = "status"
    private let notifier: SystemdNotifier
    private let watchdog: SystemdWatchdog?
    private let readyMetadata: @Sendable () -> Logger.Metadata
    private let statusLine: @Sendable () async -> String
    private let log = Logger(label: "alertd")
    private let shutdown = ShutdownSignal()

    /// Without a watchdog to piggyback on, the status line is refreshed on this slow beat.
    private static let statusPeriod: Duration = .seconds(10)

    /// `isAlive` gates the watchdog pings: a wedged daemon must stop them.
    package init(
        notifier: SystemdNotifier, environment: [String: String],
        readyMetadata: @escaping @Sendable () -> Logger.Metadata,
        statusLine: @escaping @Sendable () async -> String,
        isAlive: @escaping @Sendable () async -> Bool
    ) {
        self.notifier = notifier
        self.readyMetadata = readyMetadata
        self.statusLine = statusLine
        watchdog = SystemdWatchdog(notifier: notifier, environment: environment, logger: Logger(label: "watchdog")) {
            guard await isAlive() else { return false }
            // The same proof of life keeps the status line current.
            try? notifier.status(await statusLine())
            return true
        }
    }

    package func start() async {
        log.notice("alertd ready", readyMetadata())
        if notifier.isEnabled {
            do throws(SystemdNotifierError) { try notifier.ready(status: await statusLine()) } catch {
                log.warning("cannot notify the service manager", ["error": error.message])
            }
        }
        // Starting is over; the code and tables only it read need not stay
        // mapped. A procfs read and a madvise per library: no wait on a disk.
        // A first delivery loading libcurl meanwhile waits (LibraryLoading).
        CurrentProcess.releaseStartupPages()
    }

    package func run() async {
        guard notifier.isEnabled else {
            await shutdown.wait()
            return
        }
        if let watchdog {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await watchdog.run() }
                await shutdown.wait()
                group.cancelAll()
            }
        } else {
            while await !shutdown.wait(for: Self.statusPeriod), !Task.isCancelled {
                try? notifier.status(await statusLine())
            }
        }
    }

    package func shutdownGracefully() {
        guard !shutdown.isTriggered else { return }
        log.notice("alertd stopping")
        if notifier.isEnabled {
            do throws(SystemdNotifierError) { try notifier.stopping(status: "Stopping: finishing deliveries") } catch {
                log.warning("cannot notify the service manager", ["error": error.message])
            }
        }
        shutdown.trigger()
    }
}

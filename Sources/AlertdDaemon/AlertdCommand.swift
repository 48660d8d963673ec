import Foundation

import AlertModel
import AlertdCommandLine
import AlertdLogging
import AlertdPOSIX

#if canImport(Glibc)
import Glibc
#endif

/// `alertd`: reads its configuration, starts the daemon and runs it until
/// SIGTERM or SIGINT.
public struct AlertdCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "alertd",
        abstract: "The alert dispatch daemon: accepts alerts, stores them durably, delivers them.",
        discussion: """
            With no --config, alertd runs on built-in defaults: state in $STATE_DIRECTORY or ./.alertd, \
            the API on a Unix socket in $RUNTIME_DIRECTORY or the state directory, TCP off, and every \
            alert shown on the terminal and appended to a log.
            """,
        version: AlertdVersion.current,
        options: [
            .value("config", short: "c", valueName: "path", help: "A JSON config file (see config/alertd.json)."),
            .value("state-dir", valueName: "dir", help: "Where the store lives; overrides the config."),
            .value("socket", valueName: "path", help: "The API's Unix socket; overrides the config."),
            .value("listen", valueName: "host:port", help: "Also serve the API on TCP, e.g. 127.0.0.1:9190."),
            .value("log-level", valueName: "level", help: "The least severe log level printed.", default: "info",
                   allowedValues: Logger.Level.allCases.map(\.rawValue)),
            .value("log-format", valueName: "format", help: "Log line format; auto picks journal under systemd.",
                   default: "auto", allowedValues: ["auto"] + StreamLogHandler.Format.allCases.map(\.rawValue)),
            .flag("check-config", help: "Validate the configuration, print every problem, and exit (0 valid, 65 not)."),
        ],
        manual: manual)

    package let configPath: String?
    package let stateDir: String?
    package let socket: String?
    package let listen: String?
    package let logLevel: Logger.Level
    package let logFormat: String
    package let checkOnly: Bool

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        configPath = parsed.value("config")
        stateDir = parsed.value("state-dir")
        socket = parsed.value("socket")
        listen = parsed.value("listen")
        if let l = listen, ListenAddress(l) == nil {
            throw .invalidValue(l, for: parsed.configuration.option(named: "listen")!, expected: "give host:port, e.g. 127.0.0.1:9190.")
        }
        logLevel = Logger.Level(rawValue: parsed.value("log-level")!)!
        logFormat = parsed.value("log-format")!
        checkOnly = parsed.flag("check-config")
    }

    /// The configuration the options describe: the file (or defaults) with
    /// command-line overrides applied.
    package func loadConfiguration() throws(ConfigurationError) -> DaemonConfiguration {
        var config: DaemonConfiguration
        if let configPath {
            config = try DaemonConfiguration.load(from: configPath, stateDirectory: stateDir)
        } else {
            config = DaemonConfiguration()
            if let stateDir { config.stateDirectory = stateDir }
        }
        if let socket { config.api.socketPath = socket }
        if let listen { config.api.listen = listen }
        return config
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        let format = logFormat == "auto"
            ? StreamLogHandler.automaticFormat(environment: context.environment)
            : StreamLogHandler.Format(rawValue: logFormat)!
        LoggingSystem.bootstrap(StreamLogHandler(format: format), level: logLevel)
        let log = Logger(label: "alertd")

        var config: DaemonConfiguration
        do {
            config = try loadConfiguration()
        } catch {
            context.errorOutput(error.description + "\n")
            return .dataError
        }
        if checkOnly {
            let problems = AlertDaemon.preflight(config)
            guard problems.isEmpty else {
                context.errorOutput(problems.joined(separator: "\n") + "\n")
                return .dataError
            }
            context.output("\(configPath ?? "built-in defaults"): configuration is valid\n")
            return .success
        }

        // systemd: sockets passed in (alertd.socket), and the notify socket.
        do {
            let activation = try SocketActivation.fromProcess()
            for warning in activation.warnings { log.warning("passed socket ignored", ["problem": warning]) }
            config.api.activatedListeners = activation.activatedListeners
        } catch {
            log.critical("alertd could not start", ["error": error.message, "code": error.code.rawValue])
            return .failure
        }
        let notifier = SystemdNotifier()
        if let problem = notifier.configurationProblem { log.warning("service manager notifications are off", ["error": problem.message]) }

        // SIGUSR2 wedges the dispatcher, for the watchdog test; only when asked for.
        let faultHooks = context.environment["ALERTD_FAULT_HOOKS"] == "1"
        let signals = ProcessSignals.stream([SIGTERM, SIGINT, SIGHUP] + (faultHooks ? [SIGUSR2] : []))
        let daemon: AlertDaemon
        do {
            daemon = try await AlertDaemon.start(config, logger: log)
        } catch {
            log.critical("alertd could not start", ["error": error.message, "code": error.code.rawValue])
            try? notifier.status("Failed to start: \(error.message)")
            return error.code == .listener ? .unavailable : .failure
        }
        let watchdog = Self.startSystemdNotifications(notifier, daemon: daemon, log: log)
        var stalled = false
        for await sig in signals {
            if sig == SIGHUP {
                await reload(daemon, current: config, notifier: notifier, log: log)
                continue
            }
            if sig == SIGUSR2 {
                stalled.toggle()
                log.warning("fault hook: dispatcher stalled", ["stalled": "\(stalled)"])
                await daemon.setDispatcherStalled(stalled)
                continue
            }
            log.notice("signal received, shutting down", ["signal": sig == SIGTERM ? "SIGTERM" : "SIGINT"])
            break
        }
        watchdog?.cancel()
        do { try notifier.stopping(status: "Stopping: finishing deliveries") } catch {
            log.warning("cannot notify the service manager", ["error": error.message])
        }
        await daemon.shutdown()
        return .success
    }

    /// SIGHUP: read the configuration again; apply it if it is valid, keep
    /// the running one and say why if not. systemd hears RELOADING=1 first
    /// and READY=1 after, whatever the result.
    private func reload(_ daemon: AlertDaemon, current: DaemonConfiguration, notifier: SystemdNotifier, log: Logger) async {
        try? notifier.reloading()
        var problems: [String] = []
        do {
            var new = try loadConfiguration()
            new.api.activatedListeners = current.api.activatedListeners
            for warning in try await daemon.reload(new) { log.warning("reload: setting kept until restart", ["detail": warning]) }
        } catch let error as ConfigurationError {
            problems = error.problems.map { "\(error.source): \($0)" }
        } catch let error as DaemonError {
            problems = [error.message]
        } catch {
            problems = ["\(error)"]
        }
        daemon.metrics.reloaded(successfully: problems.isEmpty)
        if problems.isEmpty {
            log.notice("configuration reloaded")
            try? notifier.ready(status: "Reloaded; \(await daemon.statusLine())")
        } else {
            for p in problems { log.error("reload failed; keeping the running configuration", ["problem": p]) }
            try? notifier.ready(status: "Reload failed (\(problems.count) problems, see the log); running the previous configuration")
        }
    }

    /// READY=1 once the dispatcher runs (the listeners are bound by now),
    /// and watchdog pings while the dispatcher and the store answer.
    private static func startSystemdNotifications(_ notifier: SystemdNotifier, daemon: AlertDaemon, log: Logger) -> Task<Void, Never>? {
        guard notifier.isEnabled else { return nil }
        let watchdog = SystemdWatchdog(notifier: notifier, logger: Logger(label: "watchdog")) {
            guard await daemon.isAlive() else { return false }
            // The same proof of life keeps the status line current.
            try? notifier.status(await daemon.statusLine())
            return true
        }
        return Task {
            let deadline = ContinuousClock.now + .seconds(5)
            while !(await daemon.dispatcher.isRunning), ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
            do throws(SystemdNotifierError) { try notifier.ready(status: await daemon.statusLine()) } catch {
                log.warning("cannot notify the service manager", ["error": error.message])
            }
            if let watchdog {
                await watchdog.run()
            } else {
                // No watchdog to piggyback on: refresh the status line on a slow beat.
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(10))
                    try? notifier.status(await daemon.statusLine())
                }
            }
        }
    }
}

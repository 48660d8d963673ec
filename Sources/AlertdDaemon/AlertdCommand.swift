import FoundationEssentials

import AlertModel
import AlertdCommandLine
import AlertdLogging
import AlertdPOSIX

/// `alertd`: reads its configuration, starts the daemon and runs it until
/// SIGTERM or SIGINT. The signals come from `main`, through the context.
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
            .value("config", short: "c", valueName: "path", help: "A JSON config file; `make install` puts one in /etc/alertd/alertd.json."),
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
        let (config, problems) = readConfiguration()
        guard let config, problems.isEmpty else { throw ConfigurationError(source: configurationSource, problems: problems, readSoFar: config) }
        return config
    }

    /// What every problem of the configuration is said after: the file, or `<defaults>`.
    private var configurationSource: String { configPath ?? "<defaults>" }

    /// ``loadConfiguration()`` with its problems beside what could be read
    /// (``DaemonConfiguration/read(from:stateDirectory:)``).
    private func readConfiguration() -> (DaemonConfiguration?, [String]) {
        var (config, problems) = configPath.map { DaemonConfiguration.read(from: $0, stateDirectory: stateDir) }
            ?? (stateDir.map(DaemonConfiguration.init(stateDirectory:)) ?? DaemonConfiguration(), [])
        if let socket { config?.api.socketPath = socket }
        if let listen { config?.api.listen = listen }
        return (config, problems)
    }

    /// `--check-config`: every problem of the file and of building what it
    /// describes, in one run; a typo no longer hides a missing secret file.
    private func check(_ context: CommandContext, log: Logger) async -> ExitCode {
        let (config, problems) = readConfiguration()
        var found = problems
        if let config { found += await AlertDaemon.problemsBuilding(config, beyond: problems, logger: log) }
        guard found.isEmpty else {
            context.errorOutput(ConfigurationError(source: configurationSource, problems: found).description + "\n")
            return .dataError
        }
        context.output("\(configPath ?? "built-in defaults"): configuration is valid\n")
        return .success
    }

    /// Runs the daemon on the signals in `context`; with `--check-config`,
    /// builds it as a start would, binding and starting nothing, and reports.
    public func run(_ context: CommandContext) async -> ExitCode {
        let format = logFormat == "auto"
            ? StreamLogHandler.automaticFormat(environment: context.environment)
            : StreamLogHandler.Format(rawValue: logFormat)!
        LoggingSystem.bootstrap(StreamLogHandler(format: format), level: logLevel)
        let log = Logger(label: "alertd")

        if checkOnly { return await check(context, log: log) }
        var config: DaemonConfiguration
        do {
            config = try loadConfiguration()
        } catch {
            let error = await error.withProblemsBuildingFinds(logger: log)
            // A person at a terminal reads the lines as `--check-config` gives
            // them; the journal and log shippers get them as every other
            // failure to start: with a priority, or as JSON.
            guard format != .human else {
                context.errorOutput(error.description + "\n")
                return .dataError
            }
            for problem in error.problems {
                log.critical("alertd could not start", ["error": "\(error.source): \(problem)", "code": DaemonError.Code.configuration.rawValue])
            }
            return .dataError
        }

        // 8 MB at most per heap, a few heaps: kept, not returned and fetched again per request.
        CurrentProcess.keepFreedMemory(upTo: 8 << 20)

        // systemd: sockets passed in (alertd.socket), and the notify socket.
        do {
            let activation = try SocketActivation.fromProcess()
            for warning in activation.warnings { log.warning("passed socket ignored", ["problem": warning]) }
            config.api.activatedListeners = activation.activatedListeners
        } catch {
            log.critical("alertd could not start", ["error": error.message, "code": error.code.rawValue])
            return .failure
        }
        let notifier = SystemdNotifier(environment: context.environment)
        if let problem = notifier.configurationProblem { log.warning("service manager notifications are off", ["error": problem.message]) }

        // Every file alertd creates (the store and its journal, the lock,
        // the alert log) is born without access for others; a stricter mask
        // from the service manager stays.
        FileMode.restrictCreationMask(0o027)
        let daemon: AlertDaemon
        do throws(DaemonBuildError) {
            daemon = try await AlertDaemon.open(config, mode: .run, logger: log)
        } catch {
            for problem in error.problems {
                log.critical("alertd could not start", ["error": problem.message, "code": problem.code.rawValue])
            }
            try? notifier.status("Failed to start: \(error.problems.first?.message ?? "")")
            return error.exitCode
        }
        do throws(DaemonError) {
            try await daemon.run(signals: context.signals, notifier: notifier, environment: context.environment,
                                 configurationSource: configurationSource) {
                () throws(ConfigurationError) in try loadConfiguration()
            }
        } catch {
            log.critical("alertd stopped on a failure", ["error": error.message, "code": error.code.rawValue])
            try? notifier.status("Failed: \(error.message)")
            return error.code == .listener ? .unavailable : .failure
        }
        return .success
    }
}

import FoundationEssentials
import AlertModel
import AlertdPOSIX

/// Settings for an `exec` presenter: a program alertd runs for each alert.
///
/// ```json
/// "pager": {"type": "exec", "command": ["/usr/local/bin/page-oncall", "--team", "ops"], "timeout": "20s"}
/// ```
///
/// The command is an argument vector, run without a shell (nothing in an
/// alert can inject into it). The program gets the webhook payload on
/// standard input and a few `ALERTD_*` variables; exit status 0 means
/// delivered, 75 (`EX_TEMPFAIL`) try again later, anything else failed for
/// good. What it prints goes into the delivery's error.
public struct ExecPresenterConfiguration: PresenterConfiguration {
    public static let typeName = "exec"
    public static let keys = ["command", "timeout", "environment"]
    public static let defaultMaxConcurrency = 4
    public static var example: [String: Any] { ["command": ["/usr/local/bin/notify-oncall", "--team", "ops"]] }

    /// The exit status that asks for a retry: sysexits.h's `EX_TEMPFAIL`.
    public static let retryExitStatus: Int32 = 75

    /// The program (a path, or a name looked up on `PATH`) and its arguments.
    public var command: [String] = []
    /// How long one run may take before it and what it started are killed;
    /// a run that times out is retried.
    public var timeout: Duration = .seconds(30)
    /// Set for the program, besides `PATH`, `HOME`, `LANG`, `LC_ALL`, `TZ`
    /// (passed on from alertd's own) and the `ALERTD_*` variables.
    public var environment: [String: String] = [:]

    public init(command: [String], timeout: Duration = .seconds(30), environment: [String: String] = [:]) {
        self.command = command
        self.timeout = timeout
        self.environment = environment
    }

    public init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader) {
        if let command = reader.strings(object, "command", at: path) {
            if command.first?.isEmpty ?? true {
                reader.problem(reader.join(path, "command"), "must start with the program to run, e.g. [\"/usr/local/bin/notify\", \"--urgent\"]")
            }
            self.command = command
        } else if object["command"] == nil {
            reader.problem(reader.join(path, "command"), "is required: the program and its arguments, e.g. [\"/usr/local/bin/notify\"]")
        }
        if let d = reader.duration(object, "timeout", at: path) { timeout = d }
        if let env = reader.stringMap(object, "environment", at: path) {
            for name in env.keys.sorted() where name.isEmpty || name.contains("=") || name.hasPrefix("ALERTD_") {
                reader.problem(reader.join(reader.join(path, "environment"), name), "is not a name alertd lets you set (no `=`, not ALERTD_…)")
            }
            environment = env
        }
    }

    /// Off unless `"follow_ups": true`: a program written before follow-ups
    /// would take one for a new alert. With them, it runs again when the
    /// alert closes, with `ALERTD_EVENT=closed` and a `closed` payload.
    public static var followUps: FollowUpSupport { .offByDefault }

    public func makePresenter(name: String, context: PresenterContext) throws(PresenterSetupError) -> any AlertPresenter {
        var resolved = self
        // Checked now, so --check-config finds a missing program: a path as
        // it is, a bare name on the PATH it will run with (it is looked up
        // again when it runs).
        if let program = command.first, program.contains("/") {
            resolved.command[0] = context.resolve(program)
            guard Self.isProgram(resolved.command[0]) else {
                throw PresenterSetupError("the command \(resolved.command[0]) is not an executable file; check the path and its permissions")
            }
        } else if let program = command.first {
            let path = environment["PATH"] ?? ProcessInfo.processInfo.environment["PATH"] ?? ExecPresenter.defaultPath
            guard path.split(separator: ":").contains(where: { Self.isProgram("\($0)/\(program)") }) else {
                throw PresenterSetupError("no program \(program) on PATH (\(path)); give its path, or install it")
            }
        }
        return ExecPresenter(name: name, configuration: resolved)
    }

    /// An executable file that is no directory: for root, whose access
    /// checks pass any directory with an `x` bit, `/tmp` was a program, and
    /// every delivery died with "permission denied".
    private static func isProgram(_ path: String) -> Bool {
        guard case .success(let status) = FileStatus.of(path), status.kind != .directory else { return false }
        return FileManager.default.isExecutableFile(atPath: path)
    }

    public func preview(of alert: Alert, delivery: DeliveryContext) -> PresenterPreview? {
        let input = (try? WebhookPayload(alert: alert, delivery: delivery).encoded()) ?? Data()
        return preview(input, ExecPresenter.environment(for: alert, delivery: delivery, presenter: "render", configured: environment, inherited: [:]))
    }

    public func preview(of notification: AlertGroupNotification, delivery: DeliveryContext) -> PresenterPreview? {
        preview(WebhookGroupPayload(notification, delivery: delivery).encoded(),
                ExecPresenter.environment(for: notification, delivery: delivery, presenter: "render", configured: environment, inherited: [:]))
    }

    private func preview(_ input: Data, _ env: [String: String]) -> PresenterPreview {
        let head = ["exec " + command.map(Self.quoted).joined(separator: " "), "timeout \(timeout.alertdDescription)"]
            + env.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return PresenterPreview(head: head, body: PresenterPreview.readable(input))
    }

    /// An argument as a shell would need it written, for showing only.
    static func quoted(_ argument: String) -> String {
        argument.allSatisfy({ $0.isLetter || $0.isNumber || "/-_.=:,+@%".contains($0) }) && !argument.isEmpty
            ? argument : "'" + argument.replacingScalars(["'": "'\\''"]) + "'"
    }
}

/// Runs the configured program once per attempt (``ChildProcess``, off the
/// cooperative pool) and reads its exit status.
public struct ExecPresenter: AlertPresenter {
    public let name: String
    public let configuration: ExecPresenterConfiguration

    /// The most of a program's output kept for its delivery's error.
    static let maxOutputBytes = 16 * 1024
    /// The most of that quoted in the reason.
    static let maxReasonOutput = 1_000
    /// The program's `PATH` when alertd has none.
    static let defaultPath = "/usr/local/bin:/usr/bin:/bin"

    public init(name: String, configuration: ExecPresenterConfiguration) {
        self.name = name
        self.configuration = configuration
    }

    public func present(_ alert: Alert, delivery: DeliveryContext) async -> PresentationOutcome {
        let input: Data
        do {
            input = try WebhookPayload(alert: alert, delivery: delivery).encoded()
        } catch {
            return .permanentFailure(reason: "cannot encode alert \(alert.id) as JSON: \(error)")
        }
        let env = Self.environment(for: alert, delivery: delivery, presenter: name, configured: configuration.environment,
                                   inherited: ProcessInfo.processInfo.environment)
        return await run(input: input, environment: env)
    }

    /// A group notification: the webhook's group payload on standard input,
    /// `ALERTD_EVENT=group` and the group's id and reason in the environment.
    public func presentGroup(_ notification: AlertGroupNotification, delivery: DeliveryContext) async -> GroupPresentationOutcome {
        let env = Self.environment(for: notification, delivery: delivery, presenter: name, configured: configuration.environment,
                                   inherited: ProcessInfo.processInfo.environment)
        let input = WebhookGroupPayload(notification, delivery: delivery).encoded()
        return GroupPresentationOutcome(outcome: await run(input: input, environment: env))
    }

    /// A group notification's environment: its summary alert's, with the
    /// group's id, reason and size in place of an alert's id.
    static func environment(
        for notification: AlertGroupNotification, delivery: DeliveryContext, presenter: String, configured: [String: String],
        inherited: [String: String]
    ) -> [String: String] {
        var env = environment(for: notification.summaryAlert, delivery: delivery, presenter: presenter, configured: configured, inherited: inherited)
        env["ALERTD_ALERT_ID"] = nil
        env["ALERTD_EVENT"] = "group"
        env["ALERTD_GROUP_ID"] = notification.groupID.rawValue
        env["ALERTD_GROUP_REASON"] = notification.reason.rawValue
        env["ALERTD_FIRING"] = String(notification.firing.count)
        return env
    }

    private func run(input: Data, environment env: [String: String]) async -> PresentationOutcome {
        do {
            let result = try await ChildProcess.run(
                configuration.command, environment: env, input: input, timeout: configuration.timeout, maxOutputBytes: Self.maxOutputBytes)
            return Self.outcome(for: result, program: configuration.command[0], timeout: configuration.timeout)
        } catch {
            return .permanentFailure(reason: "exec: \(error.message)")
        }
    }

    /// The program's whole environment: a few of alertd's own, the
    /// configured ones, then what describes this attempt.
    static func environment(
        for alert: Alert, delivery: DeliveryContext, presenter: String, configured: [String: String], inherited: [String: String]
    ) -> [String: String] {
        var env: [String: String] = ["PATH": inherited["PATH"] ?? defaultPath]
        for name in ["HOME", "LANG", "LC_ALL", "TZ"] { env[name] = inherited[name] }
        env.merge(configured) { $1 }
        env["ALERTD_PRESENTER"] = presenter
        env["ALERTD_ALERT_ID"] = alert.id.rawValue
        env["ALERTD_DELIVERY_ID"] = delivery.deliveryID.rawValue
        env["ALERTD_ATTEMPT"] = String(delivery.attempt)
        env["ALERTD_SEVERITY"] = alert.spec.severity.rawValue
        env["ALERTD_STATE"] = alert.state.rawValue
        env["ALERTD_TITLE"] = alert.spec.title
        env["ALERTD_EVENT"] = delivery.followUp == nil ? "alert" : "closed"
        if let followUp = delivery.followUp {
            env["ALERTD_DECIDED_BY"] = followUp.decision.actor
            if let recipient = followUp.decision.recipient { env["ALERTD_DECIDED_RECIPIENT"] = recipient }
            env["ALERTD_FOLLOWS_UP"] = followUp.original.rawValue
        }
        for (kind, link) in delivery.actionLinks { env["ALERTD_\(kind.rawValue.uppercased())_URL"] = link }
        return env
    }

    static func outcome(for result: ChildProcessResult, program: String, timeout: Duration) -> PresentationOutcome {
        let output = Self.quote(result.output, truncated: result.outputTruncated)
        switch result.termination {
        case .exited(0):
            return .delivered
        case .exited(ExecPresenterConfiguration.retryExitStatus):
            return .retryableFailure(reason: "exec: \(program) exited with 75 (try again later)\(output)")
        case .exited(let status):
            return .permanentFailure(reason: "exec: \(program) exited with \(status)\(output)")
        case .signalled(let signal):
            return .permanentFailure(reason: "exec: \(program) was killed by signal \(signal)\(output)")
        case .timedOut:
            return .retryableFailure(reason: "exec: \(program) did not finish within \(timeout.alertdDescription) and was killed\(output)")
        case .cancelled:
            return .retryableFailure(reason: "exec: \(program) was stopped because alertd is shutting down")
        }
    }

    /// `: <the last of the output>`, on one line, or nothing when it printed nothing.
    static func quote(_ output: Data, truncated: Bool) -> String {
        // The program's own bytes reach `last_error`, events and whatever
        // reads them: terminal controls and bidi overrides shown as U+FFFD,
        // as a service's error text is.
        let text = TextPolicy.replacingRefused(
            in: String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline)
                .map { $0.trimmingSpaces() }.filter { !$0.isEmpty }.joined(separator: " | "), .line)
        guard !text.isEmpty else { return "" }
        // Cut in scalars: one character of a letter and 8,000 combining marks
        // kept the whole 16 KiB in every error and log line.
        let scalars = text.unicodeScalars
        let tail = scalars.count > maxReasonOutput || truncated
            ? "…" + String(String.UnicodeScalarView(scalars.suffix(maxReasonOutput))) : text
        return ": " + tail
    }
}

import FoundationEssentials
import AlertModel
import AlertdCommandLine
import AlertdDelivery

/// `alertctl render`: presents an alert right here through one presenter,
/// to see what it looks like without a daemon. Every presenter type works
/// through the registry: terminal and log present here, and the others show
/// what they would send (their ``PresenterConfiguration/preview(of:delivery:)``),
/// or send it once when given a destination.
public struct RenderCommand: CLICommand {
    /// The types `--to` takes: every type a release build has.
    static let targets = PresenterRegistry.documentedTypes.map { $0.typeName }

    public static let configuration = CommandConfiguration(
        name: "render",
        abstract: "Present an alert right away through one presenter, without the daemon.",
        discussion: "'terminal' draws it here, on standard output; 'log' writes its line to standard error (so '2>file' keeps it). Every other presenter prints what it would send (request, headers and body; secrets as placeholders, action links as a daemon with api.public_url would sign them) to standard output, with the type's example settings or those of '--config'. Given a destination ('--url', '--secret-file', '--secret' or '--config'), it sends the alert once instead, with a fresh delivery id, and prints the outcome ('delivered', or why not) to standard error; '--dry-run' prints instead of sending. A webhook's signing secret comes from '--secret-file', or from ALERTD_WEBHOOK_SECRET; '--secret' works too but is discouraged: a command line is visible to every user (ps, /proc). Exits 0 when shown or delivered, 1 when the presenter failed, 64 on a usage error or unusable settings, 65 when the alert is invalid.",
        options: AlertCompositionOptions.options + [
            .value("to", valueName: "presenter", help: "The presenter type to use.", default: "terminal", allowedValues: targets),
            .value("log-format", valueName: "format", help: "The line format for --to log.", default: "json",
                   allowedValues: LogPresenterConfiguration.Format.allCases.map(\.rawValue)),
            .value("color", valueName: "when", help: "When to colour terminal output.", default: "auto",
                   allowedValues: TerminalPresenterConfiguration.ColourMode.allCases.map(\.rawValue)),
            .value("width", valueName: "columns", help: "The terminal frame's width; defaults to the terminal's."),
            .value("config", valueName: "json", help: "The presenter's settings as a JSON object, as in alertd's configuration."),
            .value("url", valueName: "url", help: "The destination: sets the presenter's 'url' setting, or 'api_url' for a type that has none (PagerDuty, Telegram, Pushover: the service's address, which its paths follow)."),
            .value("secret-file", valueName: "file", help: "A file holding the signing secret (whsec_...); only its owner may read it."),
            .value("secret", valueName: "secret", help: "The signing secret itself; discouraged, since others see it in ps: use --secret-file or ALERTD_WEBHOOK_SECRET."),
            .flag("dry-run", help: "Print what would be sent, even with a destination."),
            .value("follow-up", valueName: "outcome", help: "Show (or send) the follow-up telling the presenter that the alert closed so.",
                   allowedValues: Self.followUpOutcomes.map(\.rawValue)),
            .value("group", valueName: "count", help: "Show (or send) a group notification of this many alerts like this one, as a route with group_by sends it."),
        ])

    /// The most alerts `--group` makes.
    static let maxGroupSize = 10_000

    /// How a follow-up can say an alert closed.
    static let followUpOutcomes: [AlertState] = [.resolved, .confirmed, .cancelled, .expired]

    /// Where a webhook's signing secret may come from instead of the command line.
    package static let secretVariable = "ALERTD_WEBHOOK_SECRET"

    package enum Mode {
        case terminal
        case log
        /// Shows what it would send.
        case preview(any PresenterConfiguration)
        /// Sends once.
        case send(any PresenterConfiguration)
    }

    package let composition: AlertCompositionOptions
    package let mode: Mode
    package let logFormat: LogPresenterConfiguration.Format
    package let colour: TerminalPresenterConfiguration.ColourMode
    package let width: Int?
    /// With `--follow-up`: the alert closed so, and the follow-up is what is shown.
    package let followUp: AlertState?
    /// With `--group`: how many alerts the group notification shows.
    package let groupSize: Int?

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        composition = try AlertCompositionOptions(parsed: parsed)
        // The parser has checked these against the allowed values.
        let target = parsed.value("to")!
        logFormat = LogPresenterConfiguration.Format(rawValue: parsed.value("log-format")!)!
        colour = TerminalPresenterConfiguration.ColourMode(rawValue: parsed.value("color")!)!
        if let raw = parsed.value("width") {
            guard let columns = Int(raw), (TerminalRenderer.minimumWidth...TerminalRenderer.maximumWidth).contains(columns) else {
                throw .invalidValue(raw, for: parsed.configuration.option(named: "width")!,
                                    expected: "give a number of columns from \(TerminalRenderer.minimumWidth) to \(TerminalRenderer.maximumWidth).")
            }
            width = columns
        } else {
            width = nil
        }
        if parsed.isGiven("secret") && parsed.isGiven("secret-file") {
            throw .invalidCombination("Give the signing secret once: '--secret-file' (or ALERTD_WEBHOOK_SECRET), not with '--secret'.")
        }
        followUp = parsed.value("follow-up").flatMap(AlertState.init(rawValue:))
        if followUp != nil, PresenterRegistry.type(named: target)?.followUps == .unsupported {
            throw .invalidCombination("'\(target)' presenters send no follow-ups; leave out '--follow-up'.")
        }
        if let raw = parsed.value("group") {
            guard let count = Int(raw), (1...Self.maxGroupSize).contains(count) else {
                throw .invalidValue(raw, for: parsed.configuration.option(named: "group")!,
                                    expected: "give how many alerts the group has, 1 to \(Self.maxGroupSize).")
            }
            if followUp != nil { throw .invalidCombination("Give '--group' or '--follow-up', not both.") }
            groupSize = count
        } else {
            groupSize = nil
        }
        let destination = ["url", "secret", "secret-file", "config"].filter { parsed.isGiven($0) }
        switch target {
        case TerminalPresenterConfiguration.typeName, LogPresenterConfiguration.typeName:
            if !destination.isEmpty || parsed.flag("dry-run") {
                throw .invalidCombination("'--url', '--secret-file', '--secret', '--config' and '--dry-run' are for presenters that send somewhere; '\(target)' presents here.")
            }
            mode = target == LogPresenterConfiguration.typeName ? .log : .terminal
        default:
            let configuration = try Self.configuration(type: target, parsed: parsed)
            mode = destination.isEmpty || parsed.flag("dry-run") ? .preview(configuration) : .send(configuration)
        }
    }

    /// The settings `--config` gives (or the type's example), with `--url`
    /// and `--secret` over them, read as alertd reads its configuration.
    static func configuration(type typeName: String, parsed: ParsedCommand) throws(CommandLineError) -> any PresenterConfiguration {
        // The registry knows every value `--to` allows.
        let type = PresenterRegistry.type(named: typeName)!
        var settings = type.example
        if let text = parsed.value("config") {
            guard let object = (try? StrictJSON.parse(text)) as? [String: Any] else {
                throw CommandLineError(code: .invalidValue, message: "The value given for '--config <json>' is invalid: give the settings as a JSON object, e.g. '{\"url\": \"https://…\"}'.")
            }
            settings = object
        }
        // A service reached at a fixed API (PagerDuty, Telegram, Pushover)
        // has no `url`: its address is `api_url`.
        let urlKey = type.keys.contains("url") || !type.keys.contains("api_url") ? "url" : "api_url"
        if let url = parsed.value("url") { settings[urlKey] = url }
        // A presenter that signs nothing says so, rather than "unknown key" for the option.
        if parsed.isGiven("secret") || parsed.isGiven("secret-file"), !type.keys.contains("secret") {
            let signing = PresenterRegistry.documentedTypes.filter { $0.keys.contains("secret") }.map { $0.typeName }.joined(separator: ", ")
            throw .invalidCombination("'--to \(typeName)' signs nothing; '--secret' and '--secret-file' are for the presenters that sign their requests (\(signing)).")
        }
        if let secret = parsed.value("secret") { settings["secret"] = secret }
        if let file = parsed.value("secret-file") { settings["secret_file"] = file }
        settings["type"] = typeName
        let reader = JSONConfigReader()
        let definition = PresenterRegistry.definition(named: "render", from: settings, at: "settings", reader)
        guard reader.problems.isEmpty, let definition else {
            // A problem with a value from its own option is reported as that
            // option's; never with the value itself, which may be a secret.
            for (option, key) in [("url", urlKey), ("secret", "secret"), ("secret-file", "secret_file")] where parsed.isGiven(option) {
                if let problem = reader.problems.first(where: { $0.hasPrefix("settings.\(key): ") }) {
                    let spelling = parsed.configuration.option(named: option)!.synopsisName
                    throw CommandLineError(code: .invalidValue, message: "The value given for '\(spelling)' is invalid: \(problem.dropFirst("settings.\(key): ".count))")
                }
            }
            throw CommandLineError(code: .invalidValue, message: "The settings for '--to \(typeName)' cannot be used: \(reader.problems.joined(separator: "; ")).")
        }
        return definition.configuration
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        let spec: AlertSpec
        switch composition.build(context: context) {
        case .success(let built): spec = built
        case .failure(let errors):
            context.errorOutput(errors.commandLineText)
            return .dataError
        }
        var alert = Alert(spec: spec)
        var deliveryID = DeliveryID(rawValue: UUID().uuidString.lowercased())
        var followUp: AlertFollowUp?
        if let outcome = self.followUp {
            // The alert as it would be once closed so, and the follow-up of its first delivery.
            let (closed, example) = AlertFollowUp.example(outcome, of: alert, original: deliveryID)
            (alert, followUp, deliveryID) = (closed, example, .followUp(of: deliveryID))
        }
        let presenter: any AlertPresenter
        switch mode {
        case .terminal:
            presenter = TerminalPresenter(
                configuration: TerminalPresenterConfiguration(stream: .standardOutput, colour: colour, width: width),
                environment: context.environment)
        case .log:
            presenter = LogPresenter(configuration: LogPresenterConfiguration(destination: .standardError, format: logFormat))
        case .preview(let configuration):
            let delivery = DeliveryContext(deliveryID: deliveryID, actionLinks: followUp != nil ? [:] : Self.links(alert), followUp: followUp)
            let shown = groupSize.map { configuration.preview(of: Self.group(of: alert, count: $0), delivery: DeliveryContext(deliveryID: deliveryID)) }
            guard let preview = shown ?? configuration.preview(of: alert, delivery: delivery) else {
                context.errorOutput("error: '\(type(of: configuration).typeName)' cannot show what it would send.\n")
                return .usage
            }
            context.output(preview.text)
            return .success
        case .send(var configuration):
            // Neither option named a secret: the environment may, out of sight of ps.
            if var webhook = configuration as? WebhookPresenterConfiguration, webhook.secret == nil, webhook.secretFile == nil,
               let secret = context.environment[Self.secretVariable], !secret.isEmpty {
                do { _ = try StandardWebhookSigner(secret: secret) } catch {
                    // Named by its variable, never repeated: it would land in the scrollback.
                    context.errorOutput("Error: The secret in \(Self.secretVariable) is invalid: \(error.message)\n")
                    return .usage
                }
                webhook.secret = secret
                configuration = webhook
            }
            do {
                presenter = try configuration.makePresenter(
                    name: "render", context: PresenterContext(httpClient: .shared, stateDirectory: FileManager.default.currentDirectoryPath))
            } catch {
                context.errorOutput("error: \(error.message)\n")
                return .usage
            }
        }
        let delivery = DeliveryContext(deliveryID: deliveryID, followUp: followUp)
        let outcome = if let groupSize {
            await presenter.presentGroup(Self.group(of: alert, count: groupSize), delivery: delivery).outcome
        } else {
            await presenter.present(alert, delivery: delivery)
        }
        switch outcome {
        case .delivered:
            // Shown here ('terminal', 'log'), there is nothing to report: the
            // line would land in the log's own '2>file'.
            if case .send = mode { context.errorOutput("delivered\n") }
            return .success
        case .partlyDelivered(let reason), .reachedSome(let reason):
            // Some recipients have it: sent, as the daemon counts it, but not wholly.
            context.errorOutput("delivered, but not to every recipient: \(reason)\n")
            return .failure
        case .retryableFailure(let reason, _), .permanentFailure(let reason), .notSent(let reason, _):
            context.errorOutput("failed: \(reason)\n")
            return .failure
        }
    }

    /// Links as a daemon with api.public_url would sign them, so the buttons show.
    static func links(_ alert: Alert) -> [ActionKind: String] {
        Dictionary(uniqueKeysWithValues: ActionKind.allCases.filter { alert.spec.action($0) != nil }.map {
            ($0, "https://alertd.example/v1/alerts/\(alert.id)/actions/\($0.rawValue)?expires=<expiry>&token=<signature>")
        })
    }

    /// The first notification of a group of `count` alerts like `alert`,
    /// a second apart, each with its own `instance` label, grouped by the
    /// alert's other labels.
    static func group(of alert: Alert, count: Int) -> AlertGroupNotification {
        let firing = (0..<count).map { i in
            var labels = alert.spec.labels
            labels["instance"] = labels["instance"].map { "\($0)-\(i + 1)" } ?? "\(i + 1)"
            let s = alert.spec
            let spec = AlertSpec(title: s.title, message: s.message, severity: s.severity, labels: labels, confirm: s.confirm, cancel: s.cancel,
                                 dedupKey: nil, expiresAfter: s.expiresAfter)
            let at = alert.createdAt.addingTimeInterval(Double(i))
            return Alert(id: .generate(at: at), spec: spec, createdAt: at)
        }
        let groupLabels = AlertLabel.sorted(alert.spec.labels.filter { $0.key != "instance" })
        let id = AlertGroupID(route: "render", labels: groupLabels)
        return AlertGroupNotification(
            groupID: id, route: "render", groupLabels: groupLabels, sequence: 1, reason: .first, firing: firing,
            newAlertIDs: Set(firing.map(\.id)), actionLinks: Dictionary(uniqueKeysWithValues: firing.map { ($0.id, links($0)) }),
            consoleURL: "https://alertd.example/ui/#/group/\(id.rawValue)")
    }
}

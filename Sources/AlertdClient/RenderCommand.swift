import FoundationEssentials
import AlertModel
import AlertdCommandLine
import AlertdDelivery
import AlertdPOSIX

/// `alertctl render`: presents an alert right here through one presenter,
/// to see what it looks like without a daemon.
public struct RenderCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "render",
        abstract: "Present an alert right away through one presenter, without the daemon.",
        discussion: "Prints the outcome ('delivered', or why not) to standard error. Exits 0 when delivered, 1 when the presenter failed, 64 on a usage error, 65 when the alert is invalid. With '--to webhook', the alert is POSTed once to '--url' with a fresh delivery id, signed when a secret is given: with '--secret-file', or in ALERTD_WEBHOOK_SECRET. '--secret' works too but is discouraged: a command line is visible to every user (ps, /proc).",
        options: AlertCompositionOptions.options + [
            .value("to", valueName: "presenter", help: "The presenter to use.", default: "terminal",
                   allowedValues: ["terminal", "log", "webhook"]),
            .value("log-format", valueName: "format", help: "The line format for --to log.", default: "json",
                   allowedValues: LogPresenterConfiguration.Format.allCases.map(\.rawValue)),
            .value("color", valueName: "when", help: "When to colour terminal output.", default: "auto",
                   allowedValues: TerminalPresenterConfiguration.ColourMode.allCases.map(\.rawValue)),
            .value("width", valueName: "columns", help: "The terminal frame's width; defaults to the terminal's."),
            .value("url", valueName: "url", help: "The endpoint for --to webhook."),
            .value("secret-file", valueName: "file", help: "A file holding the signing secret (whsec_...) for --to webhook; only its owner may read it."),
            .value("secret", valueName: "secret", help: "The signing secret itself; discouraged, since others see it in ps: use --secret-file or ALERTD_WEBHOOK_SECRET."),
        ])

    /// Where the signing secret may come from instead of the command line.
    package static let secretVariable = "ALERTD_WEBHOOK_SECRET"

    package enum Target: String { case terminal, log, webhook }

    package let composition: AlertCompositionOptions
    package let target: Target
    package let logFormat: LogPresenterConfiguration.Format
    package let colour: TerminalPresenterConfiguration.ColourMode
    package let width: Int?
    package let url: String?
    package let secret: String?
    package let secretFile: String?

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        composition = try AlertCompositionOptions(parsed: parsed)
        // The parser has checked these against the allowed values.
        target = Target(rawValue: parsed.value("to")!)!
        logFormat = LogPresenterConfiguration.Format(rawValue: parsed.value("log-format")!)!
        colour = TerminalPresenterConfiguration.ColourMode(rawValue: parsed.value("color")!)!
        if let raw = parsed.value("width") {
            guard let columns = Int(raw), columns >= TerminalRenderer.minimumWidth else {
                throw .invalidValue(raw, for: parsed.configuration.option(named: "width")!,
                                    expected: "give a number of columns, at least \(TerminalRenderer.minimumWidth).")
            }
            width = columns
        } else {
            width = nil
        }
        url = parsed.value("url")
        secret = parsed.value("secret")
        secretFile = parsed.value("secret-file")
        if secret != nil && secretFile != nil {
            throw .invalidCombination("Give the signing secret once: '--secret-file' (or ALERTD_WEBHOOK_SECRET), not with '--secret'.")
        }
        if target == .webhook {
            guard let url else {
                throw .invalidCombination("'--to webhook' needs the endpoint: give '--url <url>'.")
            }
            if let problem = Self.webhookURLProblem(url) {
                throw .invalidValue(url, for: parsed.configuration.option(named: "url")!, expected: problem)
            }
            if let secret { try Self.checkSecret(secret, "The value given for '--secret <secret>'") }
        } else if url != nil || secret != nil || secretFile != nil {
            throw .invalidCombination("'--url', '--secret-file' and '--secret' are for '--to webhook'.")
        }
    }

    /// The webhook's signing secret: `--secret`, else `--secret-file`, else
    /// `ALERTD_WEBHOOK_SECRET`; nil for none (unsigned).
    package func webhookSecret(environment: [String: String]) throws(CommandLineError) -> String? {
        if let secret { return secret }
        if let secretFile {
            let text: String
            do { text = try SecretFile.read(secretFile) } catch {
                throw CommandLineError(code: .invalidValue, message: "The value given for '--secret-file <file>' cannot be used: \(error.message).")
            }
            try Self.checkSecret(text, "The secret in '\(secretFile)' (--secret-file)")
            return text
        }
        guard let text = environment[Self.secretVariable], !text.isEmpty else { return nil }
        try Self.checkSecret(text, "The secret in \(Self.secretVariable)")
        return text
    }

    /// Fails unless `secret` can sign. Not `invalidValue`, and the message
    /// never repeats the secret: it would land in the terminal's scrollback.
    private static func checkSecret(_ secret: String, _ source: String) throws(CommandLineError) {
        do {
            _ = try StandardWebhookSigner(secret: secret)
        } catch {
            throw CommandLineError(code: .invalidValue, message: "\(source) is invalid: \(error.message)")
        }
    }

    /// Why `url` cannot be a webhook endpoint, or nil when it can.
    package static func webhookURLProblem(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", components.host.map({ !$0.isEmpty }) == true else {
            return "give an absolute http:// or https:// URL."
        }
        return nil
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        let spec: AlertSpec
        switch composition.build(context: context) {
        case .success(let built): spec = built
        case .failure(let errors):
            context.errorOutput(errors.commandLineText)
            return .dataError
        }
        let presenter: any AlertPresenter
        switch target {
        case .terminal:
            presenter = TerminalPresenter(
                configuration: TerminalPresenterConfiguration(stream: .standardOutput, colour: colour, width: width),
                environment: context.environment)
        case .log:
            presenter = LogPresenter(configuration: LogPresenterConfiguration(destination: .standardError, format: logFormat))
        case .webhook:
            let signingSecret: String?
            do throws(CommandLineError) { signingSecret = try webhookSecret(environment: context.environment) } catch {
                var error = error
                error.commandPath = ["alertctl", Self.configuration.name]
                context.errorOutput(CommandLineTool.report(error, root: AlertctlCommand.self))
                return .usage
            }
            do {
                // The URL and secret are checked; the secret cannot fail here.
                presenter = try WebhookPresenter(
                    name: "webhook", configuration: WebhookPresenterConfiguration(url: url ?? "", secret: signingSecret))
            } catch {
                context.errorOutput("error: \(error.message)\n")
                return .usage
            }
        }
        let outcome = await presenter.present(Alert(spec: spec), delivery: DeliveryContext(deliveryID: DeliveryID(rawValue: UUID().uuidString.lowercased())))
        switch outcome {
        case .delivered:
            context.errorOutput("delivered\n")
            return .success
        case .retryableFailure(let reason, _), .permanentFailure(let reason):
            context.errorOutput("failed: \(reason)\n")
            return .failure
        }
    }
}

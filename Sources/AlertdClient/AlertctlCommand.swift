import AlertModel
import AlertdCommandLine

/// `alertctl`: the root command. Alone, it prints its help and exits 0, as
/// swift-argument-parser does for a command group.
public struct AlertctlCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "alertctl",
        abstract: "Compose, check and send alerts to alertd.",
        version: AlertdVersion.current,
        subcommands: [
            ValidateCommand.self, RenderCommand.self, SendCommand.self, ListCommand.self, ShowCommand.self,
            ActionDecisionCommand<ConfirmDecision>.self, ActionDecisionCommand<CancelDecision>.self, ResolveCommand.self, WatchCommand.self, ReplayCommand.self,
            CompletionCommand.self,
        ])

    package let helpText: String

    public init(parsed: ParsedCommand) {
        helpText = parsed.helpText
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        context.output(helpText + "\n")
        return .success
    }
}

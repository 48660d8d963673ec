import AlertModel
import AlertdCommandLine

/// `alertctl`: the root command. Alone, it prints its help and exits 0, as
/// swift-argument-parser does for a command group.
public struct AlertctlCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "alertctl",
        abstract: "Compose, check and send alerts to alertd.",
        discussion: """
            The commands that talk to alertd find it with --socket, or --url and --token-file; \
            these may also come before the command: 'alertctl --socket /run/alertd/alertd.sock list'.
            """,
        version: AlertdVersion.current,
        // Declared here too so they may precede the subcommand; the parser
        // hands them down to subcommands that declare the same options.
        options: AlertdConnectionOptions.options,
        subcommands: [
            ValidateCommand.self, RenderCommand.self, SendCommand.self, ListCommand.self, ShowCommand.self,
            ActionDecisionCommand<ConfirmDecision>.self, ActionDecisionCommand<CancelDecision>.self, ResolveCommand.self, WatchCommand.self, ReplayCommand.self,
            SilenceCommand.self, GroupsCommand.self, CompletionCommand.self,
        ],
        manual: manual)

    package let helpText: String

    public init(parsed: ParsedCommand) {
        helpText = parsed.helpText
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        context.output(helpText + "\n")
        return .success
    }
}

import AlertModel
import AlertdCommandLine

/// `alertctl silence`: the group of `add`, `list` and `expire`, over
/// alertd's Alertmanager-compatible silence API.
public struct SilenceCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "silence",
        abstract: "Hold back the deliveries of matching alerts: add, list and expire silences.",
        discussion: """
            A silence holds back the deliveries of the alerts whose labels it matches while it is active; \
            the alerts are still stored, and shown as silenced. When it ends or is expired, what it held \
            is delivered if its alert is still open. Silences are Alertmanager's, so amtool works on them too.

            \(matcherHelp)
            """,
        // Declared here too so they may come before the subcommand.
        options: AlertdConnectionOptions.options,
        subcommands: [SilenceAddCommand.self, SilenceListCommand.self, SilenceExpireCommand.self])

    /// The matcher syntax, for the help of the commands that take matchers.
    package static let matcherHelp = """
        Matchers are Alertmanager's: name=value, name!=value, name=~regex, name!~regex; a value may be \
        quoted ('instance=~"db[0-9]+"'). A missing label is the empty value, and a regex matches the whole \
        value, in the RE2 subset of docs/PROMETHEUS.md.
        """

    package let helpText: String

    public init(parsed: ParsedCommand) {
        helpText = parsed.helpText
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        context.output(helpText + "\n")
        return .success
    }
}

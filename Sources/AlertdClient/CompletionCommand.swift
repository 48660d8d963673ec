import AlertdCommandLine

/// `alertctl completion bash`: prints a completion script generated from
/// alertctl's own command tree, so it knows every command and option.
public struct CompletionCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "completion",
        abstract: "Print a shell completion script.",
        discussion: """
            Load it in the current shell with 'source <(alertctl completion bash)', \
            or install it as bash-completion/completions/alertctl under /usr/share, or \
            /usr/local/share where `make install` puts it (bash-completion reads both).
            """,
        arguments: [CommandArgument("shell", help: "The shell to complete for; only bash is supported.", suggestedValues: shells)])

    /// The shells a script can be printed for.
    public static let shells = ["bash"]

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        let shell = parsed.argument("shell") ?? ""
        guard Self.shells.contains(shell) else {
            throw CommandLineError(
                code: .invalidValue,
                message: "The value '\(shell)' is invalid for '<shell>': give one of \(Self.shells.joined(separator: ", ")).")
        }
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        context.output(BashCompletion.script(for: AlertctlCommand.self))
        return .success
    }
}

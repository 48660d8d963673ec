import AlertdCommandLine

/// `alertctl completion bash|fish`: prints a completion script generated
/// from alertctl's own command tree, so it knows every command and option.
public struct CompletionCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "completion",
        abstract: "Print a shell completion script.",
        discussion: """
            bash: load it in the current shell with 'source <(alertctl completion bash)', \
            or install it as bash-completion/completions/alertctl under /usr/share, or \
            /usr/local/share where `make install` puts it (bash-completion reads both). \
            zsh can load the bash script after 'autoload -U +X bashcompinit && bashcompinit'. \
            fish: 'alertctl completion fish | source', or install it as \
            fish/vendor_completions.d/alertctl.fish under /usr/share or /usr/local/share \
            (`make install` puts it there), or ~/.config/fish/completions/alertctl.fish.
            """,
        arguments: [CommandArgument("shell", help: "The shell to complete for: bash or fish.", suggestedValues: shells)])

    /// The shells a script can be printed for.
    public static let shells = ["bash", "fish"]

    private let shell: String

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        let shell = parsed.argument("shell") ?? ""
        guard Self.shells.contains(shell) else {
            throw CommandLineError(
                code: .invalidValue,
                message: "The value '\(shell)' is invalid for '<shell>': give one of \(Self.shells.joined(separator: ", ")).")
        }
        self.shell = shell
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        context.output(shell == "fish" ? FishCompletion.script(for: AlertctlCommand.self) : BashCompletion.script(for: AlertctlCommand.self))
        return .success
    }
}

/// A command of `alertctl` or `alertd`.
///
/// A command declares its options in ``configuration``, reads the parsed
/// values in `init(parsed:)` (throwing there is a usage error, exit 64, the
/// place for checks that span options), and does its work in `run(_:)`.
public protocol CLICommand: Sendable {
    static var configuration: CommandConfiguration { get }

    /// Reads and checks the parsed command line.
    init(parsed: ParsedCommand) throws(CommandLineError)

    /// Does the work; prints through `context`, never straight to stdout.
    func run(_ context: CommandContext) async -> ExitCode
}

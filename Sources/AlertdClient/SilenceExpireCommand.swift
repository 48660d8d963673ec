import AlertModel
import AlertdCommandLine

/// `alertctl silence expire`: ends silences now.
public struct SilenceExpireCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "expire",
        abstract: "Expire silences now; what they held is delivered if its alert is still open.",
        discussion: """
            Prints 'expired <id>' for each. A pending silence never starts. Expiring an expired silence \
            changes nothing; an unknown id is an error (silence_not_found), and the other ids are still \
            expired; the exit code is the first error's. When alertd cannot be reached, the ids not tried \
            are named.

            \(AlertdConnectionOptions.exitCodesHelp())
            """,
        options: [.flag("json", help: "On failure, print alertd's error as JSON on standard output.")] + AlertdConnectionOptions.options,
        arguments: [CommandArgument("id", help: "A silence's id, as 'silence add' or 'silence list' printed it.", isRepeating: true)])

    package let ids: [String]
    package let json: Bool
    package let connection: AlertdConnectionOptions

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        ids = parsed.argumentValues("id")
        guard !ids.isEmpty else { throw .missingArgument(Self.configuration.arguments[0]) }
        json = parsed.flag("json")
        connection = try AlertdConnectionOptions(parsed: parsed)
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        guard let client = connection.client(context, command: ["alertctl", SilenceCommand.configuration.name, Self.configuration.name]) else {
            return .usage
        }
        // Each is tried: stopping at an unknown id left the silences after it
        // holding deliveries back, with nothing said of them. Not past an
        // outage, though: each would wait out the same silence.
        var code = ExitCode.success
        for (n, id) in ids.enumerated() {
            do {
                try await client.expireSilence(id)
            } catch {
                let failed = error.report(context, json: json)
                if code == .success { code = failed }
                if error.isOutage {
                    let left = ids.dropFirst(n + 1)
                    if !left.isEmpty { context.errorOutput("alertctl: not tried: \(left.joined(separator: " "))\n") }
                    return code
                }
                continue
            }
            context.output("expired \(id)\n")
        }
        return code
    }
}

import AlertModel
import AlertdCommandLine

/// `alertctl resolve`: closes an alert whose problem went away, by id or by
/// dedup key; no handler is called.
public struct ResolveCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "resolve",
        abstract: "Resolve an open alert: the problem went away; no handler is called.",
        discussion: """
            Name the alert by its id, or with --dedup-key by the key it was sent with (the open alert holding \
            it); exactly one of the two. Prints 'resolved <id>'; with --json alertd's answer. A new alert with \
            the same dedup key is then a new alert. The first decision wins: when the alert was decided \
            already, says how, by whom and when, and exits 1.

            \(DecisionCommand.exitCodesHelp)
            """,
        options: [
            .value("dedup-key", valueName: "key", help: "Resolve the open alert holding this dedup key."),
            CommandOption.value("comment", valueName: "text", help: "Why; kept with the decision. Only with an id."),
            DecisionCommand.jsonOption,
        ] + AlertdConnectionOptions.options,
        arguments: [CommandArgument("id", help: "The alert's id, as 'send', 'list' or 'watch' printed it.", isOptional: true)])

    package enum Target: Equatable {
        case id(AlertID)
        case dedupKey(String)
    }

    package let target: Target
    package let comment: String?
    package let json: Bool
    package let connection: AlertdConnectionOptions

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        switch (parsed.argument("id"), parsed.value("dedup-key")) {
        case (let raw?, nil): target = .id(try AlertID.parsingArgument(raw))
        case (nil, let key?):
            guard !key.isEmpty else {
                throw .invalidValue(key, for: parsed.configuration.option(named: "dedup-key")!, expected: "give the alert's dedup key.")
            }
            target = .dedupKey(key)
        case (_?, _?):
            throw .invalidCombination("Give an alert id or '--dedup-key', not both.")
        case (nil, nil):
            throw .invalidCombination("Say which alert to resolve: its id, or '--dedup-key <key>'.")
        }
        comment = parsed.value("comment")
        if comment != nil, case .dedupKey = target {
            throw .invalidCombination("'--comment' goes with an alert id; resolving by '--dedup-key' takes none.")
        }
        json = parsed.flag("json")
        connection = try AlertdConnectionOptions(parsed: parsed)
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        guard let client = connection.client(context, command: ["alertctl", Self.configuration.name]) else { return .usage }
        let target = self.target
        let comment = self.comment
        return await DecisionCommand.run({ () async throws(AlertdClientError) in
            switch target {
            case .id(let id): try await client.decide(id, .resolve, comment: comment)
            case .dedupKey(let key): try await client.resolve(dedupKey: key)
            }
        }, json: json, context: context)
    }
}

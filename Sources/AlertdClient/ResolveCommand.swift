import AlertModel
import AlertdCommandLine
import AlertdHTTP

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

            Resolving by --dedup-key is idempotent, so a check may run it every time it passes: when no open \
            alert holds the key, there is nothing to resolve; says so on standard error (with --json, prints \
            alertd's alert_not_found answer) and exits 0.

            \(DecisionCommand.exitCodesHelp)
            """,
        options: [
            .value("dedup-key", valueName: "key", help: "Resolve the open alert holding this dedup key."),
            CommandOption.value("comment", valueName: "text", help: "Why; kept with the decision."),
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
        json = parsed.flag("json")
        connection = try AlertdConnectionOptions(parsed: parsed)
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        guard let client = connection.client(context, command: ["alertctl", Self.configuration.name]) else { return .usage }
        let comment = self.comment
        switch target {
        case .id(let id):
            return await DecisionCommand.run({ () async throws(AlertdClientError) in
                try await client.decide(id, .resolve, comment: comment)
            }, json: json, context: context)
        case .dedupKey(let key):
            let result: APIRepresentation.DecisionResult
            do {
                result = try await client.resolve(dedupKey: key, comment: comment)
            } catch {
                // The endpoint takes no id, so its 404 can only mean the key.
                guard case .api(404, let answer) = error, answer.code == "alert_not_found" else {
                    return error.report(context, json: json)
                }
                // With --json, alertd's answer, as for any other outcome.
                if json { _ = error.report(context, json: true) }
                context.errorOutput("nothing to resolve: no open alert has the dedup key '\(key)'\n")
                return .success
            }
            DecisionCommand.printResult(result, json: json, context: context)
            return .success
        }
    }
}

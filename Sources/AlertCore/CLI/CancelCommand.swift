/// `alertctl cancel`: says no to an alert; alertd calls its cancel handler.
public struct CancelCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "cancel",
        abstract: "Cancel an open alert: alertd calls its cancel handler.",
        discussion: DecisionCommand.discussion(.cancel),
        options: [DecisionCommand.commentOption, DecisionCommand.jsonOption] + AlertdConnectionOptions.options,
        arguments: [DecisionCommand.idArgument])

    let id: AlertID
    let comment: String?
    let json: Bool
    let connection: AlertdConnectionOptions

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        id = try AlertID.parsingArgument(parsed.argument("id") ?? "")
        comment = parsed.value("comment")
        json = parsed.flag("json")
        connection = try AlertdConnectionOptions(parsed: parsed)
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        guard let client = connection.client(context, command: ["alertctl", Self.configuration.name]) else { return .usage }
        return await DecisionCommand.run({ () async throws(AlertdClientError) in
            try await client.decide(id, .cancel, comment: comment)
        }, json: json, context: context)
    }
}

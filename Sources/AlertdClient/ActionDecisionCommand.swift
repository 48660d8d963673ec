import AlertModel
import AlertdCommandLine

/// `alertctl confirm` and `alertctl cancel`: one command in two kinds, since
/// they differ only in the answer they give.
public struct ActionDecisionCommand<Kind: ActionDecisionKind>: CLICommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: Kind.decision.rawValue,
            abstract: Kind.abstract,
            discussion: DecisionCommand.discussion(Kind.decision),
            options: [DecisionCommand.commentOption, DecisionCommand.jsonOption] + AlertdConnectionOptions.options,
            arguments: [DecisionCommand.idArgument])
    }

    package let id: AlertID
    package let comment: String?
    package let json: Bool
    package let connection: AlertdConnectionOptions

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        id = try AlertID.parsingArgument(parsed.argument("id") ?? "")
        comment = parsed.value("comment")
        json = parsed.flag("json")
        connection = try AlertdConnectionOptions(parsed: parsed)
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        guard let client = connection.client(context, command: ["alertctl", Self.configuration.name]) else { return .usage }
        return await DecisionCommand.run({ () async throws(AlertdClientError) in
            try await client.decide(id, Kind.decision, comment: comment)
        }, json: json, context: context)
    }
}

/// Which answer an `ActionDecisionCommand` gives.
public protocol ActionDecisionKind: Sendable {
    static var decision: AlertdClient.Decision { get }
    static var abstract: String { get }
}

/// `alertctl confirm`: says yes to an alert; alertd calls its confirm handler.
public enum ConfirmDecision: ActionDecisionKind {
    public static let decision = AlertdClient.Decision.confirm
    public static let abstract = "Confirm an open alert: alertd calls its confirm handler."
}

/// `alertctl cancel`: says no to an alert; alertd calls its cancel handler.
public enum CancelDecision: ActionDecisionKind {
    public static let decision = AlertdClient.Decision.cancel
    public static let abstract = "Cancel an open alert: alertd calls its cancel handler."
}

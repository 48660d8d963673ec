import AlertModel
import AlertdCommandLine
import AlertdHTTP

/// `alertctl replay`: retries deliveries that gave up.
public struct ReplayCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "replay",
        abstract: "Retry dead deliveries: those of one alert, or all of them.",
        discussion: """
            Makes dead deliveries pending again, so alertd tries them anew, and prints how many. \
            Name an alert, or give --dead for every dead delivery; exactly one of the two. \
            The attempt count starts again, the age does not: a delivery older than retry.max_age \
            gets one attempt, dead again if it fails (fix the receiver first, or raise max_age).

            \(AlertdConnectionOptions.exitCodesHelp())
            """,
        options: [
            .flag("dead", help: "Replay every dead delivery, of every alert."),
            .flag("json", help: "Print alertd's answer ({\"replayed\": n}) as JSON on standard output."),
        ] + AlertdConnectionOptions.options,
        arguments: [CommandArgument("id", help: "The alert whose dead deliveries to replay.", isOptional: true)])

    /// nil replays every dead delivery.
    package let id: AlertID?
    package let json: Bool
    package let connection: AlertdConnectionOptions

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        let raw = parsed.argument("id")
        switch (raw, parsed.flag("dead")) {
        case (let raw?, false): id = try AlertID.parsingArgument(raw)
        case (nil, true): id = nil
        case (_?, true):
            throw .invalidCombination("Give an alert id or '--dead', not both: '--dead' replays every dead delivery.")
        case (nil, false):
            throw .invalidCombination("Say what to replay: an alert id, or '--dead' for every dead delivery.")
        }
        json = parsed.flag("json")
        connection = try AlertdConnectionOptions(parsed: parsed)
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        guard let client = connection.client(context, command: ["alertctl", Self.configuration.name]) else { return .usage }
        let replayed: Int
        do {
            replayed = try await client.replay(id)
        } catch {
            return error.report(context, json: json)
        }
        if json {
            context.output(CLIJSON.text(APIRepresentation.ReplayResult(replayed: replayed)) + "\n")
        } else {
            context.output("replayed \(replayed) deliver\(replayed == 1 ? "y" : "ies")\n")
        }
        return .success
    }
}

import AlertModel
import AlertdCommandLine
import AlertdHTTP

/// `alertctl show`: one alert with its deliveries.
public struct ShowCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "show",
        abstract: "Show one alert and how its deliveries stand.",
        discussion: """
            Prints the alert's fields, its message, and per presenter the delivery's state, attempts, \
            last error and next attempt. With --json, prints alertd's answer as is.

            \(AlertdConnectionOptions.exitCodesHelp())
            """,
        options: [
            .flag("json", help: "Print the alert as JSON on standard output."),
        ] + AlertdConnectionOptions.options,
        arguments: [CommandArgument("id", help: "The alert's id, as 'send' or 'list' printed it.")])

    package let id: AlertID
    package let json: Bool
    package let connection: AlertdConnectionOptions

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        id = try AlertID.parsingArgument(parsed.argument("id") ?? "")
        json = parsed.flag("json")
        connection = try AlertdConnectionOptions(parsed: parsed)
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        guard let client = connection.client(context, command: ["alertctl", Self.configuration.name]) else { return .usage }
        let alert: APIRepresentation.AlertDetail
        do {
            alert = try await client.show(id)
        } catch {
            return error.report(context, json: json)
        }
        context.output(json ? CLIJSON.text(alert) + "\n" : AlertDetailView.text(alert))
        return .success
    }
}

extension AlertID {
    /// An id typed on the command line; anything else is a usage error.
    package static func parsingArgument(_ raw: String) throws(CommandLineError) -> AlertID {
        guard let id = AlertID(raw) else {
            throw CommandLineError(
                code: .invalidValue,
                message: "'\(raw)' is not an alert id; ids look like 0197a4c2-5b1e-7c3d-8e9f-0123456789ab (see 'alertctl list').")
        }
        return id
    }
}

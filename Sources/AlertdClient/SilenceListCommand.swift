import FoundationEssentials
import AlertModel
import AlertdCommandLine
import AlertdHTTP

/// `alertctl silence list`: the silences alertd keeps, active first.
public struct SilenceListCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "list",
        abstract: "List silences: active, then pending ones.",
        discussion: """
            One line per silence: its id, state, when it ends (starts, while pending; ended, once expired), who made it, its \
            matchers and comment. --all adds expired silences, which alertd keeps for store.retention.

            \(AlertdConnectionOptions.exitCodesHelp())
            """,
        options: [
            .flag("all", help: "Include expired silences."),
            .flag("json", help: "Print alertd's answer, Alertmanager's silence objects, as JSON on standard output."),
        ] + AlertdConnectionOptions.options)

    package let all: Bool
    package let json: Bool
    package let connection: AlertdConnectionOptions

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        all = parsed.flag("all")
        json = parsed.flag("json")
        connection = try AlertdConnectionOptions(parsed: parsed)
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        guard let client = connection.client(context, command: ["alertctl", SilenceCommand.configuration.name, Self.configuration.name]) else {
            return .usage
        }
        let silences: [AlertmanagerRepresentation.Silence]
        do {
            silences = try await client.silences().filter { all || $0.status.state != .expired }
        } catch {
            return error.report(context, json: json)
        }
        if json {
            context.output(CLIJSON.text(silences) + "\n")
            return .success
        }
        if silences.isEmpty {
            context.errorOutput(all ? "no silences\n" : "no active or pending silences\n")
            return .success
        }
        let rows = silences.map { s -> [String] in
            let when = switch s.status.state {
            case .pending: "starts \(UTCTimestamp.readable(s.startsAt))"
            case .active: "ends \(UTCTimestamp.readable(s.endsAt))"
            case .expired: "ended \(UTCTimestamp.readable(s.endsAt))"
            }
            let matchers = s.matchers.map { m in (try? m.matcher().description) ?? "\(m.name)?\(m.value)" }.joined(separator: " ")
            // Text from the store as a row of plain text: a silence kept from before
            // alertd refused control characters in them cannot drive the terminal.
            return [s.id, s.status.state.rawValue, when, s.createdBy, matchers, s.comment].map(AlertListTable.singleLine)
        }
        let header = ["ID", "STATE", "WHEN", "BY", "MATCHERS", "COMMENT"]
        context.output(TextWrapper.columns([header] + rows))
        return .success
    }
}

import FoundationEssentials
import AlertModel
import AlertdCommandLine
import AlertdHTTP

/// `alertctl groups`: the groups grouped routes have formed, soonest due first.
public struct GroupsCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "groups",
        abstract: "List the open groups of alerts that grouped routes formed.",
        discussion: """
            One line per group: its id, route, when it is due next (its first notification, a change's or a \
            reminder), when its presenters were last notified, and its grouping labels. A group ends group_interval \
            after it was told that all its alerts closed, unless one joined it meanwhile. 'GET /v1/groups/{id}' shows a group's members and what \
            each presenter was told.

            \(AlertdConnectionOptions.exitCodesHelp())
            """,
        options: [
            .flag("json", help: "Print alertd's answer, the list of groups, as JSON on standard output."),
        ] + AlertdConnectionOptions.options)

    package let json: Bool
    package let connection: AlertdConnectionOptions

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        json = parsed.flag("json")
        connection = try AlertdConnectionOptions(parsed: parsed)
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        guard let client = connection.client(context, command: ["alertctl", Self.configuration.name]) else { return .usage }
        let groups: [APIRepresentation.Group]
        do {
            groups = try await client.groups()
        } catch {
            return error.report(context, json: json)
        }
        if json {
            context.output(CLIJSON.text(groups) + "\n")
            return .success
        }
        if groups.isEmpty {
            context.errorOutput("no open groups\n")
            return .success
        }
        let header = ["ID", "ROUTE", "NEXT DUE (UTC)", "NOTIFIED (UTC)", "LABELS"]
        // The server's text as the terminal shows it: no escape sequences.
        let rows = groups.map { g in
            [g.id.rawValue, g.route, UTCTimestamp.dateTime(g.nextDueAt), g.notifiedAt.map(UTCTimestamp.dateTime) ?? "-",
             g.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")]
                .map { TextPolicy.replacingRefused(in: $0, .line) }
        }
        context.output(TextWrapper.columns([header] + rows))
        return .success
    }
}

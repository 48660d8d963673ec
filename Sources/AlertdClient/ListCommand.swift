import AlertModel
import AlertdCommandLine
import AlertdHTTP
import AlertdPOSIX
import AlertdStore

/// `alertctl list`: the alerts alertd holds, newest first.
public struct ListCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "list",
        abstract: "List the alerts alertd holds, newest first.",
        discussion: """
            Prints a table (ID, STATE, SEVERITY, CREATED (UTC), TITLE), titles cut to the terminal's width \
            (or 100 columns). With --json, prints alertd's page: {"alerts": [...], "next_cursor": ...}, \
            next_cursor only when there are more (give it to --cursor for the next page); with --all too, one page \
            holding every alert.

            \(AlertdConnectionOptions.exitCodesHelp())
            """,
        options: [
            .value("state", valueName: "state", help: "Only alerts in this state.",
                   allowedValues: AlertState.allCases.map(\.rawValue)),
            .value("delivery-state", valueName: "state",
                   help: "Only alerts with a delivery in this state: 'dead' lists what waits for a replay, handler calls included.",
                   allowedValues: DeliveryState.allCases.map(\.rawValue)),
            .repeatable("label", short: "l", valueName: "name=value", help: "Only alerts with this label; repeat to require more."),
            .value("limit", valueName: "n", help: "Show at most this many alerts, 1 to 1000; with --all, fetch this many per request.",
                   default: "50"),
            .value("cursor", valueName: "cursor", help: "Start after this page: the next_cursor an earlier page gave."),
            .flag("all", help: "Show every matching alert, following the pages."),
            .flag("json", help: "Print the alerts as JSON on standard output."),
        ] + AlertdConnectionOptions.options)

    package let query: AlertQuery
    package let all: Bool
    package let json: Bool
    package let connection: AlertdConnectionOptions

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        var query = AlertQuery()
        query.state = parsed.value("state").flatMap(AlertState.init(rawValue:))
        query.deliveryState = parsed.value("delivery-state").flatMap(DeliveryState.init(rawValue:))
        if let raw = parsed.value("cursor") {
            guard let cursor = AlertID(raw) else {
                throw .invalidValue(raw, for: parsed.configuration.option(named: "cursor")!, expected: "give the next_cursor an earlier page gave.")
            }
            query.before = cursor
        }
        let labelOption = parsed.configuration.option(named: "label")!
        for raw in parsed.values("label") {
            guard let eq = raw.firstIndex(of: "="), AlertSpec.isValidLabelName(String(raw[..<eq])) else {
                throw .invalidValue(raw, for: labelOption, expected: "use the form name=value with a valid label name, e.g. host=db1.")
            }
            query.labels.append((String(raw[..<eq]), String(raw[raw.index(after: eq)...])))
        }
        all = parsed.flag("all")
        if let raw = parsed.value("limit") {
            guard let n = Int(raw), (1...1_000).contains(n) else {
                throw .invalidValue(raw, for: parsed.configuration.option(named: "limit")!, expected: "give a number from 1 to 1000.")
            }
            query.limit = n
        }
        self.query = query
        json = parsed.flag("json")
        connection = try AlertdConnectionOptions(parsed: parsed)
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        guard let client = connection.client(context, command: ["alertctl", Self.configuration.name]) else { return .usage }
        let page: APIRepresentation.AlertList
        do {
            page = all ? APIRepresentation.AlertList(alerts: try await client.listAll(query)) : try await client.list(query)
        } catch {
            return error.report(context, json: json)
        }
        if json {
            context.output(CLIJSON.text(page) + "\n")
            return .success
        }
        if page.alerts.isEmpty {
            context.errorOutput("no alerts\(query.state == nil && query.deliveryState == nil && query.labels.isEmpty ? "" : " match")\n")
        } else {
            context.output(AlertListTable.text(page.alerts, width: Self.width(context.environment)))
        }
        if let next = page.nextCursor {
            context.errorOutput("(showing \(page.alerts.count); there are more: use --all, --limit to raise the count, or --cursor \(next) for the next page)\n")
        }
        return .success
    }

    /// `COLUMNS`, else the terminal's width when standard output is one, else 100.
    package static func width(_ environment: [String: String]) -> Int {
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        if TerminalDevice.isTerminal(TerminalDevice.standardOutput), let columns = TerminalDevice.columns(TerminalDevice.standardOutput) { return columns }
        return 100
    }
}

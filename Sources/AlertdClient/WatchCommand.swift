import FoundationEssentials
import AlertModel
import AlertdCommandLine
import AlertdPOSIX

/// `alertctl watch`: follows alertd's event stream; on a terminal, draws new
/// alerts and decides them with a key press.
public struct WatchCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "watch",
        abstract: "Follow alertd's events; on a terminal, decide alerts with a key press.",
        discussion: """
            On a terminal, draws each new alert as the terminal presenter does and shows decisions as \
            they happen. 'y' confirms and 'n' cancels the newest open alert with that action; type the \
            alert's number first (e.g. 2y) for another one. 'q' or Ctrl-C quits.

            Otherwise, or with --json, prints one line per event: time, type, alert id, the presenter in \
            brackets for a delivery, title, and a delivery's error, or \
            the event's JSON with its id. Without --since, shows what happens from now on. A dropped \
            connection is resumed where it left off.

            \(AlertdConnectionOptions.exitCodesHelp())
            """,
        options: [
            .value("since", valueName: "id", help: "Start after this event id (0 for the whole history) instead of now."),
            .flag("json", help: "Print each event as one line of JSON, also on a terminal."),
        ] + AlertdConnectionOptions.options)

    package let since: Int64?
    package let json: Bool
    package let connection: AlertdConnectionOptions

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        if let raw = parsed.value("since") {
            guard let value = Int64(raw), value >= 0 else {
                throw .invalidValue(raw, for: parsed.configuration.option(named: "since")!,
                                    expected: "give an event id, a number from 0 up, as 'watch --json' prints it.")
            }
            since = value
        } else {
            since = nil
        }
        json = parsed.flag("json")
        connection = try AlertdConnectionOptions(parsed: parsed)
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        guard let client = connection.client(context, command: ["alertctl", Self.configuration.name]) else { return .usage }
        if context.isInteractive, !json, let input = TerminalInput() {
            defer { input.restore() }
            var watch = InteractiveWatch(client: client, context: context, input: input)
            return await watch.run(since: since)
        }
        return await printLines(client: client, context: context)
    }

    /// One line per event until the stream fails for good.
    private func printLines(client: AlertdClient, context: CommandContext) async -> ExitCode {
        var titles = AlertTitleCache(client: client)
        do {
            for try await item in client.events(since: since) {
                switch item {
                case .connected(let resumed):
                    if resumed { context.errorOutput("alertctl: reconnected to alertd\n") }
                case .disconnected(let error):
                    context.errorOutput("alertctl: lost the event stream (\(error.summary)); reconnecting\n")
                case .event(let raw):
                    guard let event = AlertdEvent(raw) else { continue }
                    if json {
                        context.output(event.jsonLine + "\n")
                    } else {
                        var line = "\(event.at) \(event.type) \(event.alertID)"
                        // A delivery's line names where it went: three in a row read the same without it.
                        if let presenter = event.fields["presenter"] { line += " [\(AlertListTable.singleLine(presenter))]" }
                        if let title = await titles.title(of: event.alertID) { line += " " + AlertListTable.singleLine(title) }
                        // Who decided, and why: `confirmed by alice at … (comment: ship it)`.
                        if let decision = event.decision { line += " — " + decision.commandLineText }
                        if let error = event.fields["error"] { line += " — " + AlertListTable.singleLine(error) }
                        // Whole, so no field the server sent (a time, a type, who decided) drives the terminal.
                        context.output(AlertListTable.singleLine(line) + "\n")
                    }
                }
            }
        } catch let error as AlertdClientError {
            return error.report(context, json: json)
        } catch {
            context.errorOutput("alertctl: \(error)\n")
            return .failure
        }
        return .success
    }
}

/// Alert titles for event lines, fetched once per alert and kept for the
/// most recent ones.
package struct AlertTitleCache {
    package static let capacity = 1_000

    package let client: AlertdClient
    private var titles: [AlertID: String?] = [:]
    private var order: [AlertID] = []

    package init(client: AlertdClient) {
        self.client = client
    }

    /// The alert's title; nil when it cannot be read.
    package mutating func title(of id: AlertID) async -> String? {
        if let known = titles[id] { return known }
        let title = try? await client.show(id).spec.title
        remember(id, title)
        return title
    }

    package mutating func remember(_ id: AlertID, _ title: String?) {
        if titles.updateValue(title, forKey: id) == nil { order.append(id) }
        if order.count > Self.capacity { titles[order.removeFirst()] = nil }
    }
}

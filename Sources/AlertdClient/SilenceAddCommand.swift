import FoundationEssentials
import AlertModel
import AlertdCommandLine
import AlertdHTTP
import AlertdPOSIX

/// `alertctl silence add`: creates a silence from matchers, as `amtool
/// silence add` does, and prints its id.
public struct SilenceAddCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "add",
        abstract: "Add a silence and print its id.",
        discussion: """
            The silence lasts --duration from its start (now, or --start), or until --end. A start in the \
            future makes it a maintenance window. alertd refuses a silence that every alert without the \
            labels would match, and one without a comment.

            \(SilenceCommand.matcherHelp) As in amtool, a first word without an operator is the alertname: \
            'alertctl silence add DiskFull' is 'alertname=DiskFull'.

            \(AlertdConnectionOptions.exitCodesHelp())
            """,
        options: [
            .value("duration", short: "d", valueName: "duration", help: "How long it lasts from its start, e.g. 2h or 30m.", default: "1h"),
            .value("start", valueName: "time", help: "When it starts, as RFC 3339 (2026-05-05T22:00:00Z); defaults to now."),
            .value("end", valueName: "time", help: "When it ends, as RFC 3339; instead of --duration."),
            .value("author", short: "a", valueName: "name", help: "Who makes it; defaults to $USER, else your login name."),
            .value("comment", short: "c", valueName: "text", help: "Why; required."),
            .flag("json", help: "Print alertd's answer ({\"silenceID\": \"<id>\"}) as JSON on standard output."),
        ] + AlertdConnectionOptions.options,
        arguments: [CommandArgument("matcher", help: "name=value, name!=value, name=~regex or name!~regex; all must match.", isRepeating: true)])

    package let matchers: [LabelMatcher]
    package let start: Date?
    package let end: Date?
    package let duration: AlertDuration
    package let author: String?
    package let comment: String
    package let json: Bool
    package let connection: AlertdConnectionOptions

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        let words = parsed.argumentValues("matcher")
        guard !words.isEmpty else { throw .missingArgument(Self.configuration.arguments[0]) }
        var matchers: [LabelMatcher] = []
        for (i, word) in words.enumerated() {
            do throws(SilenceError) {
                let isBareName = i == 0 && !MatchOperator.allCases.contains { word.contains($0.rawValue) }
                matchers.append(isBareName ? try LabelMatcher(name: "alertname", .equal, word) : try LabelMatcher(parsing: word))
            } catch {
                throw CommandLineError(code: .invalidValue, message: error.message)
            }
        }
        self.matchers = matchers
        func time(_ name: String) throws(CommandLineError) -> Date? {
            guard let raw = parsed.value(name) else { return nil }
            guard let date = RFC3339.parse(raw) else {
                throw .invalidValue(raw, for: Self.configuration.option(named: name)!, expected: "an RFC 3339 time such as 2026-05-05T22:00:00Z.")
            }
            return date
        }
        start = try time("start")
        end = try time("end")
        if end != nil && parsed.isGiven("duration") {
            throw .invalidCombination("Give --end or --duration, not both.")
        }
        let rawDuration = parsed.value("duration") ?? "1h"
        let parsedDuration = AlertDuration(parsing: rawDuration)
        guard let duration = parsedDuration, duration.seconds > 0, duration.seconds <= AlertDuration.longestOption.seconds else {
            let expected = switch parsedDuration?.seconds {
            case nil: "a duration such as 2h or 30m."
            case let s? where s <= 0: "a silence lasts more than zero; give e.g. 2h or 30m."
            default: "a silence lasts at most \(AlertDuration.longestOption) (100 years); give e.g. 2h or 30m."
            }
            throw .invalidValue(rawDuration, for: Self.configuration.option(named: "duration")!, expected: expected)
        }
        self.duration = duration
        guard let comment = parsed.value("comment"), !comment.trimmingSpaces().isEmpty else {
            throw .invalidCombination("Say why with --comment; alertd, like Alertmanager, keeps no silence without one.")
        }
        self.comment = comment
        author = parsed.value("author")
        json = parsed.flag("json")
        connection = try AlertdConnectionOptions(parsed: parsed)
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        guard let client = connection.client(context, command: ["alertctl", SilenceCommand.configuration.name, Self.configuration.name]) else {
            return .usage
        }
        let startsAt = start ?? Date()
        let silence = AlertmanagerRepresentation.PostableSilence(
            matchers: matchers, startsAt: startsAt, endsAt: end ?? startsAt.addingTimeInterval(TimeInterval(duration.seconds)),
            createdBy: author ?? context.environment["USER"] ?? CurrentProcess.userName ?? "alertctl", comment: comment)
        let id: String
        do {
            id = try await client.addSilence(silence)
        } catch {
            return error.report(context, json: json)
        }
        context.output((json ? CLIJSON.text(AlertmanagerRepresentation.SilenceCreated(silenceID: id)) : AlertListTable.singleLine(id)) + "\n")
        return .success
    }
}

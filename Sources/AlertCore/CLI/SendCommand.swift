import Foundation

/// `alertctl send`: composes an alert like `validate` and submits it to alertd.
public struct SendCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "send",
        abstract: "Send an alert to alertd and print its id.",
        discussion: """
            Checks the alert first, as 'validate' does: an invalid alert is not sent. \
            Prints the new alert's id, or with --json alertd's answer ({"id", "state", "deduplicated"}). \
            When an open alert has the same dedup key, the alert is folded into it and its id is printed.

            \(AlertdConnectionOptions.exitCodesHelp(sendsAlerts: true))
            """,
        options: AlertCompositionOptions.options + AlertdConnectionOptions.options + [
            .flag("json", help: "Print alertd's answer, or the problems, as JSON on standard output."),
        ])

    let composition: AlertCompositionOptions
    let connection: AlertdConnectionOptions
    let json: Bool

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        composition = try AlertCompositionOptions(parsed: parsed)
        connection = try AlertdConnectionOptions(parsed: parsed)
        json = parsed.flag("json")
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        let spec: AlertSpec
        switch composition.build(context: context) {
        case .success(let built): spec = built
        case .failure(let errors):
            if json {
                context.output(String(decoding: HTTPErrorBody(invalidAlert: errors).encoded(), as: UTF8.self) + "\n")
            } else {
                context.errorOutput(errors.commandLineText)
            }
            return .dataError
        }
        guard let client = connection.client(context, command: ["alertctl", Self.configuration.name]) else { return .usage }
        let result: SubmissionResult
        do {
            result = try await client.submit(spec)
        } catch {
            return error.report(context, json: json)
        }
        if json {
            context.output(CLIJSON.text(result) + "\n")
        } else {
            context.output(result.id.rawValue + "\n")
        }
        if result.deduplicated {
            context.errorOutput("deduplicated into \(result.id): an open alert has the same dedup key\n")
        }
        return .success
    }
}

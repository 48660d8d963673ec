import FoundationEssentials
import AlertdCommandLine
import AlertdHTTP

/// `alertctl validate`: checks an alert without sending it.
public struct ValidateCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "validate",
        abstract: "Check an alert without sending it, and print it as JSON.",
        discussion: "Prints the alert as the daemon would accept it and exits 0, or prints every problem and exits 65. "
            + "Lengths are checked against the default limits (title 200, message 8192, 64 labels); a daemon's `limits` may allow more, "
            + "and `send` leaves those three to the daemon.",
        options: AlertCompositionOptions.options + [
            .flag("json", help: "Print the alert as one line of JSON, and problems as JSON on standard output in the HTTP API's error format."),
        ])

    package let composition: AlertCompositionOptions
    package let json: Bool

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        composition = try AlertCompositionOptions(parsed: parsed)
        json = parsed.flag("json")
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        switch composition.build(context: context) {
        case .success(let spec):
            // With --json one line, as every command's JSON; without, laid out for a person.
            guard !json else {
                context.output(CLIJSON.text(spec) + "\n")
                return .success
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            // An AlertSpec holds only strings, numbers and dictionaries of strings: encoding cannot fail.
            let data = (try? encoder.encode(spec)) ?? Data()
            context.output(String(decoding: data, as: UTF8.self) + "\n")
            return .success
        case .failure(let errors):
            return errors.report(context, json: json)
        }
    }
}

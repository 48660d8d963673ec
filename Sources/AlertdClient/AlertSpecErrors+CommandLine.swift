import AlertModel
import AlertdCommandLine
import AlertdHTTP

extension AlertSpecErrors {
    /// One `error: <field>: <message> [<code>]` line per problem, each ending
    /// in a newline. Problems quote what they found (a template file's label
    /// names, a value given), which may hold escape sequences: shown as a
    /// terminal may show them.
    public var commandLineText: String {
        errors.map { "error: \(AlertListTable.singleLine("\($0)"))\n" }.joined()
    }

    /// Tells the user what is wrong with the alert they composed: the API's
    /// own error document on standard output with `--json`, one line per
    /// problem on standard error otherwise. Returns the exit code (65).
    package func report(_ context: CommandContext, json: Bool) -> ExitCode {
        if json {
            context.output(String(decoding: HTTPErrorBody(invalidAlert: self).encoded(), as: UTF8.self) + "\n")
        } else {
            context.errorOutput(commandLineText)
        }
        return .dataError
    }
}

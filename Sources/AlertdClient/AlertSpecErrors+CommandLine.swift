import AlertModel
import AlertdCommandLine
import AlertdHTTP

extension AlertSpecErrors {
    /// One `error: <field>: <message> [<code>]` line per problem, each ending in a newline.
    public var commandLineText: String {
        errors.map { "error: \($0)\n" }.joined()
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

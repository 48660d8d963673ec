import AlertdCommandLine
import AlertdHTTP
import AlertdStore

/// What `confirm`, `cancel` and `resolve` share: their options, their help
/// and how they print a decision or a refusal.
package enum DecisionCommand {
    package static let commentOption = CommandOption.value(
        "comment", valueName: "text", help: "Why; kept with the decision and passed to the handler.")
    package static let jsonOption = CommandOption.flag(
        "json", help: "Print alertd's answer, or the error with the alert as it stands, as JSON on standard output.")
    package static let idArgument = CommandArgument("id", help: "The alert's id, as 'send', 'list' or 'watch' printed it.")

    package static let exitCodesHelp = "Exit codes: 0 decided, 1 failure (already decided, no such alert, or another error "
        + "from alertd), 64 usage error, 65 refused as invalid (400, 422), 69 alertd unavailable, 75 alertd cannot now (503, 429): "
        + "try again later, 77 token refused or without the scope (401, 403)."

    /// The help text shared by `confirm` and `cancel`.
    package static func discussion(_ decision: AlertdClient.Decision) -> String {
        """
        Decides the open alert as \(decision.outcome.rawValue), in your name (uid:N over the socket, 'token' over \
        TCP), and prints '\(decision.outcome.rawValue) <id>'; with --json alertd's answer ({"id", "state", \
        "decision", "handler_delivery_id"}). The first decision wins: when the alert was decided already, \
        says how, by whom and when, and exits 1.

        \(exitCodesHelp)
        """
    }

    /// Sends the decision and prints the outcome.
    package static func run(
        _ decide: () async throws(AlertdClientError) -> APIRepresentation.DecisionResult,
        json: Bool, context: CommandContext
    ) async -> ExitCode {
        let result: APIRepresentation.DecisionResult
        do {
            result = try await decide()
        } catch {
            return error.report(context, json: json)
        }
        printResult(result, json: json, context: context)
        return .success
    }

    /// `confirmed <id>`, or with `json` alertd's answer.
    package static func printResult(_ result: APIRepresentation.DecisionResult, json: Bool, context: CommandContext) {
        context.output(json ? CLIJSON.text(result) + "\n" : "\(result.state.rawValue) \(result.id)\n")
    }
}

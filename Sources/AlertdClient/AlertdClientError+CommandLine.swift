import FoundationEssentials
import AlertdCommandLine
import AlertdHTTP

extension AlertdClientError {
    /// Prints the error the way every client command does and says how to exit:
    /// 69 unreachable, 65 invalid alert (details like `validate`), 1 otherwise.
    /// With `json`, an error from the daemon goes to standard output in its wire shape.
    package func report(_ context: CommandContext, json: Bool = false) -> ExitCode {
        switch self {
        case .unreachable:
            context.errorOutput("alertctl: \(message)\n")
            return .unavailable
        case .api(let status, let error):
            if json {
                context.output(String(decoding: HTTPErrorBody(code: error.code, message: error.message, details: error.details).encoded(),
                                      as: UTF8.self) + "\n")
            } else if let details = error.details, !details.isEmpty {
                context.errorOutput(details.map { "error: \($0.field): \($0.message) [\($0.code)]\n" }.joined())
            } else {
                context.errorOutput("alertctl: \(message) [\(error.code)]\n")
            }
            return status == 422 && error.code == "invalid_alert" ? .dataError : .failure
        case .alreadyDecided(let conflict):
            if json {
                context.output(CLIJSON.text(conflict) + "\n")
            } else {
                context.errorOutput("alertctl: \(message) [\(code)]\n")
            }
            return .failure
        case .badResponse, .transport:
            context.errorOutput("alertctl: \(description)\n")
            return .failure
        }
    }
}

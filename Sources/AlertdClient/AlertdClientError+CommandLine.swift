import FoundationEssentials
import AlertdCommandLine
import AlertdHTTP
import AlertModel

extension AlertdClientError {
    /// Prints the error the way every client command does and says how to exit:
    /// 69 unreachable or unanswered, 65 invalid alert (details like `validate`), 1 otherwise.
    /// With `json`, an error from the daemon goes to standard output in its wire shape.
    package func report(_ context: CommandContext, json: Bool = false) -> ExitCode {
        switch self {
        case .unreachable:
            context.errorOutput(Self.shown("alertctl: \(message)\n"))
            return .unavailable
        case .unanswered:
            context.errorOutput(Self.shown("alertctl: \(description)\n"))
            return .unavailable
        case .api(let status, let error):
            if json {
                context.output(String(decoding: HTTPErrorBody(code: error.code, message: error.message, details: error.details).encoded(),
                                      as: UTF8.self) + "\n")
            } else if let details = error.details, !details.isEmpty {
                context.errorOutput(Self.shown(details.map { "error: \($0.field): \($0.message) [\($0.code)]\n" }.joined()))
            } else {
                context.errorOutput(Self.shown("alertctl: \(message) [\(error.code)]\n"))
            }
            return status == 422 && error.code == "invalid_alert" ? .dataError : .failure
        case .alreadyDecided(let conflict):
            if json {
                context.output(CLIJSON.text(conflict) + "\n")
            } else {
                context.errorOutput(Self.shown("alertctl: \(message) [\(code)]\n"))
            }
            return .failure
        case .badResponse, .transport:
            context.errorOutput(Self.shown("alertctl: \(description)\n"))
            return .failure
        }
    }

    /// What the server said, as the terminal shows it: an answer that is
    /// not alertd's (a proxy, a hostile server) may hold escape sequences
    /// that retitle the window or clear the screen.
    package static func shown(_ text: String) -> String {
        TextPolicy.replacingRefused(in: text, .multiline)
    }
}

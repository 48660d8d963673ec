import FoundationEssentials
import AlertdCommandLine
import AlertdHTTP
import AlertModel

extension AlertdClientError {
    /// Prints the error the way every client command does and says how to exit:
    /// 69 unreachable or unanswered, 65 for what alertd refused as invalid (400, 422;
    /// an alert's details like `validate`), 77 for a refused token or a missing scope
    /// (401, 403), 75 for a 503 or 429 (try again later; a proxy's 502 and 504 too), 1 otherwise (no such alert,
    /// already decided): a script can tell its input or its token from the daemon's answer.
    /// With `json`, every error goes to standard output in the API's error
    /// shape, one document, so a script reads the same thing whether alertd
    /// refused or could not be reached: the daemon's as it sent it, alertctl's
    /// own with its code (`alertd_unreachable`, `timed_out`, `bad_response`, …).
    package func report(_ context: CommandContext, json: Bool = false) -> ExitCode {
        switch self {
        case .unreachable:
            say(message, context, json: json)
            return .unavailable
        case .unanswered:
            say(description, context, json: json)
            return .unavailable
        case .api(let status, let error):
            if json {
                context.output(String(decoding: HTTPErrorBody(code: error.code, message: error.message, details: error.details).encoded(),
                                      as: UTF8.self) + "\n")
            } else if let details = error.details, !details.isEmpty {
                context.errorOutput(details.map { Self.shown("error: \($0.field): \($0.message) [\($0.code)]") }.joined())
            } else {
                context.errorOutput(Self.shown("alertctl: \(message) [\(error.code)]"))
            }
            switch status {
            // 502 and 504 come from a proxy before alertd, whose error body may be JSON too.
            case 502, 503, 504, 429: return .temporaryFailure
            case 400, 422: return .dataError
            case 401, 403: return .noPermission
            default: return .failure
            }
        case .alreadyDecided(let conflict):
            if json {
                context.output(CLIJSON.text(conflict) + "\n")
            } else {
                context.errorOutput(Self.shown("alertctl: \(message) [\(code)]"))
            }
            return .failure
        case .badResponse(_, let status, _):
            say(description, context, json: json)
            // A proxy before alertd answers in pages of its own; its status still says what to do.
            switch status {
            case 502, 503, 504, 429: return .temporaryFailure
            case 401, 403: return .noPermission
            default: return .failure
            }
        case .transport:
            say(description, context, json: json)
            return .failure
        }
    }

    /// alertctl's own account of the error: a line on standard error, or
    /// with `json` the API's error shape on standard output.
    private func say(_ text: String, _ context: CommandContext, json: Bool) {
        if json {
            context.output(String(decoding: HTTPErrorBody(code: code, message: text).encoded(), as: UTF8.self) + "\n")
        } else {
            context.errorOutput(Self.shown("alertctl: \(text)"))
        }
    }

    /// One line of what the server said, as the terminal shows it, ended:
    /// an answer that is not alertd's (a proxy, a hostile server) may hold
    /// escape sequences that retitle the window or clear the screen, or a
    /// line break that starts a line of its own making on standard error.
    package static func shown(_ line: String) -> String {
        AlertListTable.singleLine(line) + "\n"
    }
}

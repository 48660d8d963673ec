import Foundation
import AlertModel
import AlertdHTTP

/// Reading and rejecting request bodies, the same way for every endpoint.
package enum APIRequestBody {
    /// The body parsed as JSON, or the 415/400 answer to send instead.
    package static func json(_ request: HTTPRequest) -> Result<Any, HTTPResponseBox> {
        let type = request.headers["Content-Type"]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" else {
            return .failure(HTTPResponseBox(.error(
                status: 415, code: "unsupported_media_type",
                message: "Send the body as JSON with `Content-Type: application/json`\(type.map { "; got `\($0)`" } ?? "").")))
        }
        do {
            return .success(try StrictJSON.parse(request.body))
        } catch {
            return .failure(HTTPResponseBox(.error(
                status: 400, code: "malformed_json", message: "The body is not valid JSON: \(error.description)")))
        }
    }

    package static func invalidAlert(_ errors: AlertSpecErrors) -> HTTPResponse {
        .json(status: 422, body: HTTPErrorBody(invalidAlert: errors).encoded())
    }
}

/// `HTTPResponse` is not an `Error`; this carries one through a `Result`.
package struct HTTPResponseBox: Error {
    package let response: HTTPResponse
    package init(_ response: HTTPResponse) { self.response = response }
}

import FoundationEssentials
import AlertModel
import AlertdHTTP

/// Reading and rejecting request bodies, the same way for every endpoint.
package enum APIRequestBody {
    /// The body parsed as JSON; a body without the JSON content type is a
    /// 415, one that does not parse a 400.
    package static func json(_ request: HTTPRequest) throws(APIError) -> Any {
        try read(request) { reader throws(StrictJSON.Failure) in try reader.value() }
    }

    /// The body read by `body`, which reads its one JSON value from the
    /// reader (``StrictJSON/read(_:_:)``), refused as ``json(_:)`` refuses one.
    package static func read<T>(_ request: HTTPRequest, _ body: (inout StrictJSON.Reader) throws(StrictJSON.Failure) -> T) throws(APIError) -> T {
        let type = mediaType(request)
        guard type == "application/json" else {
            throw APIError(
                status: 415, code: "unsupported_media_type",
                message: "Send the body as JSON with `Content-Type: application/json`\(type.map { "; got `\($0)`" } ?? "").")
        }
        do {
            return try StrictJSON.read(request.body, body)
        } catch {
            throw APIError(status: 400, code: "malformed_json", message: "The body is not valid JSON: \(error.description)")
        }
    }

    /// `Content-Type` without its parameters, lowercased: `application/json`.
    package static func mediaType(_ request: HTTPRequest) -> String? {
        request.headers["Content-Type"]?.split(separator: ";").first?.trimmingSpaces().lowercased()
    }
}

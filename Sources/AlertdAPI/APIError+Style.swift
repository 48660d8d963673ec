import FoundationEssentials
import AlertdHTTP

extension APIError {
    /// The header that carries the error's code on routes whose body
    /// cannot (Alertmanager's): `Alertd-Error-Code: silence_not_found`.
    public static let codeHeader = HTTPErrorBody.codeHeader

    /// The answer to send in a route's style; the status and headers are the same in both.
    public func response(in style: APIErrorStyle) -> HTTPResponse {
        switch style {
        case .alertd:
            return response
        case .alertmanager:
            // A JSON string always encodes.
            let encoder = JSONEncoder()
            encoder.outputFormatting = .withoutEscapingSlashes
            let body = (try? encoder.encode(message)) ?? Data("\"\"".utf8)
            var response = HTTPResponse.json(status: status, body: body)
            for field in headers { response.headers.add(field.name, field.value) }
            // The body has room for the message only; the stable code travels beside it.
            response.headers.add(Self.codeHeader, code)
            return response
        }
    }
}

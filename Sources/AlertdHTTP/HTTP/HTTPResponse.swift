import FoundationEssentials

/// What a handler answers. The server adds `Content-Length` (or chunked
/// framing for streams) and `Date` itself.
public struct HTTPResponse: Sendable {
    /// The response body: bytes known up front, or a stream of chunks sent as
    /// they come (Server-Sent Events). A stream ends the response when it finishes.
    public enum Body: Sendable {
        case bytes(Data)
        case stream(AsyncStream<Data>)
    }

    /// The status code; anything outside 100...599 is sent as 500.
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Body

    public init(status: Int = 200, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = .bytes(body)
    }

    public init(status: Int = 200, headers: HTTPHeaders = [:], stream: AsyncStream<Data>) {
        self.status = status
        self.headers = headers
        self.body = .stream(stream)
    }

    /// A JSON body with `Content-Type: application/json`.
    public static func json(status: Int = 200, body: Data) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// A plain-text body in UTF-8.
    public static func text(status: Int = 200, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data(text.utf8))
    }

    /// The project's JSON error shape: `{"error":{"code":…,"message":…}}`.
    public static func error(status: Int, code: String, message: String, details: [HTTPErrorBody.Detail]? = nil) -> HTTPResponse {
        .json(status: status, body: HTTPErrorBody(code: code, message: message, details: details).encoded())
    }
}

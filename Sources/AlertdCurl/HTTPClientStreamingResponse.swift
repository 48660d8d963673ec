import FoundationEssentials
import AlertdHTTP

/// What ``HTTPClient/stream(_:)`` returns once the head is in: the status and
/// headers now, the body as it arrives.
public struct HTTPClientStreamingResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    /// Chunks as the server sends them, cut anywhere. Ends when the server
    /// closes the response; throws ``HTTPClientError`` when the exchange fails
    /// (connection lost, `idleTimeout`).
    public var body: AsyncThrowingStream<Data, any Error>

    public init(status: Int, headers: HTTPHeaders, body: AsyncThrowingStream<Data, any Error>) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

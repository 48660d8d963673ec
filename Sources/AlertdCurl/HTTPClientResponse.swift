import FoundationEssentials
import AlertdHTTP

/// What came back from a server.
public struct HTTPClientResponse: Sendable {
    public var status: Int
    /// The final response's headers (interim 1xx responses are dropped).
    public var headers: HTTPHeaders
    public var body: Data
    /// True when the body was cut at `maxResponseBytes` (with `.truncate`).
    public var bodyTruncated: Bool

    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data(), bodyTruncated: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyTruncated = bodyTruncated
    }
}

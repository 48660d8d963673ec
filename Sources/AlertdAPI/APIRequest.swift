import AlertdHTTP

/// What a route handler is given: the request, the values of the route's
/// `{parameters}`, and what the router established about the caller.
public struct APIRequest: Sendable {
    public var http: HTTPRequest
    /// The path's `{name}` segments by name.
    public var parameters: [String: String]
    /// True when the router checked a bearer token for this request, so the
    /// caller is whoever holds the token rather than just a TCP address.
    public var tokenVerified: Bool

    public init(http: HTTPRequest, parameters: [String: String] = [:], tokenVerified: Bool = false) {
        self.http = http
        self.parameters = parameters
        self.tokenVerified = tokenVerified
    }

    /// A path parameter; empty when the route has none of that name, which
    /// no id or action accepts.
    public subscript(parameter name: String) -> String {
        parameters[name] ?? ""
    }
}

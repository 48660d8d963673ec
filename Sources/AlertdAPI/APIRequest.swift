import AlertdHTTP

/// What a route handler is given: the request, the values of the route's
/// `{parameters}`, and what the router established about the caller.
public struct APIRequest: Sendable {
    public var http: HTTPRequest
    /// The path's `{name}` segments by name.
    public var parameters: [String: String]
    /// Who the router found the caller to be, and what they may do.
    public var caller: APICaller
    /// Whether the caller would still be let in now, as the route's access
    /// rule stands after a reload or a sign-out: a response that goes on
    /// for long (an event stream) asks it again as it goes.
    public var stillAllowed: @Sendable () -> Bool

    public init(http: HTTPRequest, parameters: [String: String] = [:], caller: APICaller? = nil,
                stillAllowed: @escaping @Sendable () -> Bool = { true }) {
        self.http = http
        self.parameters = parameters
        self.caller = caller ?? .peer(of: http)
        self.stillAllowed = stillAllowed
    }

    /// A path parameter; empty when the route has none of that name, which
    /// no id or action accepts.
    public subscript(parameter name: String) -> String {
        parameters[name] ?? ""
    }
}

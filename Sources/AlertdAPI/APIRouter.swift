import AlertdHTTP

/// Matches requests to handlers by method and path pattern
/// (`/v1/alerts/{id}`), answering 404 and 405 itself in the API's error shape.
public struct APIRouter: Sendable {
    public typealias Handler = @Sendable (HTTPRequest, _ parameters: [String: String]) async -> HTTPResponse

    /// One route; the list of them is what `docs/openapi.json` must describe.
    public struct Route: Sendable {
        public let method: String
        public let pattern: String
        package let segments: [Segment]
        package let handler: Handler
    }

    package enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    public private(set) var routes: [Route] = []

    public init() {}

    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
        let segments = pattern.split(separator: "/").map { s -> Segment in
            s.hasPrefix("{") && s.hasSuffix("}") ? .parameter(String(s.dropFirst().dropLast())) : .literal(String(s))
        }
        routes.append(Route(method: method, pattern: pattern, segments: segments, handler: handler))
    }

    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var allowed: [String] = []
        // Literal segments win over parameters, so `/v1/alerts/replay` could never be read as an id.
        let candidates = routes.compactMap { route -> (Route, [String: String], Int)? in
            guard let (params, literals) = Self.match(route.segments, parts) else { return nil }
            return (route, params, literals)
        }.sorted { $0.2 > $1.2 }
        for (route, params, _) in candidates {
            if route.method == request.method || (request.method == "HEAD" && route.method == "GET") {
                return await route.handler(request, params)
            }
            allowed.append(route.method)
        }
        if !allowed.isEmpty {
            var response = HTTPResponse.error(
                status: 405, code: "method_not_allowed",
                message: "\(request.method) is not allowed on \(request.path); use \(allowed.joined(separator: " or ")).")
            response.headers.set("Allow", allowed.joined(separator: ", "))
            return response
        }
        return .error(status: 404, code: "not_found", message: "There is nothing at \(request.path). The API lives under /v1; see docs/API.md.")
    }

    package static func match(_ segments: [Segment], _ parts: [String]) -> ([String: String], Int)? {
        guard segments.count == parts.count else { return nil }
        var params: [String: String] = [:]
        var literals = 0
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let l):
                guard l == part else { return nil }
                literals += 1
            case .parameter(let name):
                params[name] = part
            }
        }
        return (params, literals)
    }
}

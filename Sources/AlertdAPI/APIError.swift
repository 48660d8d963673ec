import AlertModel
import AlertdHTTP
import AlertdStore

/// Why a request was refused, as a handler throws it. `APIRouter` turns it
/// into the one JSON error shape (`HTTPErrorBody`) in one place, so a handler
/// never builds an error response itself.
public struct APIError: Error, Sendable, Equatable {
    /// The HTTP status, e.g. 404 or 503.
    public var status: Int
    /// Stable, snake_case, for programs (`alert_not_found`, `store_io`); listed in docs/API.md.
    public var code: String
    /// A sentence for people that says what to do about it; may change between versions.
    public var message: String
    /// One entry per problem, when there is more than one to tell.
    public var details: [HTTPErrorBody.Detail]?
    /// How many problems `details` leaves out, when it lists only the first ones.
    public var detailsOmitted: Int?
    /// Headers the answer must carry, such as `Retry-After`, `Allow` or `WWW-Authenticate`.
    public var headers: HTTPHeaders
    /// How many submissions this refusal stands for in
    /// `alertd_alerts_rejected_total`: the request's one, or each alert a
    /// partly refused Alertmanager batch refused.
    public var refusedSubmissions = 1
    /// The store's failure this error tells of, whose `message` is the
    /// store's own words (``APIError/init(_:)``).
    public var storeFailure: StoreError.Code?

    public init(status: Int, code: String, message: String, details: [HTTPErrorBody.Detail]? = nil, headers: HTTPHeaders = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers
    }

    /// An error whose body was built elsewhere (the builder's `invalid_alert`).
    public init(status: Int, body: HTTPErrorBody, headers: HTTPHeaders = [:]) {
        self.init(status: status, code: body.error.code, message: body.error.message, details: body.error.details, headers: headers)
        detailsOmitted = body.error.detailsOmitted
    }

    /// The body as it goes on the wire.
    public var body: HTTPErrorBody {
        HTTPErrorBody(code: code, message: message, details: details, detailsOmitted: detailsOmitted)
    }

    /// The answer to send: the JSON error body with this error's headers.
    public var response: HTTPResponse {
        var response = HTTPResponse.json(status: status, body: body.encoded())
        for field in headers { response.headers.add(field.name, field.value) }
        return response
    }
}

extension APIError {
    /// 499 (nginx's "client closed request"): the client went while its
    /// request was handled, and the handler stopped. What the request's
    /// metrics and logs record; only a client that shut its sending side
    /// and still reads gets it.
    public static let clientGone = APIError(
        status: 499, code: "client_gone",
        message: "The client closed its connection before the answer was ready; the request was stopped.")

    /// Throws ``clientGone`` once the server has cancelled the handler's
    /// task (``HTTPServer`` does when the request's client has gone).
    public static func checkClientStayed() throws(APIError) {
        if Task.isCancelled { throw .clientGone }
    }

    /// 401: a TCP caller without the configured bearer token.
    public static let unauthorized = APIError(
        status: 401, code: "unauthorized",
        message: "This API needs a bearer token over TCP: send `Authorization: Bearer <token>` (alertctl: --token-file).",
        headers: ["WWW-Authenticate": #"Bearer realm="alertd""#])

    /// 401: an `Authorization` header that holds no configured token.
    /// Same code as ``unauthorized``: a client handles both alike, a person
    /// reading it needs to know the token was sent and refused.
    public static let tokenRefused = APIError(
        status: 401, code: "unauthorized",
        message: "The bearer token sent is not one alertd has (api.token_file or api.tokens_file), or the header is not `Authorization: Bearer <token>`; check the token file alertctl reads (--token-file).",
        headers: ["WWW-Authenticate": #"Bearer realm="alertd", error="invalid_token""#])

    /// 403: the caller's token lacks the scope the route needs.
    public static func scopeMissing(_ scope: APIScope, caller: APICaller) -> APIError {
        let held = caller.scopes.names
        return APIError(
            status: 403, code: "scope_missing",
            message: "This needs a token with the `\(scope.rawValue)` scope; `\(caller.name)` has "
                + (held.isEmpty ? "none" : held.map { "`\($0)`" }.joined(separator: ", "))
                + ". Ask whoever runs alertd to add it in api.tokens_file.")
    }

    /// 404 for a path or action that does not exist.
    public static func notFound(_ message: String) -> APIError {
        APIError(status: 404, code: "not_found", message: message)
    }

    /// 405, with `Allow` listing the methods the path does serve.
    public static func methodNotAllowed(_ method: String, path: String, allowed: [String]) -> APIError {
        APIError(status: 405, code: "method_not_allowed",
                 message: "\(method) is not allowed on \(path); use \(allowed.joined(separator: " or ")).",
                 headers: ["Allow": allowed.joined(separator: ", ")])
    }

    /// 404 for an alert id that names nothing (or is not an id at all).
    public static func alertNotFound(id raw: String) -> APIError {
        APIError(status: 404, code: "alert_not_found", message: "There is no alert with id `\(raw)`.")
    }

    /// 404 for a dedup key no open alert holds.
    public static func alertNotFound(dedupKey key: String) -> APIError {
        APIError(status: 404, code: "alert_not_found", message: "No open alert has the dedup key `\(key)`.")
    }

    /// 400: the body is JSON, but not the JSON this endpoint takes.
    public static func invalidBody(_ message: String) -> APIError {
        APIError(status: 400, code: "invalid_body", message: message)
    }

    /// 400: a query parameter is wrong; `details` names each one at fault.
    public static func invalidQuery(_ message: String, details: [HTTPErrorBody.Detail]? = nil) -> APIError {
        APIError(status: 400, code: "invalid_query", message: message, details: details)
    }

    /// 422: a decision's comment or actor breaks the `TextPolicy`; `details` names each field.
    public static func invalidDecision(_ problems: [AlertSpecError]) -> APIError {
        APIError(status: 422, code: "invalid_decision",
                 message: "The decision was not taken: \(problems.map(\.message).joined(separator: " "))",
                 details: problems.map { HTTPErrorBody.Detail(field: $0.field, code: $0.code.rawValue, message: $0.message) })
    }

    /// 422 with every problem the alert builder found.
    public static func invalidAlert(_ errors: AlertSpecErrors) -> APIError {
        APIError(status: 422, body: HTTPErrorBody(invalidAlert: errors))
    }
}

import FoundationEssentials
import AlertModel
import AlertdCurl
import AlertdHTTP
import AlertdStore

/// A typed client of alertd's HTTP API, over its Unix socket or TCP.
///
/// ```swift
/// let client = AlertdClient(endpoint: .unixSocket("/run/alertd/alertd.sock"))
/// let result = try await client.submit(spec)
/// let alert = try await client.show(result.id)
/// ```
public struct AlertdClient: Sendable {
    /// The most of one answer that is read; a page of 1000 alerts fits.
    package static let maxResponseBytes = 16 << 20

    public let endpoint: AlertdEndpoint
    public var connectTimeout: Duration
    /// Limit for each whole exchange, connecting included.
    public var timeout: Duration
    package let http: HTTPClient

    public init(
        endpoint: AlertdEndpoint, httpClient: HTTPClient = .shared,
        connectTimeout: Duration = .seconds(5), timeout: Duration = .seconds(30)
    ) {
        self.endpoint = endpoint
        self.http = httpClient
        self.connectTimeout = connectTimeout
        self.timeout = timeout
    }

    /// `POST /v1/alerts` with one alert; returns once the daemon has stored it.
    /// A 422 comes back as ``AlertdClientError/api(status:error:)`` with
    /// `invalid_alert` and one detail per problem.
    public func submit(_ spec: AlertSpec) async throws(AlertdClientError) -> SubmissionResult {
        let body: Data
        do {
            body = try JSONEncoder().encode(spec)
        } catch {
            // An AlertSpec holds only strings, numbers and dictionaries of strings.
            preconditionFailure("an AlertSpec failed to encode: \(error)")
        }
        return try await exchange("POST", "/v1/alerts", body: body, expecting: 202)
    }

    /// `GET /v1/alerts`: one page, newest first. `query.before` is the cursor.
    public func list(_ query: AlertQuery = AlertQuery()) async throws(AlertdClientError) -> APIRepresentation.AlertList {
        try await page(query).list
    }

    /// One page, and how many bytes its answer took.
    private func page(_ query: AlertQuery) async throws(AlertdClientError) -> (list: APIRepresentation.AlertList, bytes: Int) {
        var items: [(String, String)] = []
        if let state = query.state { items.append(("state", state.rawValue)) }
        if let state = query.deliveryState { items.append(("delivery_state", state.rawValue)) }
        for (name, value) in query.labels { items.append(("label", "\(name)=\(value)")) }
        items.append(("limit", String(query.limit)))
        if let cursor = query.before { items.append(("cursor", cursor.rawValue)) }
        let queryString = items.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
        let response = try await call("GET", "/v1/alerts?" + queryString, expecting: 200)
        return (try decode(response), response.body.count)
    }

    /// The most alerts ``listAll(_:)`` gathers, and the most bytes of
    /// answers: past them a listing without end (a server that is not
    /// alertd) would hold the client's memory.
    public static let maxListed = (alerts: 1_000_000, bytes: 512 << 20)

    /// Every alert matching `query`, following `next_cursor` page by page
    /// (`query.limit` is the page size), at most `limit`'s worth.
    public func listAll(_ query: AlertQuery = AlertQuery(),
                        within limit: (alerts: Int, bytes: Int) = maxListed) async throws(AlertdClientError) -> [APIRepresentation.AlertDetail] {
        var query = query
        var alerts: [APIRepresentation.AlertDetail] = []
        // alertd's cursors only move on, to older alerts (smaller ids); one
        // that does not (two taking turns, from a server that is not alertd)
        // would read the same pages for good, each kept again.
        var bytes = 0
        while true {
            let (page, size) = try await page(query)
            alerts += page.alerts
            bytes += size
            guard let next = page.nextCursor, !page.alerts.isEmpty, query.before.map({ next < $0 }) ?? true else { return alerts }
            guard alerts.count < limit.alerts, bytes < limit.bytes else {
                throw .badResponse(endpoint: endpoint, status: 200,
                                   reason: "over \(alerts.count) alerts (\(bytes >> 20) MiB) listed; narrow the list with --state or --label")
            }
            query.before = next
        }
    }

    /// `GET /v1/alerts/{id}`: the alert with its deliveries. An unknown id is
    /// ``AlertdClientError/api(status:error:)`` with 404 `alert_not_found`.
    public func show(_ id: AlertID) async throws(AlertdClientError) -> APIRepresentation.AlertDetail {
        try await exchange("GET", "/v1/alerts/\(id.rawValue)", expecting: 200)
    }

    /// Makes dead deliveries pending again: those of one alert, or every
    /// dead delivery when `id` is nil. Returns how many.
    public func replay(_ id: AlertID? = nil) async throws(AlertdClientError) -> Int {
        let path = id.map { "/v1/alerts/\($0.rawValue)/replay" } ?? "/v1/deliveries/replay"
        let result: APIRepresentation.ReplayResult = try await exchange("POST", path, expecting: 200)
        return result.replayed
    }

    /// Sends one request and decodes the expected answer, or the error shape.
    package func exchange<Answer: Decodable>(
        _ method: String, _ path: String, body: Data? = nil, expecting status: Int
    ) async throws(AlertdClientError) -> Answer {
        try decode(try await call(method, path, body: body, expecting: status))
    }

    /// The answer's body as `Answer`, or why it is not one.
    private func decode<Answer: Decodable>(_ response: HTTPClientResponse) throws(AlertdClientError) -> Answer {
        do {
            return try APIRepresentation.decoder.decode(Answer.self, from: response.body)
        } catch {
            throw .badResponse(endpoint: endpoint, status: response.status, reason: "\(Self.describe(error)) in \(Self.excerpt(response.body))")
        }
    }

    /// Sends one request and returns the answer if it has the `expected`
    /// status; any other is thrown as ``failure(status:body:expected:headers:)``.
    package func call(_ method: String, _ path: String, body: Data? = nil, expecting status: Int) async throws(AlertdClientError) -> HTTPClientResponse {
        let request = endpoint.request(method, path, body: body, connectTimeout: connectTimeout, timeout: timeout)
        let response: HTTPClientResponse
        do {
            if let local = SocketHTTPClient(request) {
                response = try await local.send()
            } else {
                response = try await http.send(request)
            }
        } catch {
            throw AlertdClientError(error, endpoint: endpoint)
        }
        guard response.status == status else {
            throw failure(status: response.status, body: response.body, expected: status, headers: response.headers)
        }
        return response
    }

    /// The error for an answer other than the `expected` one: the API's error
    /// shape (a 409 to a decision with the alert as it stands; a JSON string
    /// on Alertmanager's routes), else a bad response.
    package func failure(status: Int, body: Data, expected: Int, headers: HTTPHeaders = [:]) -> AlertdClientError {
        if status == 409, let conflict = try? APIRepresentation.decoder.decode(APIRepresentation.DecisionConflict.self, from: body) {
            return .alreadyDecided(conflict)
        }
        if let error = try? HTTPErrorBody.decode(body) {
            return .api(status: status, error: error)
        }
        if let error = HTTPErrorBody.decodeAlertmanager(body, headers: headers) {
            return .api(status: status, error: error)
        }
        return .badResponse(endpoint: endpoint, status: status, reason: "expected \(expected), got \(status): \(Self.excerpt(body))")
    }

    /// A query component with all but RFC 3986's unreserved characters escaped.
    package static func escape(_ component: String) -> String {
        HTTPRequestTarget.percentEncode(component)
    }

    /// The start of a body, as text, for messages.
    private static func excerpt(_ body: Data) -> String {
        if body.isEmpty { return "an empty body" }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return "`\(text)\(body.count > 200 ? "…" : "")`"
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "the field `\(key.stringValue)` is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
             DecodingError.dataCorrupted(let context):
            context.codingPath.isEmpty
                ? context.debugDescription
                : "`\(context.codingPath.map(\.stringValue).joined(separator: "."))`: \(context.debugDescription)"
        default: "\(error)"
        }
    }
}

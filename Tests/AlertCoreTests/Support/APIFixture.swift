import Foundation
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdStore
@testable import AlertdDelivery
@testable import AlertdAPI

/// The daemon's router over a chosen store, and requests to it, without a
/// daemon or a socket: for tests of what the API answers.
enum APIFixture {
    static let token = "s3cret-token-0123456789"
    static let signer = ActionLinkSigner(key: Array(repeating: 7, count: 32), publicURL: "https://alertd.example")
    /// An id no store holds.
    static let unknownID = "01972b3c-8a00-7123-8456-0123456789ab"

    static func router(
        store: any AlertStore = InMemoryAlertStore(), token: String? = nil, links: ActionLinkSigner? = nil,
        metrics: DaemonMetrics = DaemonMetrics(), authenticator: APIAuthenticator? = nil, startedAt: Date = .distantPast
    ) -> APIRouter {
        let intake = AlertIntake(
            store: store,
            settings: .init(router: AlertRouter(routes: [], defaultRoute: RouteDefinition(presenters: [])), limits: .default),
            onAccepted: { _ in })
        return APIRouter.alertd(intake: intake, store: store, onReplay: {}, dispatcherRunning: { true }, links: links,
                                metrics: metrics, authenticator: authenticator ?? APIAuthenticator(token: token), startedAt: startedAt)
    }

    /// How a request reaches the API.
    enum Caller {
        /// A local process on the Unix socket.
        case socket
        /// A TCP client, with this `Authorization` header if any.
        case tcp(authorization: String? = nil)

        static let tcpWithToken = Caller.tcp(authorization: "Bearer \(APIFixture.token)")
    }

    static func request(_ method: String, _ target: String, json: String? = nil, as caller: Caller = .socket) -> HTTPRequest {
        var headers: HTTPHeaders = [:]
        if json != nil { headers.add("Content-Type", "application/json") }
        switch caller {
        case .socket:
            return HTTPRequest(method: method, target: target, headers: headers, body: Data((json ?? "").utf8),
                               peer: .unix(uid: 1000, gid: 1000, pid: 42), listener: .unixSocket)
        case .tcp(let authorization):
            if let authorization { headers.add("Authorization", authorization) }
            return HTTPRequest(method: method, target: target, headers: headers, body: Data((json ?? "").utf8),
                               peer: .tcp(address: "127.0.0.1"), listener: .tcp)
        }
    }

    /// A signed link's path and query for `action` on `id`, valid for an hour.
    static func actionLink(_ id: String, _ action: ActionKind = .confirm) -> String {
        let expires = Int64(Date().timeIntervalSince1970) + 3600
        return "/v1/alerts/\(id)/actions/\(action.rawValue)?expires=\(expires)&token=\(signer.token(AlertID(id)!, action, expires))"
    }

    static func body(_ response: HTTPResponse) -> Data {
        if case .bytes(let data) = response.body { return data }
        return Data()
    }

    /// The error code of a JSON error answer.
    static func errorCode(_ response: HTTPResponse) -> String? {
        try? HTTPErrorBody.decode(body(response)).code
    }

    static func json(_ response: HTTPResponse) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: body(response)) as? [String: Any]
    }
}

import Foundation
import AlertModel
import AlertdDelivery
import AlertdHTTP
import AlertdLogging
import AlertdStore

/// Deciding alerts: `POST /v1/alerts/{id}/confirm|cancel|resolve`,
/// `POST /v1/alerts/resolve` (by dedup key), and signed action links
/// `/v1/alerts/{id}/actions/{confirm|cancel}`.
public struct DecisionsAPI: Sendable {
    package let store: any AlertStore
    package let links: ActionLinkSigner?
    package let metrics: DaemonMetrics
    /// True when TCP requests only get here with a valid bearer token.
    package let tokenChecked: Bool
    /// Called after a decision queued a handler call.
    package let onDecided: @Sendable () -> Void

    public init(store: any AlertStore, links: ActionLinkSigner?, metrics: DaemonMetrics = DaemonMetrics(),
                tokenChecked: Bool = false, onDecided: @escaping @Sendable () -> Void) {
        self.store = store
        self.links = links
        self.metrics = metrics
        self.tokenChecked = tokenChecked
        self.onDecided = onDecided
    }

    public func register(in router: inout APIRouter) {
        router.add("POST", "/v1/alerts/{id}/confirm") { req, p in await decide(req, id: p["id"] ?? "", .confirmed) }
        router.add("POST", "/v1/alerts/{id}/cancel") { req, p in await decide(req, id: p["id"] ?? "", .cancelled) }
        router.add("POST", "/v1/alerts/{id}/resolve") { req, p in await decide(req, id: p["id"] ?? "", .resolved) }
        router.add("POST", "/v1/alerts/resolve") { req, _ in await resolveByDedupKey(req) }
        router.add("GET", "/v1/alerts/{id}/actions/{action}") { req, p in await actionPage(req, id: p["id"] ?? "", action: p["action"] ?? "") }
        router.add("POST", "/v1/alerts/{id}/actions/{action}") { req, p in await actionLink(req, id: p["id"] ?? "", action: p["action"] ?? "") }
    }

    /// `/v1/alerts/{id}/actions/{action}`: the signed token in the query is
    /// the credential, so these paths skip the bearer-token check.
    public static func isActionLink(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 6 && parts[0].isEmpty && parts[1] == "v1" && parts[2] == "alerts" && parts[4] == "actions"
    }

    /// Who is deciding, as the transport vouches for it.
    package func actor(of request: HTTPRequest) -> String {
        switch request.peer {
        case .unix(let uid, _, _): "uid:\(uid)"
        case .tcp(let address): tokenChecked ? "token" : "tcp:\(address)"
        }
    }

    package func decide(_ request: HTTPRequest, id raw: String, _ outcome: AlertState, actor: String? = nil) async -> HTTPResponse {
        guard let id = AlertID(raw) else { return AlertsAPI.noSuchAlert(raw) }
        var comment: String?
        if !request.body.isEmpty {
            switch APIRequestBody.json(request) {
            case .failure(let box): return box.response
            case .success(let value):
                guard let obj = value as? [String: Any], Set(obj.keys).isSubset(of: ["comment"]) else {
                    return .error(status: 400, code: "invalid_body", message: "The body may only hold {\"comment\": \"…\"}.")
                }
                if let c = obj["comment"], !(c is NSNull) {
                    guard let s = c as? String, s.count <= 1_000 else {
                        return .error(status: 400, code: "invalid_body", message: "`comment` must be a string of at most 1000 characters.")
                    }
                    comment = s
                }
            }
        }
        let decision = AlertDecision(outcome: outcome, actor: actor ?? self.actor(of: request), at: Date(), comment: comment)
        do {
            switch try await store.decide(id, decision) {
            case .notFound:
                return AlertsAPI.noSuchAlert(raw)
            case .decided(let alert, let handler):
                metrics.decided(alert.state)
                if handler != nil { onDecided() }
                return APIRepresentation.json(APIRepresentation.DecisionResult(
                    id: alert.id, state: alert.state, decision: alert.decision, handlerDeliveryID: handler?.rawValue))
            case .alreadyDecided(let alert):
                let by = alert.decision.map { " by \($0.actor) at \(Logger.timestamp($0.at))" } ?? ""
                return APIRepresentation.json(APIRepresentation.DecisionConflict(
                    error: .init(code: "already_decided", message: "Alert \(alert.id) is already \(alert.state.rawValue)\(by); the first decision stands.", details: nil),
                    alert: APIRepresentation.DecisionResult(id: alert.id, state: alert.state, decision: alert.decision)), status: 409)
            }
        } catch {
            return AlertsAPI.storeFailure(error)
        }
    }

    package func resolveByDedupKey(_ request: HTTPRequest) async -> HTTPResponse {
        let key: String
        var comment: String?
        switch APIRequestBody.json(request) {
        case .failure(let box): return box.response
        case .success(let value):
            guard let obj = value as? [String: Any], let k = obj["dedup_key"] as? String, !k.isEmpty,
                  Set(obj.keys).isSubset(of: ["dedup_key", "comment"]) else {
                return .error(status: 400, code: "invalid_body", message: "Send {\"dedup_key\": \"…\"} (and optionally \"comment\") to resolve the open alert with that key.")
            }
            key = k
            comment = obj["comment"] as? String
        }
        do {
            guard let id = try await store.openAlert(dedupKey: key) else {
                return .error(status: 404, code: "alert_not_found", message: "No open alert has the dedup key `\(key)`.")
            }
            var forwarded = request
            forwarded.body = (try? JSONSerialization.data(withJSONObject: comment.map { ["comment": $0] } ?? [:])) ?? Data()
            return await decide(forwarded, id: id.rawValue, .resolved)
        } catch {
            return AlertsAPI.storeFailure(error)
        }
    }

    /// The alert and action a link names, if its signature and expiry hold;
    /// otherwise the answer to send.
    package func verifiedLink(_ request: HTTPRequest, id raw: String, action rawAction: String)
        -> Result<(id: AlertID, action: ActionKind), HTTPResponseBox> {
        guard let action = ActionKind(rawValue: rawAction) else {
            return .failure(HTTPResponseBox(.error(status: 404, code: "not_found", message: "Actions are `confirm` and `cancel`.")))
        }
        guard let links else {
            return .failure(HTTPResponseBox(.error(status: 404, code: "action_links_disabled",
                                                   message: "Action links are off: set api.public_url in alertd's config.")))
        }
        guard let id = AlertID(raw) else { return .failure(HTTPResponseBox(Self.forbidden("The link names no valid alert."))) }
        if let refusal = links.refusal(id: id, action: action, expires: request.queryValue("expires"), token: request.queryValue("token")) {
            return .failure(HTTPResponseBox(Self.forbidden(refusal)))
        }
        return .success((id, action))
    }

    /// A signed link's check; the decision itself goes through `decide`.
    package func actionLink(_ request: HTTPRequest, id raw: String, action rawAction: String) async -> HTTPResponse {
        let action: ActionKind
        switch verifiedLink(request, id: raw, action: rawAction) {
        case .failure(let box): return box.response
        case .success(let link): action = link.action
        }
        var plain = request
        plain.body = Data()
        let answer = await decide(plain, id: raw, action == .confirm ? .confirmed : .cancelled, actor: "action-link")
        // The page's own button posts a form: answer a browser with a page, not JSON.
        guard request.headers["Accept"]?.contains("text/html") == true else { return answer }
        let text = switch answer.status {
        case 200: "Done: the alert is now \(action == .confirm ? "confirmed" : "cancelled")."
        case 409: "Someone decided first; nothing was changed."
        default: "That did not work (HTTP \(answer.status))."
        }
        return HTTPResponse(status: answer.status, headers: ["Content-Type": "text/html; charset=utf-8"],
                            body: Data("<!doctype html><html><head><meta charset=\"utf-8\"><title>alertd</title></head><body><p>\(Self.escape(text))</p></body></html>".utf8))
    }

    /// GET on a link shows what it will do and a button that POSTs: link
    /// previews in chat apps fetch URLs, and a fetch must not decide.
    package func actionPage(_ request: HTTPRequest, id raw: String, action rawAction: String) async -> HTTPResponse {
        let id: AlertID, action: ActionKind
        switch verifiedLink(request, id: raw, action: rawAction) {
        case .failure(let box): return box.response
        case .success(let link): (id, action) = (link.id, link.action)
        }
        guard let record = try? await store.record(id: id) else { return AlertsAPI.noSuchAlert(raw) }
        let alert = record.alert
        let label = alert.spec.action(action)?.label ?? action.rawValue
        let html = """
            <!doctype html><html><head><meta charset="utf-8"><title>\(Self.escape(alert.spec.title))</title></head><body>
            <h1>\(Self.escape(alert.spec.title))</h1><p>\(Self.escape(alert.spec.message ?? ""))</p>
            <p>State: \(alert.state.rawValue)</p>
            \(alert.state == .open ? "<form method=\"post\"><button type=\"submit\">\(Self.escape(label))</button></form>" : "<p>Already decided.</p>")
            </body></html>
            """
        return HTTPResponse(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Data(html.utf8))
    }

    package static func forbidden(_ message: String) -> HTTPResponse {
        .error(status: 403, code: "invalid_action_link", message: message)
    }

    package static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

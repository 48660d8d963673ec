import FoundationEssentials
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
    /// Called after a decision queued a handler call.
    package let onDecided: @Sendable () -> Void

    public init(store: any AlertStore, links: ActionLinkSigner?, metrics: DaemonMetrics = DaemonMetrics(),
                onDecided: @escaping @Sendable () -> Void) {
        self.store = store
        self.links = links
        self.metrics = metrics
        self.onDecided = onDecided
    }

    public func register(in router: inout APIRouter) {
        router.add("POST", "/v1/alerts/{id}/confirm", access: .token(.decide)) { req throws(APIError) in try await decide(req, id: req[parameter: "id"], .confirmed) }
        router.add("POST", "/v1/alerts/{id}/cancel", access: .token(.decide)) { req throws(APIError) in try await decide(req, id: req[parameter: "id"], .cancelled) }
        router.add("POST", "/v1/alerts/{id}/resolve", access: .token(.decide)) { req throws(APIError) in try await decide(req, id: req[parameter: "id"], .resolved) }
        router.add("POST", "/v1/alerts/resolve", access: .token(.decide)) { req throws(APIError) in try await resolveByDedupKey(req) }
        // The signed token in the query is the credential: a link opened from
        // a chat app or a mail cannot carry the API's bearer token.
        router.add("GET", "/v1/alerts/{id}/actions/{action}", access: .actionLink) { req throws(APIError) in
            try await actionPage(req.http, id: req[parameter: "id"], action: req[parameter: "action"])
        }
        router.add("POST", "/v1/alerts/{id}/actions/{action}", access: .actionLink) { req throws(APIError) in
            try await actionLink(req, id: req[parameter: "id"], action: req[parameter: "action"])
        }
    }

    /// Decides `raw` for the caller, or for `actor` (and the `recipient` a
    /// signed link names) when a link, not a token, is the credential.
    package func decide(_ request: APIRequest, id raw: String, _ outcome: AlertState, actor: String? = nil,
                        recipient: String? = nil) async throws(APIError) -> HTTPResponse {
        guard let id = AlertID(raw) else { throw .alertNotFound(id: raw) }
        var comment: String?
        if !request.http.body.isEmpty {
            guard let obj = try APIRequestBody.json(request.http) as? [String: Any], Set(obj.keys).isSubset(of: ["comment"]) else {
                throw .invalidBody("The body may only hold {\"comment\": \"…\"}.")
            }
            comment = try Self.comment(in: obj)
        }
        let actor = actor ?? request.caller.name
        let problems = AlertDecision.textProblems(comment: comment, actor: actor, recipient: recipient)
        guard problems.isEmpty else { throw .invalidDecision(problems) }
        let decision = AlertDecision(outcome: outcome, actor: actor, at: Date(), comment: comment, recipient: recipient)
        switch try await APIError.storeCall(await store.decide(id, decision)) {
        case .notFound:
            throw .alertNotFound(id: raw)
        case .decided(let alert, let handler):
            metrics.decided(alert.state)
            if handler != nil { onDecided() }
            return APIRepresentation.json(APIRepresentation.DecisionResult(
                id: alert.id, state: alert.state, decision: alert.decision, handlerDeliveryID: handler?.rawValue))
        case .alreadyDecided(let alert):
            // Not thrown: the answer adds the alert as it stands to the error body.
            let by = alert.decision.map { " \($0.byline) at \(Logger.timestamp($0.at))" } ?? ""
            return APIRepresentation.json(APIRepresentation.DecisionConflict(
                error: .init(code: "already_decided", message: "Alert \(alert.id) is already \(alert.state.rawValue)\(by); the first decision stands.", details: nil),
                alert: APIRepresentation.DecisionResult(id: alert.id, state: alert.state, decision: alert.decision)), status: 409)
        }
    }

    /// A decision body's `comment`: absent or null is none; anything but a
    /// string of at most ``AlertDecision/maxCommentLength`` is refused.
    private static func comment(in body: [String: Any]) throws(APIError) -> String? {
        guard let value = body["comment"], !StrictJSON.isNull(value) else { return nil }
        guard let text = value as? String, text.unicodeScalars.count <= AlertDecision.maxCommentLength else {
            throw .invalidBody("`comment` must be a string of at most \(AlertDecision.maxCommentLength) characters.")
        }
        return text
    }

    package func resolveByDedupKey(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        guard let obj = try APIRequestBody.json(request.http) as? [String: Any], let key = obj["dedup_key"] as? String, !key.isEmpty,
              Set(obj.keys).isSubset(of: ["dedup_key", "comment"]) else {
            throw .invalidBody("Send {\"dedup_key\": \"…\"} (and optionally \"comment\") to resolve the open alert with that key.")
        }
        // Read before the store is asked: a comment that is no string was dropped, and the alert resolved.
        let comment = try Self.comment(in: obj)
        var forwarded = request
        var body = JSONObject()
        body.string("comment", comment)
        forwarded.http.body = body.jsonData
        // Decided by another caller between the look-up and the decision,
        // the key's alert is no longer open: as after it, the key is looked
        // up again (a new alert may have it) and then has none, a 404. The
        // losers of concurrent resolves were answered 409, and `alertctl
        // resolve --dedup-key` exited 1 though what it asked for held.
        for _ in 0..<3 {
            guard let id = try await APIError.storeCall(await store.openAlert(dedupKey: key)) else { break }
            let answer = try await decide(forwarded, id: id.rawValue, .resolved)
            guard answer.status == 409 else { return answer }
        }
        throw .alertNotFound(dedupKey: key)
    }

    /// The alert, action and recipient (nil for a link that names none) a
    /// link names, if its signature and expiry hold.
    package func verifiedLink(_ request: HTTPRequest, id raw: String, action rawAction: String) throws(APIError)
        -> (id: AlertID, action: ActionKind, recipient: String?) {
        guard let action = ActionKind(rawValue: rawAction) else {
            throw .notFound("Actions are `confirm` and `cancel`.")
        }
        guard let links else {
            throw APIError(status: 404, code: "action_links_disabled", message: "Action links are off: set api.public_url in alertd's config.")
        }
        guard let id = AlertID(raw) else { throw Self.invalidLink("The link names no valid alert.") }
        let recipient = request.queryValue("to")
        if let refusal = links.refusal(id: id, action: action, expires: request.queryValue("expires"), token: request.queryValue("token"),
                                       recipient: recipient) {
            throw Self.invalidLink(refusal)
        }
        return (id, action, recipient)
    }

    /// A signed link's check; the decision itself goes through `decide`.
    package func actionLink(_ request: APIRequest, id raw: String, action rawAction: String) async throws(APIError) -> HTTPResponse {
        let (_, action, recipient) = try verifiedLink(request.http, id: raw, action: rawAction)
        var plain = request
        plain.http.body = Data()
        // The page's own button posts a form: answer a browser with a page, not JSON.
        let wantsPage = request.http.headers["Accept"]?.contains("text/html") == true
        let status: Int
        do throws(APIError) {
            let answer = try await decide(plain, id: raw, action == .confirm ? .confirmed : .cancelled, actor: Self.linkActor, recipient: recipient)
            guard wantsPage else { return answer }
            status = answer.status
        } catch {
            guard wantsPage else { throw error }
            status = error.status
        }
        let text = switch status {
        case 200: "Done: the alert is now \(action == .confirm ? "confirmed" : "cancelled")."
        case 409: "Someone decided first; nothing was changed."
        default: "That did not work (HTTP \(status))."
        }
        return Self.page(status: status, Self.head(title: "alertd") + "<body><p>\(MarkupEscaping.html(text))</p></body></html>")
    }

    /// A page's start. These pages are opened from chat and mail on
    /// phones: without the viewport they were drawn at desktop width, tiny.
    private static func head(title: String) -> String {
        "<!doctype html><html><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            + "<title>\(MarkupEscaping.html(title))</title></head>"
    }

    /// GET on a link shows what it will do and a button that POSTs: link
    /// previews in chat apps fetch URLs, and a fetch must not decide.
    package func actionPage(_ request: HTTPRequest, id raw: String, action rawAction: String) async throws(APIError) -> HTTPResponse {
        let (id, action, recipient) = try verifiedLink(request, id: raw, action: rawAction)
        guard let record = try await APIError.storeCall(await store.record(id: id)) else { throw .alertNotFound(id: raw) }
        let alert = record.alert
        let label = alert.spec.action(action)?.label ?? action.rawValue
        let html = """
            \(Self.head(title: alert.spec.title))<body>
            <h1>\(MarkupEscaping.html(alert.spec.title))</h1><p>\(MarkupEscaping.html(alert.spec.message ?? ""))</p>
            <p>State: \(alert.state.rawValue)</p>\(recipient.map { "\n<p>This link was sent to \(MarkupEscaping.html($0)); deciding with it records that address.</p>" } ?? "")
            \(alert.state == .open ? "<form method=\"post\"><button type=\"submit\">\(MarkupEscaping.html(label))</button></form>" : "<p>Already decided.</p>")
            </body></html>
            """
        return Self.page(status: 200, html)
    }

    /// An HTML page of the action link, with headers that keep it to what it
    /// is: no script, style or other resource loads (it has none; injected
    /// markup gets nothing either), its form posts only back to alertd, no
    /// other site may frame it (clickjacking the button), no cache keeps
    /// it, and no `Referer` carries the signed link elsewhere.
    package static func page(status: Int, _ html: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [
            "Content-Type": "text/html; charset=utf-8",
            "Content-Security-Policy": "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            "Cache-Control": "no-store",
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
        ], body: Data(html.utf8))
    }

    /// The actor a decision by action link records.
    package static let linkActor = "link"

    package static func invalidLink(_ message: String) -> APIError {
        APIError(status: 403, code: "invalid_action_link", message: message)
    }
}

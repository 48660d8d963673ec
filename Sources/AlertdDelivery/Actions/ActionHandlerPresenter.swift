import FoundationEssentials
import AlertModel
import AlertdCurl
import AlertdHTTP
import AlertdStore

/// Calls an alert's confirm or cancel handler once a decision is stored.
/// It runs as a presenter named `handler:confirm` / `handler:cancel`, so
/// handler calls get the dispatcher's retries, backoff and dead letters,
/// and the store's at-least-once guarantee, for free.
public struct ActionHandlerPresenter: AlertPresenter {
    package let action: ActionKind
    package let policy: HandlerURLPolicy
    package let signer: StandardWebhookSigner?
    package let client: HTTPClient
    package let connectTimeout: Duration
    package let timeout: Duration
    /// Hosts that stopped answering, shared by both actions' presenters.
    package let breaker: HandlerHostBreaker

    public init(
        action: ActionKind, policy: HandlerURLPolicy, signer: StandardWebhookSigner?, client: HTTPClient,
        connectTimeout: Duration = .seconds(5), timeout: Duration = .seconds(10), breaker: HandlerHostBreaker = HandlerHostBreaker()
    ) {
        self.action = action
        self.policy = policy
        self.signer = signer
        self.client = client
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.breaker = breaker
    }

    public var kind: DeliveryKind { .handler(action) }
    public var name: String { kind.name }

    public func present(_ alert: Alert, delivery: DeliveryContext) async -> PresentationOutcome {
        guard let decision = alert.decision, let handler = alert.spec.action(action) else {
            return .permanentFailure(reason: "alert \(alert.id) has no \(action.rawValue) handler or no decision to report")
        }
        let target: HandlerURL
        switch policy.check(handler.url) {
        case .success(let checked): target = checked
        case .failure(let refusal): return .permanentFailure(reason: "refused: \(refusal.message)")
        }
        let host = URLRedaction.origin(target.string)
        if let wait = breaker.admit(host, url: target.string, probeTakesAtMost: timeout) {
            return .notSent(reason: "\(host) did not answer the last \(HandlerHostBreaker.tripAfter) calls to it; it is called again in \(wait.alertdDescription)",
                            retryAfter: wait)
        }
        let body: Data
        do {
            body = try WebhookPayload(decision: decision, action: action, alert: alert, delivery: delivery).encoded()
        } catch {
            return .permanentFailure(reason: "cannot encode the decision as JSON: \(error)")
        }
        // The checked URL, not the submitted text: the two may differ in dot segments or a numeric host.
        var url = target.string
        var payload: Data? = body
        var signed = body
        if handler.method == .get {
            // A GET carries no body: the essentials go in the query instead,
            // and the signature covers the query as sent, so a handler can
            // tell a decision alertd reports from one anybody could send.
            let query: String
            (url, query) = target.replacingQuery([("alert_id", alert.id.rawValue), ("decision", decision.outcome.rawValue),
                                                  ("by", decision.actor)] + (decision.recipient.map { [("recipient", $0)] } ?? []))
            payload = nil
            signed = Data(query.utf8)
        }
        var headers = StandardWebhookSigner.requestHeaders(signer, deliveryID: delivery.deliveryID, at: Date(), body: signed)
        if payload == nil { headers.remove("Content-Type") }
        let request = HTTPClientRequest(
            url: url, method: handler.method.rawValue, headers: headers, body: payload,
            connectTimeout: connectTimeout, timeout: timeout, maxResponseBytes: 64 * 1024, oversizedResponse: .truncate,
            connectPolicy: policy.connectPolicy(calling: target), receiveBufferSize: HTTPClientRequest.smallReceiveBuffer)
        do {
            let response = try await client.send(request)
            breaker.record(host, url: target.string, answered: true)
            // Named as the API shows the URL: its last_error is shown there.
            return WebhookPresenter.outcome(for: response, url: target.string, now: Date(), naming: URLRedaction.shownHandlerURL)
        } catch {
            switch error {
            case .timedOut, .couldNotConnect, .connectionLost: breaker.record(host, url: target.string, answered: false)
            default: breaker.record(host, url: target.string, answered: nil)
            }
            if case .refusedByPolicy(_, let reason) = error { return .permanentFailure(reason: "refused: \(reason)") }
            return WebhookPresenter.outcome(for: error, url: target.string, naming: URLRedaction.shownHandlerURL)
        }
    }
}

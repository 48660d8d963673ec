import FoundationEssentials
import AlertModel
import AlertdHTTP
import AlertdStore

extension AlertdClient {
    /// What a person decides about an open alert.
    public enum Decision: String, Sendable, CaseIterable {
        /// Calls the alert's confirm handler, if it has one.
        case confirm
        /// Calls the alert's cancel handler, if it has one.
        case cancel
        /// Closes the alert without calling a handler: the problem went away.
        case resolve

        /// The state the alert ends in.
        public var outcome: AlertState {
            switch self {
            case .confirm: .confirmed
            case .cancel: .cancelled
            case .resolve: .resolved
            }
        }
    }

    /// `POST /v1/alerts/{id}/confirm|cancel|resolve`. The first decision
    /// wins: a later one throws ``AlertdClientError/alreadyDecided(_:)`` with
    /// who decided and when; an unknown id is 404 `alert_not_found`. The
    /// daemon takes the actor from the connection (`uid:1000` over the socket).
    public func decide(
        _ id: AlertID, _ decision: Decision, comment: String? = nil
    ) async throws(AlertdClientError) -> APIRepresentation.DecisionResult {
        let body = comment.map { Self.jsonObject(["comment": $0]) }
        return try await exchange("POST", "/v1/alerts/\(id.rawValue)/\(decision.rawValue)", body: body, expecting: 200)
    }

    /// `POST /v1/alerts/resolve`: resolves the open alert holding `dedupKey`,
    /// with `comment` kept in the decision; 404 `alert_not_found` when no
    /// open alert has it.
    public func resolve(dedupKey: String, comment: String? = nil) async throws(AlertdClientError) -> APIRepresentation.DecisionResult {
        var body = ["dedup_key": dedupKey]
        if let comment { body["comment"] = comment }
        return try await exchange("POST", "/v1/alerts/resolve", body: Self.jsonObject(body), expecting: 200)
    }

    package static func jsonObject(_ object: [String: String]) -> Data {
        do {
            return try JSONEncoder().encode(object)
        } catch {
            preconditionFailure("a dictionary of strings failed to encode: \(error)")
        }
    }
}

import FoundationEssentials
import AlertModel
import AlertdHTTP

extension AlertdClient {
    /// `GET /api/v2/silences`: every silence alertd keeps, active first.
    public func silences() async throws(AlertdClientError) -> [AlertmanagerRepresentation.Silence] {
        try await exchange("GET", "/api/v2/silences", expecting: 200)
    }

    /// `POST /api/v2/silences`: stores a new silence; its id.
    public func addSilence(_ silence: AlertmanagerRepresentation.PostableSilence) async throws(AlertdClientError) -> String {
        let body: Data
        do {
            body = try APIRepresentation.encoder.encode(silence)
        } catch {
            // Strings, booleans and dates only.
            preconditionFailure("a silence failed to encode: \(error)")
        }
        let created: AlertmanagerRepresentation.SilenceCreated = try await exchange("POST", "/api/v2/silences", body: body, expecting: 200)
        return created.silenceID
    }

    /// `DELETE /api/v2/silence/{id}`: ends a silence now. An unknown id is
    /// ``AlertdClientError/api(status:error:)`` with 404 `silence_not_found`.
    public func expireSilence(_ id: String) async throws(AlertdClientError) {
        _ = try await call("DELETE", "/api/v2/silence/\(Self.escape(id))", expecting: 200)
    }
}

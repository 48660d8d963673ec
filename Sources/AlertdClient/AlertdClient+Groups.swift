import FoundationEssentials
import AlertModel
import AlertdHTTP

extension AlertdClient {
    /// `GET /v1/groups`: the open groups of grouped routes, soonest due first.
    public func groups() async throws(AlertdClientError) -> [APIRepresentation.Group] {
        let list: APIRepresentation.GroupList = try await exchange("GET", "/v1/groups", expecting: 200)
        return list.groups
    }
}

import FoundationEssentials
import AlertModel
import AlertdHTTP
import AlertdStore

/// The `/v1/groups` endpoints: the groups grouped routes have formed, with
/// their members, timers and what each presenter was told.
public struct GroupsAPI: Sendable {
    package let store: any AlertStore
    /// Answers build through it, a few at once: a group of 50,000 alerts is
    /// an answer of 34 MB (``ListingGate``).
    private let listings: ListingGate
    /// When this alertd started (``StoreRules/shown(_:resendGraceFrom:)``).
    private let startedAt: Date

    public init(store: any AlertStore, listings: ListingGate = ListingGate(), startedAt: Date = .distantPast) {
        self.startedAt = startedAt
        self.store = store
        self.listings = listings
    }

    public func register(in router: inout APIRouter) {
        router.add("GET", "/v1/groups", access: .token(.read)) { _ throws(APIError) in
            try await listings.through { () throws(APIError) in try await list() }
        }
        router.add("GET", "/v1/groups/{id}", access: .token(.read)) { req throws(APIError) in
            try await listings.through { () throws(APIError) in try await show(id: req[parameter: "id"]) }
        }
    }

    package func list() async throws(APIError) -> HTTPResponse {
        let groups = try await APIError.storeCall(await store.groups())
        return APIRepresentation.json(APIRepresentation.GroupList(groups: groups.map { Self.representation($0) }))
    }

    package func show(id raw: String) async throws(APIError) -> HTTPResponse {
        guard let id = AlertGroupID(raw), let record = try await APIError.storeCall(await store.group(id: id)) else {
            throw APIError(status: 404, code: "group_not_found",
                           message: "There is no open group `\(raw)`; it may have ended when its alerts closed. GET /v1/groups lists the open ones.")
        }
        var group = Self.representation(record.group)
        group.openAlerts = record.members.filter { $0.state == .open }.count
        group.members = record.members.map { APIRepresentation.AlertDetail(StoreRules.shown($0, resendGraceFrom: startedAt)) }
        group.told = record.told.map {
            APIRepresentation.Told(presenter: $0.presenter, sequence: $0.sequence, at: $0.at, alerts: $0.alerts.count, thread: $0.thread)
        }
        return APIRepresentation.json(group)
    }

    private static func representation(_ g: AlertGroup) -> APIRepresentation.Group {
        APIRepresentation.Group(id: g.id, route: g.route, labels: Dictionary(g.labels.map { ($0.name, $0.value) }) { a, _ in a },
                                presenters: g.settings.presenters, createdAt: g.createdAt, nextDueAt: g.nextDueAt, notifiedAt: g.notifiedAt)
    }
}

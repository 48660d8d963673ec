import FoundationEssentials
import AlertModel

extension APIRepresentation {
    /// One group of alerts, as `GET /v1/groups` lists it and
    /// `GET /v1/groups/{id}` shows it (that one with members and `told`).
    public struct Group: Codable, Sendable, Equatable {
        public var id: AlertGroupID
        /// The route's name, or `routes[N]`, `default_route`.
        public var route: String
        /// The values of the route's `group_by` labels.
        public var labels: [String: String]
        public var presenters: [String]
        public var createdAt: Date
        /// When the group is looked at next: its first notification, a
        /// change's, or a reminder.
        public var nextDueAt: Date
        public var notifiedAt: Date?
        /// Open members, in lists; every member in `GET /v1/groups/{id}`.
        public var openAlerts: Int?
        /// Oldest first; only in `GET /v1/groups/{id}`.
        public var members: [AlertDetail]?
        /// What each presenter was last told; only in `GET /v1/groups/{id}`.
        public var told: [Told]?

        public init(id: AlertGroupID, route: String, labels: [String: String], presenters: [String], createdAt: Date, nextDueAt: Date,
                    notifiedAt: Date?, openAlerts: Int? = nil, members: [AlertDetail]? = nil, told: [Told]? = nil) {
            self.id = id
            self.route = route
            self.labels = labels
            self.presenters = presenters
            self.createdAt = createdAt
            self.nextDueAt = nextDueAt
            self.notifiedAt = notifiedAt
            self.openAlerts = openAlerts
            self.members = members
            self.told = told
        }

        package enum CodingKeys: String, CodingKey {
            case id, route, labels, presenters, members, told
            case createdAt = "created_at"
            case nextDueAt = "next_due_at"
            case notifiedAt = "notified_at"
            case openAlerts = "open_alerts"
        }
    }

    /// What one presenter was last told about a group.
    public struct Told: Codable, Sendable, Equatable {
        public var presenter: String
        /// 1 for the group's first notification.
        public var sequence: Int
        public var at: Date
        /// How many firing alerts it listed.
        public var alerts: Int
        /// What the destination answered to the first notification, when it threads.
        public var thread: String?

        public init(presenter: String, sequence: Int, at: Date, alerts: Int, thread: String?) {
            self.presenter = presenter
            self.sequence = sequence
            self.at = at
            self.alerts = alerts
            self.thread = thread
        }
    }

    /// `GET /v1/groups`.
    public struct GroupList: Codable, Sendable, Equatable {
        public var groups: [Group]

        public init(groups: [Group]) { self.groups = groups }
    }
}

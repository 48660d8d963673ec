import FoundationEssentials
import AlertModel

/// A group of alerts one grouped route collects (Alertmanager's aggregation
/// group): its key, the route's settings as of the latest member, and its
/// timer. It ends, and is deleted, once every member has closed and the
/// presenters told about it have heard so.
public struct AlertGroup: Sendable, Equatable {
    public var id: AlertGroupID
    /// The route's name, or `routes[N]`, `default_route`.
    public var route: String
    /// The values of the route's `group_by` labels.
    public var labels: [AlertLabel]
    public var settings: AlertGroupSettings
    public var createdAt: Date
    /// When the timer service looks at the group next.
    public var nextDueAt: Date
    /// When the group's presenters were last notified; nil until the first notification.
    public var notifiedAt: Date?

    public init(id: AlertGroupID, route: String, labels: [AlertLabel], settings: AlertGroupSettings, createdAt: Date,
                nextDueAt: Date, notifiedAt: Date? = nil) {
        self.id = id
        self.route = route
        self.labels = labels
        self.settings = settings
        self.createdAt = createdAt
        self.nextDueAt = nextDueAt
        self.notifiedAt = notifiedAt
    }

    /// Tells one notification of this group from the same-keyed group that
    /// formed before it ended: its creation, in milliseconds.
    public var generation: Int64 { Int64((createdAt.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The route name of the `index`th route when it has no `name`: its
    /// place in the list, which a reordered configuration gives to another
    /// route, so its groups do not follow it (``StoreRules/follow(_:routes:now:in:)``).
    public static func unnamedRoute(_ index: Int) -> String { "routes[\(index)]" }

    /// Whether the group's route is named by its place (``unnamedRoute(_:)``).
    public var routeIsUnnamed: Bool { route.hasPrefix("routes[") }
}

/// What a grouped route says about its groups: who hears of them and when.
public struct AlertGroupSettings: Sendable, Equatable {
    public var presenters: [String]
    /// Of `presenters`, those told what fires and never what closed (their
    /// `follow_ups` set to false; Alertmanager's `send_resolved: false`):
    /// no `resolved` notification, and a change that only closes alerts is
    /// no news to them.
    public var closingsUntold: Set<String>
    /// Before the first notification, to collect what arrives together.
    public var wait: Duration
    /// Between notifications about changes.
    public var interval: Duration
    /// Between reminders while nothing changes and alerts are still open.
    public var repeatInterval: Duration

    /// How long a change after a quiet spell waits for the rest of its
    /// burst: Prometheus sends 64 alerts a request, back to back, so 300
    /// alerts resolving together arrive in five requests, and a look at the
    /// first told of 236 firing and 64 resolved, a state that never was.
    /// A second, or `wait` when that is shorter (a route that asks for no
    /// wait gets none).
    public var settle: Duration { min(wait, .seconds(1)) }

    /// Between reminders in fact: `repeatInterval`, but no sooner than
    /// `interval`, which bounds every notification after the one before
    /// (a look for a shorter reminder told changes that early too).
    public var reminderInterval: Duration { max(repeatInterval, interval) }

    public static let defaultWait: Duration = .seconds(30)
    public static let defaultInterval: Duration = .seconds(300)
    public static let defaultRepeatInterval: Duration = .seconds(4 * 3600)

    public init(presenters: [String], wait: Duration = defaultWait, interval: Duration = defaultInterval,
                repeatInterval: Duration = defaultRepeatInterval, closingsUntold: Set<String> = []) {
        self.presenters = presenters
        self.closingsUntold = closingsUntold
        self.wait = wait
        self.interval = interval
        self.repeatInterval = repeatInterval
    }
}

/// An alert joining a group, as its route chose.
public struct AlertGroupMembership: Sendable, Equatable {
    public var id: AlertGroupID
    public var route: String
    public var labels: [AlertLabel]
    public var settings: AlertGroupSettings

    public init(route: String, labels: [AlertLabel], settings: AlertGroupSettings) {
        self.id = AlertGroupID(route: route, labels: labels)
        self.route = route
        self.labels = labels.sorted()
        self.settings = settings
    }
}

/// What one presenter was last told about a group.
public struct AlertGroupTold: Sendable, Equatable {
    public var presenter: String
    /// The last notification's ``AlertGroupNotification/sequence``.
    public var sequence: Int
    /// The firing alerts it listed.
    public var alerts: Set<AlertID>
    public var at: Date
    /// What the destination answered to the group's first notification, to thread under.
    public var thread: String?
    /// The firing alerts the last notification delivered to this
    /// presenter listed: what its destination takes for firing, since a
    /// group's notifications go out in order. Each notification queued
    /// until a later one is delivered tells which of them closed, so none
    /// is lost when the one that first told it is superseded unsent (a
    /// destination down for a while).
    public var believed: Set<AlertID>

    public init(presenter: String, sequence: Int, alerts: Set<AlertID>, at: Date, thread: String? = nil,
                believed: Set<AlertID> = []) {
        self.presenter = presenter
        self.sequence = sequence
        self.alerts = alerts
        self.at = at
        self.thread = thread
        self.believed = believed
    }
}

/// A group with its members and what each presenter was told: what
/// `GET /v1/groups/{id}` shows.
public struct AlertGroupRecord: Sendable, Equatable {
    public var group: AlertGroup
    /// Oldest first.
    public var members: [Alert]
    public var told: [AlertGroupTold]

    public init(group: AlertGroup, members: [Alert], told: [AlertGroupTold]) {
        self.group = group
        self.members = members
        self.told = told
    }
}

/// One notification a group flush queued, for metrics and logs.
public struct GroupNotice: Sendable, Equatable {
    public var group: AlertGroupID
    public var presenter: String
    public var reason: AlertGroupNotification.Reason
    public var delivery: DeliveryID
    public var listed: Int
}

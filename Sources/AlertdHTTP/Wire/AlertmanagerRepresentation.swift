import FoundationEssentials
import AlertModel

/// The JSON of Alertmanager's API v2, as alertd answers it: camelCase keys,
/// times as RFC 3339 in UTC with milliseconds (``APIRepresentation/encoder``
/// and ``APIRepresentation/decoder``). The daemon encodes these and
/// `alertctl silence` decodes them.
public enum AlertmanagerRepresentation {
    /// One group of `GET /api/v2/alerts/groups` (Alertmanager's alertGroup).
    public struct AlertGroup: Codable, Sendable {
        public var labels: [String: String]
        public var receiver: Alert.Receiver
        public var alerts: [Alert]

        public init(labels: [String: String], receiver: Alert.Receiver, alerts: [Alert]) {
            self.labels = labels
            self.receiver = receiver
            self.alerts = alerts
        }
    }

    /// One alert of `GET /api/v2/alerts` (Alertmanager's gettableAlert).
    public struct Alert: Codable, Sendable {
        public struct Receiver: Codable, Sendable {
            public var name: String

            public init(name: String) { self.name = name }
        }

        /// Alertmanager's alert states; alertd processes alerts at once, so
        /// never `unprocessed`.
        public enum State: String, Codable, Sendable {
            case active, suppressed, unprocessed
        }

        public struct Status: Codable, Sendable {
            /// `active`, or `suppressed` while a silence or an inhibiting alert holds it.
            public var state: State
            public var silencedBy: [String]
            /// The fingerprints of the open alerts that inhibit it.
            public var inhibitedBy: [String]

            public init(state: State, silencedBy: [String], inhibitedBy: [String] = []) {
                self.state = state
                self.silencedBy = silencedBy
                self.inhibitedBy = inhibitedBy
            }
        }

        public var labels: [String: String]
        public var annotations: [String: String]
        public var startsAt: Date
        public var endsAt: Date
        public var updatedAt: Date
        public var fingerprint: String
        public var receivers: [Receiver]
        public var status: Status
        public var generatorURL: String?

        public init(labels: [String: String], annotations: [String: String], startsAt: Date, endsAt: Date, updatedAt: Date,
                    fingerprint: String, receivers: [Receiver], status: Status, generatorURL: String?) {
            self.labels = labels
            self.annotations = annotations
            self.startsAt = startsAt
            self.endsAt = endsAt
            self.updatedAt = updatedAt
            self.fingerprint = fingerprint
            self.receivers = receivers
            self.status = status
            self.generatorURL = generatorURL
        }
    }

    /// A matcher as Alertmanager writes one.
    public struct Matcher: Codable, Sendable, Equatable {
        public var name: String
        public var value: String
        public var isRegex: Bool
        /// False for `!=` and `!~`; absent means true.
        public var isEqual: Bool?

        /// The matcher itself; throws when it is not one alertd can use.
        public func matcher() throws(SilenceError) -> LabelMatcher {
            try LabelMatcher(name: name, MatchOperator(isRegex: isRegex, isEqual: isEqual ?? true), value)
        }

        public init(name: String, value: String, isRegex: Bool, isEqual: Bool?) {
            self.name = name
            self.value = value
            self.isRegex = isRegex
            self.isEqual = isEqual
        }

        public init(_ m: LabelMatcher) {
            name = m.name
            value = m.value
            isRegex = m.op.isRegex
            isEqual = m.op.isPositive
        }
    }

    /// One silence of `GET /api/v2/silences` (gettableSilence).
    public struct Silence: Codable, Sendable, Equatable {
        public struct Status: Codable, Sendable, Equatable {
            public var state: SilenceState
        }

        public var id: String
        public var status: Status
        public var updatedAt: Date
        public var matchers: [Matcher]
        public var startsAt: Date
        public var endsAt: Date
        public var createdBy: String
        public var comment: String

        public init(_ s: AlertModel.Silence, at now: Date) {
            id = s.id.rawValue
            status = Status(state: s.state(at: now))
            updatedAt = s.updatedAt
            matchers = s.matchers.map(Matcher.init)
            startsAt = s.startsAt
            endsAt = s.endsAt
            createdBy = s.createdBy
            comment = s.comment
        }
    }

    /// A silence as `POST /api/v2/silences` takes it (postableSilence);
    /// with `id`, it changes that silence.
    public struct PostableSilence: Codable, Sendable, Equatable {
        public var id: String?
        public var matchers: [Matcher]
        public var startsAt: Date
        public var endsAt: Date
        public var createdBy: String
        public var comment: String

        public init(id: String? = nil, matchers: [LabelMatcher], startsAt: Date, endsAt: Date, createdBy: String, comment: String) {
            self.id = id
            self.matchers = matchers.map(Matcher.init)
            self.startsAt = startsAt
            self.endsAt = endsAt
            self.createdBy = createdBy
            self.comment = comment
        }
    }

    /// `POST /api/v2/silences`' answer.
    public struct SilenceCreated: Codable, Sendable, Equatable {
        public var silenceID: String

        public init(silenceID: String) { self.silenceID = silenceID }
    }

    /// `GET /api/v2/status`: what amtool reads before every command.
    public struct Status: Codable, Sendable {
        public struct Cluster: Codable, Sendable {
            /// alertd runs alone: `disabled`, as a single Alertmanager reports.
            public var status = "disabled"
            public var peers: [String] = []
        }

        public struct VersionInfo: Codable, Sendable {
            public var version = AlertdVersion.current
            public var revision = ""
            public var branch = ""
            public var buildUser = ""
            public var buildDate = ""
            public var goVersion = ""
        }

        public struct Config: Codable, Sendable {
            /// Alertmanager's YAML; alertd has none to show.
            public var original = ""
        }

        public var cluster = Cluster()
        public var versionInfo = VersionInfo()
        public var config = Config()
        /// When alertd started.
        public var uptime: Date

        public init(uptime: Date) { self.uptime = uptime }
    }
}

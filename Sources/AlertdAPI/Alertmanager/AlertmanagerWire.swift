import FoundationEssentials
import AlertModel

/// The JSON of Alertmanager's API v2, as alertd answers it: camelCase keys,
/// times as RFC 3339 in UTC with milliseconds (``APIRepresentation/encoder``).
package enum AlertmanagerWire {
    /// One alert of `GET /api/v2/alerts` (Alertmanager's gettableAlert).
    package struct Alert: Encodable, Sendable {
        package struct Receiver: Encodable, Sendable {
            package var name: String
        }

        package struct Status: Encodable, Sendable {
            /// `active`, or `suppressed` while a silence holds it.
            package var state: String
            package var silencedBy: [String]
            /// alertd has no inhibition; always empty.
            package var inhibitedBy: [String] = []
        }

        package var labels: [String: String]
        package var annotations: [String: String]
        package var startsAt: Date
        package var endsAt: Date
        package var updatedAt: Date
        package var fingerprint: String
        package var receivers: [Receiver]
        package var status: Status
        package var generatorURL: String?
    }

    /// A matcher as Alertmanager writes one.
    package struct Matcher: Encodable, Sendable {
        package var name: String
        package var value: String
        package var isRegex: Bool
        package var isEqual: Bool

        package init(_ m: LabelMatcher) {
            name = m.name
            value = m.value
            isRegex = m.op.isRegex
            isEqual = m.op.isPositive
        }
    }

    /// One silence of `GET /api/v2/silences` (gettableSilence).
    package struct Silence: Encodable, Sendable {
        package struct Status: Encodable, Sendable {
            package var state: SilenceState
        }

        package var id: String
        package var status: Status
        package var updatedAt: Date
        package var matchers: [Matcher]
        package var startsAt: Date
        package var endsAt: Date
        package var createdBy: String
        package var comment: String

        package init(_ s: AlertModel.Silence, at now: Date) {
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

    /// `POST /api/v2/silences`' answer.
    package struct SilenceCreated: Encodable, Sendable {
        package var silenceID: String
    }

    /// `GET /api/v2/status`: what amtool reads before every command.
    package struct Status: Encodable, Sendable {
        package struct Cluster: Encodable, Sendable {
            /// alertd runs alone: `disabled`, as a single Alertmanager reports.
            package var status = "disabled"
            package var peers: [String] = []
        }

        package struct VersionInfo: Encodable, Sendable {
            package var version = AlertdVersion.current
            package var revision = ""
            package var branch = ""
            package var buildUser = ""
            package var buildDate = ""
            package var goVersion = ""
        }

        package struct Config: Encodable, Sendable {
            /// Alertmanager's YAML; alertd has none to show.
            package var original = ""
        }

        package var cluster = Cluster()
        package var versionInfo = VersionInfo()
        package var config = Config()
        /// When alertd started.
        package var uptime: Date
    }
}

import FoundationEssentials
import AlertModel
import AlertdDelivery
import AlertdPOSIX
import AlertdStore
import AlertdPostgresStore

/// Everything `alertd` is told by its config file and command line. Every
/// field has a default, so an empty file (or none) is a working daemon.
public struct DaemonConfiguration: Sendable, Equatable {
    public var api = APISection()
    public var store = StoreSection()
    public var presenters: [PresenterDefinition] = DaemonConfiguration.defaultPresenters
    public var routes: [RouteDefinition] = []
    /// `inhibit`: open alerts that hold back the deliveries of others.
    public var inhibitRules: [InhibitRule] = []
    public var defaultRoute = RouteDefinition(presenters: DaemonConfiguration.defaultPresenters.map(\.name))
    public var retry = RetryPolicy()
    /// A template file for `alertctl --template` users and for the API.
    public var templatesPath: String?
    public var limits = LimitsSection()
    public var dispatcher = DispatcherSection()
    public var actions = ActionsSection()
    /// Where state lives: the database, the action-link key.
    public var stateDirectory: String

    public init(stateDirectory: String = AlertdPaths.defaultStateDirectory(environment: CurrentProcess.environment)) {
        self.stateDirectory = stateDirectory
    }

    public struct APISection: Sendable, Equatable {
        /// The Unix socket; nil means the default next to the state.
        public var socketPath: String?
        /// Permissions of the socket file; the default lets the owner and its group in.
        public var socketMode: UInt16 = 0o660
        /// `host:port` for TCP; nil keeps TCP off.
        public var listen: String?
        /// A file holding the bearer token TCP clients must send: one token
        /// with every scope, named `token`.
        public var tokenFile: String?
        /// A JSON file of named tokens with scopes (`APIToken`); read again on reload.
        public var tokensFile: String?
        /// Worker threads serving HTTP.
        public var threads: Int = 2
        /// The base URL people reach this API at; action links are offered
        /// only when it is set (e.g. `https://alertd.example`).
        public var publicURL: String?
        /// Listening sockets systemd passed in (socket activation). Not read
        /// from the file: `alertd` fills it from ``SocketActivation``. Each one
        /// present replaces the listener alertd would bind itself.
        public var activatedListeners = ActivatedListeners()
    }

    /// Already-listening descriptors to serve instead of binding, by role.
    public struct ActivatedListeners: Sendable, Equatable {
        /// Serves the API as the Unix socket (`FileDescriptorName=api`).
        public var unixSocket: Int32?
        /// Serves the API on TCP (`FileDescriptorName=http`), with the token check.
        public var tcp: Int32?

        public init(unixSocket: Int32? = nil, tcp: Int32? = nil) {
            self.unixSocket = unixSocket
            self.tcp = tcp
        }

        public var isEmpty: Bool { unixSocket == nil && tcp == nil }
    }

    public struct StoreSection: Sendable, Equatable {
        /// The database file; relative paths are inside the state directory.
        public var path: String = "alertd.db"
        /// A PostgreSQL database shared by every node (`postgresql://user@host:port/db`);
        /// nil keeps the SQLite file at `path`.
        public var url: String?
        /// A file holding that URL (with its password), read like any secret file.
        public var urlFile: String?
        /// This node's name among those sharing the database, for its
        /// claims on deliveries; by default the host name and state directory.
        public var node: String?
        /// Whether a PostgreSQL database is configured, by `url` or `url_file`.
        public var isPostgres: Bool { url != nil || urlFile != nil }
        /// How long closed alerts (with their deliveries and events) are kept;
        /// nil keeps them forever. Open alerts are never pruned.
        public var retention: Duration? = .seconds(30 * 24 * 3600)
    }

    public struct LimitsSection: Sendable, Equatable {
        /// Largest request body accepted.
        public var maxBodyBytes: Int = 4 << 20
        /// Most alerts in one `POST /v1/alerts` array.
        public var maxBatch: Int = 1_000
        /// Limits on each alert's fields.
        public var alert = AlertSpecLimits()
    }

    /// How alertd calls confirm and cancel handlers.
    public struct ActionsSection: Sendable, Equatable {
        /// URL prefixes, host names and address ranges handlers may be called
        /// at; see `HandlerURLPolicy`. Empty: public addresses only.
        public var allow: [String] = []
        /// Signs handler calls (Standard Webhooks), `whsec_…`.
        public var secret: String?
        public var secretFile: String?
        public var connectTimeout: Duration = .seconds(5)
        public var timeout: Duration = .seconds(10)
        /// Deliveries to handlers in flight at once, per action.
        public var maxConcurrency: Int = 16
        /// How long an action link stays valid, at most.
        public var linkLifetime: Duration = .seconds(7 * 24 * 3600)

        /// The handler URL policy `allow` describes, and a problem a line
        /// for each entry it cannot read, under its full key
        /// (`actions.allow[2]: …`): reading the file and making the daemon
        /// word them alike, so `--check-config` says each once.
        package var handlerPolicy: (HandlerURLPolicy, problems: [String]) {
            let (policy, problems) = HandlerURLPolicy.parse(allow)
            return (policy, problems.map { "actions.allow" + $0 })
        }
    }

    public struct DispatcherSection: Sendable, Equatable {
        /// How long in-flight deliveries may run after SIGTERM before alertd exits anyway.
        public var shutdownGrace: Duration = .seconds(10)
        /// How long a delivery may stay claimed with nothing working on it
        /// (its outcome could not be recorded) before it is tried again.
        public var claimLease: Duration = .seconds(60)
    }

    /// One terminal and one log presenter: what a newcomer expects to see.
    public static let defaultPresenters: [PresenterDefinition] = [
        PresenterDefinition(name: "terminal", configuration: TerminalPresenterConfiguration()),
        PresenterDefinition(name: "log", configuration: LogPresenterConfiguration(destination: .file("alerts.log"))),
    ]


    /// The socket path in effect: configured, or `$RUNTIME_DIRECTORY/alertd.sock`,
    /// or `alertd.sock` in the state directory.
    public func resolvedSocketPath(environment: [String: String] = CurrentProcess.environment) -> String {
        if let p = api.socketPath { return p }
        return AlertdPaths.defaultSocketPath(stateDirectory: stateDirectory, environment: environment)
    }


    /// The database path in effect.
    public var resolvedStorePath: String { resolve(store.path) }

    /// Resolves a path relative to the state directory.
    public func resolve(_ path: String) -> String {
        path.hasPrefix("/") ? path : stateDirectory + "/" + path
    }

    /// The named presenter's definition.
    public func presenter(named name: String) -> PresenterDefinition? {
        presenters.first { $0.name == name }
    }
}



extension DaemonConfiguration.StoreSection {
    /// Whether `url` names a PostgreSQL database as libpq reads URLs.
    public static func isPostgresURL(_ url: String) -> Bool {
        (url.hasPrefix("postgresql://") || url.hasPrefix("postgres://")) && url.count > "postgres://".count
    }

    /// What is wrong with the password of a PostgreSQL `url`, in words that
    /// never quote it; nil when nothing is.
    public static func passwordProblem(_ url: String) -> String? {
        URLRedaction.passwordHasBareSlash(url)
            ? "the password holds a bare `/`, which libpq reads as the end of the host and port; write it as %2F" : nil
    }

    /// What keeps libpq from using `url` (``passwordProblem(_:)``, then
    /// what libpq cannot read in it), in words that never quote the
    /// password; nil when nothing does.
    public static func urlProblem(_ url: String) -> String? {
        passwordProblem(url) ?? PostgresAlertStore.urlProblem(url).map { "libpq cannot read it: \($0)" }
    }
}

import FoundationEssentials
import Synchronization
import AlertModel
import AlertdAPI
import AlertdCrypto
import AlertdDelivery
import AlertdHTTPServer
import AlertdLogging
import AlertdPOSIX
import AlertdServices
import AlertdStore
import AlertdHTTP

/// alertd's composition root: the store, presenters, dispatcher,
/// maintenance, intake and API, built from one configuration and run as
/// the services of one ``ServiceGroup``.
///
/// Starting and `--check-config` both go through ``build(_:mode:logger:)``,
/// so whatever would keep alertd from starting, the check reports; a start
/// then goes on to bind the listeners and run the services.
public final class AlertDaemon: Sendable {
    /// What building may do to the machine.
    public enum Mode: Sendable {
        /// Create the state directory, open the store, create the action-link key.
        case run
        /// Change nothing on disk: check that those would work, and build the
        /// rest on an in-memory store.
        case check
    }

    /// A notification listing this many alerts carries megabytes: once
    /// such notifications stop, the heap is trimmed (``HeapTrimmer``).
    static let largeGroup = 1_000

    public let configuration: Mutex<DaemonConfiguration>
    package let store: any AlertStore
    /// The database file, for logs.
    package let storePath: String
    private let closeStore: @Sendable () -> Void
    /// Why the store refuses writes, while it does; see ``SQLiteAlertStore/lastWriteFailure``.
    package let storeWriteFailure: @Sendable () -> StoreError?
    package let dispatcher: Dispatcher
    package let maintenance: MaintenanceService
    package let groupTimer: GroupTimer
    package let intake: AlertIntake
    package let apiServers: [APIServerService]
    package let log: Logger
    package let changes: ChangeSignal
    public let metrics: DaemonMetrics
    /// The API's tokens, replaced on reload.
    package let authenticator: APIAuthenticator

    /// The TCP port actually bound (useful with port 0), if TCP is on.
    public var tcpPort: UInt16? { apiServers.first { $0.isTCP }?.server.port }
    /// The Unix socket path in use.
    public let socketPath: String

    /// Opens, reads and makes everything the configuration names: the store
    /// (or, to check, whether it could be opened), the token file, the
    /// action-link key, presenters and their secrets, templates. Binds
    /// nothing and starts nothing. Every problem is reported at once.
    public static func build(
        _ config: DaemonConfiguration, mode: Mode, logger: Logger = Logger(label: "alertd")
    ) throws(DaemonBuildError) -> AlertDaemon {
        var problems: [DaemonError] = []
        func step<T>(_ make: () throws(DaemonError) -> T) -> T? {
            do { return try make() } catch {
                problems.append(error)
                return nil
            }
        }
        let metrics = DaemonMetrics()
        let changes = ChangeSignal()
        let store = step { () throws(DaemonError) in try openStore(config, mode: mode, metrics: metrics, changes: changes, log: logger) }
        // The key lives in the state directory: no use looking when that failed.
        let links = store == nil ? nil : step { () throws(DaemonError) in try actionLinks(config, mode: mode) }
        let auth = step { () throws(DaemonError) in try authenticator(config) }
        let presenters = step { () throws(DaemonError) in try PresenterFactory.make(config) }
        let settings = step { () throws(DaemonError) in try intakeSettings(config) }
        if let problem = config.socketPathLengthProblem() {
            problems.append(DaemonError(code: .listener, message: problem))
        } else if let problem = config.socketDirectoryProblem() {
            // Checked from a shell before the first start, /run/alertd is
            // not there yet: systemd makes it as it starts the service.
            if case .check = mode { logger.warning(problem) } else { problems.append(DaemonError(code: .listener, message: problem)) }
        }
        guard problems.isEmpty, let store, let links, let auth, let presenters, let settings else {
            throw DaemonBuildError(problems: problems)
        }
        return AlertDaemon(config, store: store, links: links, auth: auth, presenters: presenters, settings: settings,
                           metrics: metrics, changes: changes, logger: logger)
    }

    private init(
        _ config: DaemonConfiguration, store opened: OpenedStore, links: ActionLinkSigner?, auth: APIAuthenticator,
        presenters: PresenterSet, settings: AlertIntake.Settings, metrics: DaemonMetrics, changes: ChangeSignal,
        logger: Logger
    ) {
        log = logger
        authenticator = auth
        configuration = Mutex(config)
        self.metrics = metrics
        metrics.showSeries(of: config.presenters.map(\.name), settings)
        self.changes = changes
        let store = opened.store
        self.store = store
        storePath = opened.path
        closeStore = opened.close
        storeWriteFailure = opened.lastWriteFailure

        let dispatcher = Dispatcher(
            store: store, presenters: presenters, retry: config.retry, links: links, logger: Logger(label: "dispatcher"),
            claimLease: config.dispatcher.claimLease, inhibitRules: config.inhibitRules, onAttempt: { metrics.attempt($0) })
        self.dispatcher = dispatcher
        // Expiry and escalation queue deliveries: the dispatcher has work.
        // One start for the clock's resolving and for what the API shows of it.
        let startedAt = Date()
        let maintenance = MaintenanceService(
            store: store, retention: config.store.retention, logger: Logger(label: "maintenance"), startedAt: startedAt,
            onReport: { report in
                report.expired.forEach { _ in metrics.decided(.expired) }
                report.resolved.forEach { _ in metrics.decided(.resolved) }
                dispatcher.wake()
            })
        self.maintenance = maintenance
        // A flush queues group notifications: the dispatcher has work.
        let groupTimer = GroupTimer(store: store, inhibitRules: config.inhibitRules, logger: Logger(label: "groups"),
                                    onNotices: { notices in
                                        notices.forEach { metrics.groupNotified($0) }
                                        dispatcher.wake(queuedFor: notices.map(\.presenter))
                                        // A big group's snapshot and payloads are megabytes, freed once it is told.
                                        if notices.contains(where: { $0.listed >= Self.largeGroup }) { HeapTrimmer.shared.largeWorkEnded() }
                                    })
        self.groupTimer = groupTimer
        // A new alert brings work now, handed over in memory, and may bring a
        // deadline sooner than maintenance's next look.
        intake = AlertIntake(store: store, settings: settings, onAccepted: { dispatcher.accept($0) },
                             claimKinds: { dispatcher.handOffClaimKinds() }, onSubmitting: { dispatcher.expectHandOffs($0) }, onSubmitted: { dispatcher.expectedHandOffsArrived($0) },
                             onGrouped: { groupTimer.wake() }, onDeadline: { maintenance.wake(before: $0) })
        // Another node's commit: new events to stream, maybe work to claim or a deadline sooner.
        opened.onRemoteChange {
            changes.notify()
            dispatcher.wake()
            maintenance.wake()
            groupTimer.wake()
        }

        let api = APIRouter.alertd(
            intake: intake, store: store, onReplay: { dispatcher.wake() },
            dispatcherRunning: { await dispatcher.isRunning }, storeWriteFailure: opened.lastWriteFailure, links: links,
            changes: changes, metrics: metrics, authenticator: auth, startedAt: startedAt)
        // Each route declares who may call it; the router enforces that with `auth`.
        let handler: HTTPServer.Handler = { request in await api.handle(request) }

        socketPath = config.api.activatedListeners.unixSocket == nil ? config.resolvedSocketPath() : "(passed by systemd)"
        let listeners = config.apiListeners()
        if auth.isOpen { for warning in Self.openListenerWarnings(listeners) { logger.warning(warning) } }
        let files = CurrentProcess.raiseOpenFileLimit()
        let deliveries = presenters.entries.values.reduce(0) { $0 + $1.maxConcurrency }
        let connections = Self.connectionLimit(openFiles: files, listeners: listeners.count, deliveries: deliveries)
        let outgoing = Self.deliveryConnectionLimit(openFiles: files, listeners: listeners.count, perListener: connections)
        PresenterFactory.limitConnections(to: outgoing)
        if connections < HTTPServerConfiguration().connectionLimit || outgoing < deliveries {
            logger.warning("The open-file limit (\(files)) leaves room for \(connections) connections per listener, with \(min(outgoing, deliveries)) kept for deliveries (the presenters' max_concurrency come to \(deliveries)); raise LimitNOFILE= to allow more.")
        }
        apiServers = listeners.map { listener in
            var c = HTTPServerConfiguration(listener: listener)
            c.threadPoolSize = config.api.threads
            c.maxBodyBytes = config.limits.maxBodyBytes
            c.connectionLimit = connections
            let server = HTTPServer(configuration: c, screen: { api.screen($0) },
                                    errorAnswer: { api.errorAnswer(method: $0, target: $1, status: $2, code: $3, message: $4) }, handler: handler)
            return APIServerService(server: server, log: logger)
        }
    }

    /// Connections each listener may hold: the default, or less when the
    /// open-file limit is low, so clients that fill every listener still
    /// leave a socket for each delivery that may be in flight
    /// (`deliveries`, the presenters' `max_concurrency` together) and
    /// ``reservedFiles`` descriptors for everything else. Connections that
    /// filled a soft limit of 1,024 made every delivery fail to connect.
    static func connectionLimit(openFiles: Int, listeners: Int, deliveries: Int = 0) -> Int {
        let room = (openFiles - reserved(openFiles) - deliveries) / max(1, listeners)
        return max(16, min(HTTPServerConfiguration().connectionLimit, room))
    }

    /// Connections deliveries may hold open at once, idle ones kept for
    /// reuse included: what the listeners and ``reservedFiles`` leave. At a
    /// limit of 64, deliveries to a slow receiver took every descriptor,
    /// and the API could accept no connection on either listener until a
    /// restart.
    static func deliveryConnectionLimit(openFiles: Int, listeners: Int, perListener: Int) -> Int {
        max(4, openFiles - reserved(openFiles) - perListener * max(1, listeners))
    }

    /// Descriptors kept out of the listeners' reach besides deliveries'
    /// sockets: the store's files, child processes' pipes, the event
    /// streams' timers.
    static let reservedFiles = 256

    /// ``reservedFiles``, or a quarter of a limit too low for it.
    private static func reserved(_ openFiles: Int) -> Int { min(reservedFiles, openFiles / 4) }

    /// The daemon's services in start order: deliveries and deadlines are
    /// handled before the API accepts anything, and the status service says
    /// ready only once all of those are up. Stopped in reverse.
    package func services(notifier: SystemdNotifier, environment: [String: String]) -> [any Service] {
        let status = StatusService(
            notifier: notifier, environment: environment,
            readyMetadata: { [self] in
                var meta: Logger.Metadata = ["socket": socketPath, "store": storePath]
                if let server = apiServers.first(where: \.isTCP) { meta["tcp"] = server.server.address ?? "?" }
                return meta
            },
            statusLine: { [self] in await statusLine() },
            isAlive: { [self] in await isAlive() })
        return [dispatcher, maintenance, groupTimer] + apiServers + [status]
    }

    /// Closes the store, once every service has stopped.
    package func close() {
        closeStore()
    }

    /// Signs action links when `api.public_url` is set. To check, an existing
    /// key is read but a missing one is not created.
    static func actionLinks(_ config: DaemonConfiguration, mode: Mode) throws(DaemonError) -> ActionLinkSigner? {
        guard let publicURL = config.api.publicURL else { return nil }
        let path = config.resolve("action-links.key")
        let key = switch mode {
        case .run: try ActionLinkSigner.loadOrCreateKey(at: path)
        case .check: try ActionLinkSigner.loadKey(at: path) ?? SecureRandom.bytes(32)
        }
        return ActionLinkSigner(key: key, publicURL: publicURL, lifetime: config.actions.linkLifetime)
    }

    /// The tokens TCP clients must send, if a token file is configured.
    static func authenticator(_ config: DaemonConfiguration) throws(DaemonError) -> APIAuthenticator {
        APIAuthenticator(tokens: try tokens(config))
    }

    static func tokens(_ config: DaemonConfiguration) throws(DaemonError) -> [APIToken]? {
        do {
            return try APIAuthenticator.tokens(tokenFile: config.api.tokenFile,
                                               tokensFile: config.api.tokensFile)
        } catch {
            throw DaemonError(code: .configuration, message: error.description)
        }
    }

    /// Routes, limits, templates and the handler URL policy for new alerts.
    package static func intakeSettings(_ config: DaemonConfiguration) throws(DaemonError) -> AlertIntake.Settings {
        var templates = AlertTemplateLibrary()
        if let path = config.templatesPath {
            do { templates = try AlertTemplateLibrary.load(from: config.resolve(path), limits: config.limits.alert) } catch {
                throw DaemonError(code: .configuration, message: error.description)
            }
        }
        return .init(router: AlertRouter(routes: config.routes, defaultRoute: config.defaultRoute),
                     limits: config.limits.alert, maxBatch: config.limits.maxBatch, templates: templates,
                     handlerPolicy: try PresenterFactory.handlerPolicy(config.actions),
                     followUps: Set(config.presenters.filter(\.followUps).map(\.name)),
                     closingsUntold: Set(config.presenters.filter(\.closingsUntold).map(\.name)),
                     inhibitRules: config.inhibitRules)
    }

    /// True while the dispatcher loop goes round and the store answers: what
    /// the systemd watchdog is fed from. A wedged dispatcher stops the pings
    /// even though the process still runs.
    public func isAlive() async -> Bool {
        guard await dispatcher.isRunning, ContinuousClock.now - (await dispatcher.lastLoopAt) < .seconds(3) else { return false }
        return (try? await store.counts()) != nil
    }

    /// A one-line summary for `STATUS=`: open alerts, pending and dead
    /// deliveries, led by what is wrong when the store cannot be written.
    public func statusLine() async -> String {
        guard let c = try? await store.counts() else { return "Store not answering" }
        let counts = "\(c.openAlerts) open alerts, \(c.pending + c.inFlight) deliveries pending, \(c.dead) dead"
        guard let failure = storeWriteFailure() else { return counts }
        let what = failure.code == .corrupt ? "store damaged, deliveries may have stopped" : "store not writable, alerts refused"
        return "Degraded, \(what): \(failure.message) (\(counts))"
    }

    /// Applies a new configuration: presenters, routes, retry policy,
    /// retention, limits and the shutdown grace change for work that starts
    /// from now on; deliveries in flight finish with the presenter they
    /// started with; open groups take their route's new presenters and
    /// timers. The API's token files are read again: a token removed
    /// or changed stops working, and ends its console sessions. Listeners,
    /// the store and the action-link URL stay as they are until a restart;
    /// changes to them are returned as warnings, with what changed in the
    /// tokens. Throws, changing nothing, when the new presenters or tokens
    /// cannot be made.
    public func reload(_ new: DaemonConfiguration) async throws(DaemonError) -> (warnings: [String], alsoChanged: [String]) {
        let presenters = try PresenterFactory.make(new)
        let settings = try Self.intakeSettings(new)
        let tokens = try Self.tokens(new)
        let old = configuration.withLock { $0 }
        var warnings: [String] = []
        let apiKept = [("socket", old.api.socketPath != new.api.socketPath), ("socket_mode", old.api.socketMode != new.api.socketMode),
                       ("listen", old.api.listen != new.api.listen), ("public_url", old.api.publicURL != new.api.publicURL),
                       ("threads", old.api.threads != new.api.threads)].filter(\.1).map { "api.\($0.0)" }
        if !apiKept.isEmpty {
            warnings.append("\(apiKept.joined(separator: ", ")) \(apiKept.count == 1 ? "changes" : "change") only on restart")
        }
        // The HTTP server is made with it; the rest of `limits` applies at once.
        if old.limits.maxBodyBytes != new.limits.maxBodyBytes { warnings.append("limits.max_body_bytes changes only on restart") }
        if old.stateDirectory != new.stateDirectory {
            warnings.append("state_dir changes only on restart (the store, its lock and the socket stay where they are)")
        } else if old.resolvedStorePath != new.resolvedStorePath {
            warnings.append("store.path changes only on restart")
        }
        if old.store.url != new.store.url || old.store.urlFile != new.store.urlFile || old.store.node != new.store.node {
            warnings.append("store.url, url_file and node change only on restart")
        }
        await warnOfRemovedPresenters(Set(old.presenters.map(\.name)).subtracting(new.presenters.map(\.name)))
        let unchanged = Set(new.presenters.filter { old.presenters.contains($0) }.map { DeliveryKind.presenter($0.name) })
        await dispatcher.reconfigure(presenters: presenters, retry: new.retry, claimLease: new.dispatcher.claimLease,
                                     inhibitRules: new.inhibitRules, linkLifetime: new.actions.linkLifetime, unchanged: unchanged)
        await maintenance.reconfigure(retention: new.store.retention)
        let grouped = Set(intake.current.groupSettings.keys)
        // The same file with other templates in it: the configuration's own
        // comparison sees only the path.
        let templatesRead = old.templatesPath == new.templatesPath && intake.current.templates != settings.templates
        intake.update(settings)
        metrics.showSeries(of: new.presenters.map(\.name), settings)
        await followRoutes(settings, rerouting: grouped.subtracting(settings.groupSettings.keys))
        // It looks again, at the times the groups now have.
        await groupTimer.reconfigure(inhibitRules: new.inhibitRules)
        // Listeners stay as they started; a reload can still take their token away.
        if tokens == nil, !authenticator.isOpen { warnings += Self.openListenerWarnings(old.apiListeners()) }
        let alsoChanged = authenticator.replace(with: tokens) + (templatesRead ? ["templates (the file's content)"] : [])
        configuration.withLock { current in
            var kept = new
            kept.api = current.api
            kept.api.tokenFile = new.api.tokenFile
            kept.api.tokensFile = new.api.tokensFile
            kept.store.path = current.store.path
            kept.store.url = current.store.url
            kept.store.urlFile = current.store.urlFile
            kept.store.node = current.store.node
            kept.stateDirectory = current.stateDirectory
            kept.limits.maxBodyBytes = current.limits.maxBodyBytes
            current = kept
        }
        return (warnings, alsoChanged)
    }
}

extension AlertDaemon {
    /// One warning for each TCP listener off loopback, for a daemon that
    /// asks no token: open to whoever can reach it, decisions, replays and
    /// silences included.
    static func openListenerWarnings(_ listeners: [HTTPServerConfiguration.Listener]) -> [String] {
        listeners.compactMap { listener in
            guard case .tcp(let host, let port) = listener, host != "localhost", IPAddress(host)?.scope != .loopback else { return nil }
            return "the API listens on \(host):\(port) without a token: anyone who can reach it may send, confirm, cancel, replay and silence; set api.token_file or api.tokens_file, or listen on 127.0.0.1"
        }
    }

    /// What the presenters a reload takes out still owe dies with them (no
    /// presenter, no way to deliver it): said once, at the reload, with
    /// the way back, where before only a line per delivery said it.
    private func warnOfRemovedPresenters(_ removed: Set<String>) async {
        guard !removed.isEmpty else { return }
        let pending = (try? await store.counts().pendingByPresenter) ?? [:]
        for name in removed.sorted() {
            // Pending in the store, and claimed here waiting for a slot (those being sent finish).
            let count = pending[name, default: 0] + (await dispatcher.waitingForSlots(of: name))
            guard count > 0 else { continue }
            if configuration.withLock({ $0.store.isPostgres }) {
                // The queue is every node's: another may have the presenter still.
                log.warning("reload: a presenter taken out of this node's configuration leaves its waiting deliveries to the nodes "
                            + "that still have it; once no running node has it they end dead "
                            + "(configure it again and run `alertctl replay --dead` to send them)",
                            ["presenter": name, "deliveries": "\(count)"])
                continue
            }
            log.warning("reload: a presenter taken out of the configuration leaves its waiting deliveries dead; "
                        + "configure it again and run `alertctl replay --dead` to send them",
                        ["presenter": name, "deliveries": "\(count)"])
        }
    }

    /// At start, the routes of the open groups that no longer group: with
    /// one node to a store, they were grouping when it stopped. None with a
    /// shared store: a node started on an older configuration would undo
    /// the groups of a route another node's newer one added.
    package func routesNoLongerGrouping() async -> Set<String> {
        guard !configuration.withLock({ $0.store.isPostgres }),
              let groups = try? await store.groups() else { return [] }
        return Set(groups.map(\.route)).subtracting(intake.current.groupSettings.keys)
    }

    /// Open groups follow the configuration as loaded (at start, and at a
    /// reload), not only when a member next joins: a presenter taken off a
    /// route stops hearing of its groups but for their end, and changed
    /// timers apply. The groups of the routes `rerouting` names (gone, or
    /// no longer grouping) send the alerts they told nobody of where the
    /// routes now send them. Escalations still to come take those of their
    /// alerts' routes as configured, held where a route now has none, so
    /// none fires that the configuration took out (it had, to presenters
    /// taken out as well) and a later reload can give it back.
    package func followRoutes(_ settings: AlertIntake.Settings, rerouting routes: Set<String>) async {
        do {
            let rerouting = GroupRerouting(routes: routes) { settings.submission(of: $0) }
            let changed = try await store.followRoutes(settings.groupSettings, rerouting: routes.isEmpty ? nil : rerouting, now: Date())
            if changed > 0 {
                log.info("open groups follow their routes' settings as configured", ["groups": "\(changed)"])
                dispatcher.wake()
            }
        } catch {
            log.warning("open groups keep their settings until an alert joins them", ["error": error.message])
        }
        do {
            let changed = try await store.followEscalations { settings.escalation(of: $0) }
            if changed > 0 {
                log.info("escalations still to come follow their routes as configured", ["alerts": "\(changed)"])
                maintenance.wake()
            }
        } catch {
            log.warning("escalations still to come keep the routes they were made by", ["error": error.message])
        }
    }
}

extension HTTPServerConfiguration.Listener {
    package var isTCP: Bool {
        switch self {
        case .tcp, .listeningSocket(_, .tcp): true
        default: false
        }
    }
}

import Foundation
import Synchronization
import AlertModel
import AlertdAPI
import AlertdDelivery
import AlertdHTTPServer
import AlertdLogging
import AlertdSQLiteStore
import AlertdStore

/// The running daemon: store, dispatcher, intake and API listeners, started
/// in that order and stopped in reverse, so nothing is accepted that cannot
/// be stored and nothing stored is left without a dispatcher.
public final class AlertDaemon: Sendable {
    public let configuration: Mutex<DaemonConfiguration>
    package let store: SQLiteAlertStore
    package let dispatcher: Dispatcher
    package let intake: AlertIntake
    package let servers: [HTTPServer]
    package let log: Logger
    package let changes: StoreChangeNotifier
    public let metrics: DaemonMetrics
    private let dispatcherTask: Mutex<Task<Void, Never>?> = Mutex(nil)
    private let stopped = Mutex<Bool>(false)

    /// The TCP port actually bound (useful with port 0), if TCP is on.
    public var tcpPort: UInt16? { servers.first { $0.configuration.listener.isTCP }?.port }
    /// The Unix socket path in use.
    public let socketPath: String

    /// Opens everything and starts serving. Throws before binding anything
    /// if the store or a presenter cannot be set up.
    public static func start(_ configuration: DaemonConfiguration, logger: Logger = Logger(label: "alertd")) async throws(DaemonError) -> AlertDaemon {
        let daemon = try AlertDaemon(configuration, logger: logger)
        try await daemon.startServing()
        return daemon
    }

    private init(_ config: DaemonConfiguration, logger: Logger) throws(DaemonError) {
        log = logger
        configuration = Mutex(config)
        do {
            try FileManager.default.createDirectory(atPath: config.stateDirectory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw DaemonError(code: .stateDirectory,
                              message: "Cannot create the state directory \(config.stateDirectory): \(error.localizedDescription). Create it or pass --state-dir.")
        }
        let changes = StoreChangeNotifier()
        self.changes = changes
        let metrics = DaemonMetrics()
        self.metrics = metrics
        do {
            store = try SQLiteAlertStore(path: config.resolvedStorePath) { batch in
                metrics.committed(batch: batch)
                changes.notify()
            }
        } catch {
            throw DaemonError(code: .store, message: error.message)
        }
        var links: ActionLinkSigner?
        if let publicURL = config.api.publicURL {
            let key = try ActionLinkSigner.loadOrCreateKey(at: config.resolve("action-links.key"))
            links = ActionLinkSigner(key: key, publicURL: publicURL, lifetime: config.actions.linkLifetime)
        }
        let presenters = try PresenterFactory.make(config)
        dispatcher = Dispatcher(
            store: store, presenters: presenters, retry: config.retry, retention: config.store.retention, links: links,
            logger: Logger(label: "dispatcher"),
            onAttempt: { metrics.attempt($0) },
            onMaintenance: { report in report.expired.forEach { _ in metrics.decided(.expired) } })
        let dispatcher = self.dispatcher
        intake = AlertIntake(store: store, settings: try Self.intakeSettings(config), onAccepted: { dispatcher.wake() })

        let auth: APIAuthenticator
        do { auth = try APIAuthenticator.load(tokenFile: config.api.tokenFile) } catch {
            throw DaemonError(code: .configuration, message: error.description)
        }
        let api = APIRouter.alertd(
            intake: intake, store: store, onReplay: { dispatcher.wake() },
            dispatcherRunning: { await dispatcher.isRunning }, links: links, changes: changes, metrics: metrics,
            authenticator: auth)
        // Each route declares who may call it; the router enforces that with `auth`.
        let handler: HTTPServer.Handler = { request in await api.handle(request) }

        socketPath = config.api.activatedListeners.unixSocket == nil ? config.resolvedSocketPath() : "(passed by systemd)"
        let listeners = config.apiListeners()
        servers = listeners.map { listener in
            var c = HTTPServerConfiguration(listener: listener)
            c.threadPoolSize = config.api.threads
            c.maxBodyBytes = config.limits.maxBodyBytes
            return HTTPServer(configuration: c, handler: handler)
        }
    }

    private func startServing() async throws(DaemonError) {
        let dispatcher = self.dispatcher
        dispatcherTask.withLock { $0 = Task { await dispatcher.run() } }
        for server in servers {
            do {
                try server.start()
            } catch {
                for s in servers { await s.stop() }
                await dispatcher.stop(grace: .zero)
                store.close()
                throw DaemonError(code: .listener, message: error.description)
            }
        }
        var meta: Logger.Metadata = ["socket": socketPath, "store": store.path]
        if let server = servers.first(where: { $0.configuration.listener.isTCP }) {
            meta["tcp"] = server.address ?? "?"
        }
        log.notice("alertd ready", meta)
    }

    /// What `--check-config` checks beyond the file itself: the files it
    /// points at (token, secrets, templates) can be read and make sense.
    public static func preflight(_ config: DaemonConfiguration) -> [String] {
        var problems: [String] = []
        do { _ = try APIAuthenticator.load(tokenFile: config.api.tokenFile) } catch { problems += error.problems.map { "\(error.source): \($0)" } }
        do { _ = try intakeSettings(config) } catch { problems.append(error.message) }
        do { _ = try PresenterFactory.make(config) } catch { problems.append(error.message) }
        return problems
    }

    /// Routes, limits, templates and the handler URL policy for new alerts.
    package static func intakeSettings(_ config: DaemonConfiguration) throws(DaemonError) -> AlertIntake.Settings {
        var templates = AlertTemplateLibrary()
        if let path = config.templatesPath {
            do { templates = try AlertTemplateLibrary.load(from: config.resolve(path)) } catch {
                throw DaemonError(code: .configuration, message: error.description)
            }
        }
        return .init(router: AlertRouter(routes: config.routes, defaultRoute: config.defaultRoute),
                     limits: config.limits.alert, maxBatch: config.limits.maxBatch, templates: templates,
                     handlerPolicy: try PresenterFactory.handlerPolicy(config.actions))
    }

    /// True while the dispatcher loop goes round and the store answers: what
    /// the systemd watchdog is fed from. A wedged dispatcher stops the pings
    /// even though the process still runs.
    public func isAlive() async -> Bool {
        guard await dispatcher.isRunning, ContinuousClock.now - (await dispatcher.lastLoopAt) < .seconds(3) else { return false }
        return (try? await store.counts()) != nil
    }

    /// A one-line summary for `STATUS=`: open alerts, pending and dead deliveries.
    public func statusLine() async -> String {
        guard let c = try? await store.counts() else { return "Store not answering" }
        return "\(c.openAlerts) open alerts, \(c.pending + c.inFlight) deliveries pending, \(c.dead) dead"
    }

    /// Applies a new configuration: presenters, routes, retry policy and
    /// limits change for work that starts from now on; deliveries in flight
    /// finish with the presenter they started with. Listeners, the store and
    /// the action-link URL stay as they are until a restart; changes to them
    /// are returned as warnings. Throws, changing nothing, when the new
    /// presenters cannot be made.
    public func reload(_ new: DaemonConfiguration) async throws(DaemonError) -> [String] {
        let presenters = try PresenterFactory.make(new)
        let settings = try Self.intakeSettings(new)
        let old = configuration.withLock { $0 }
        var warnings: [String] = []
        if old.api.socketPath != new.api.socketPath || old.api.listen != new.api.listen || old.api.tokenFile != new.api.tokenFile
            || old.api.publicURL != new.api.publicURL || old.api.socketMode != new.api.socketMode {
            warnings.append("api settings change only on restart")
        }
        if old.resolvedStorePath != new.resolvedStorePath { warnings.append("store.path changes only on restart") }
        await dispatcher.reconfigure(presenters: presenters, retry: new.retry, retention: new.store.retention)
        intake.update(settings)
        configuration.withLock { current in
            var kept = new
            kept.api = current.api
            kept.store = current.store
            kept.stateDirectory = current.stateDirectory
            current = kept
        }
        return warnings
    }

    /// Test-only fault hook: wedges (or frees) the dispatcher loop, to show
    /// the watchdog stops pinging a daemon that no longer delivers.
    public func setDispatcherStalled(_ stalled: Bool) async {
        await dispatcher.setStalledForTesting(stalled)
    }

    /// Stops accepting, lets in-flight requests and deliveries finish (up to
    /// the configured grace), and closes the store. Safe to call twice.
    public func shutdown() async {
        let first = stopped.withLock { s -> Bool in defer { s = true }; return !s }
        guard first else { return }
        log.notice("alertd stopping")
        for server in servers.reversed() { await server.stop() }
        let grace = configuration.withLock { $0.dispatcher.shutdownGrace }
        let cut = await dispatcher.stop(grace: grace)
        if cut > 0 { log.warning("deliveries cut off by shutdown; they will be retried after restart", ["count": "\(cut)"]) }
        let task = dispatcherTask.withLock { $0 }
        await task?.value
        store.close()
        log.notice("alertd stopped")
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

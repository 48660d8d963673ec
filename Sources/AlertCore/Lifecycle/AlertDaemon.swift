import Foundation
import Synchronization

/// The running daemon: store, dispatcher, intake and API listeners, started
/// in that order and stopped in reverse, so nothing is accepted that cannot
/// be stored and nothing stored is left without a dispatcher.
public final class AlertDaemon: Sendable {
    public let configuration: Mutex<DaemonConfiguration>
    let store: SQLiteAlertStore
    let dispatcher: Dispatcher
    let intake: AlertIntake
    let servers: [HTTPServer]
    let log: Logger
    let changes: StoreChangeNotifier
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
            store: store, presenters: presenters, retry: config.retry, links: links, logger: Logger(label: "dispatcher"),
            onAttempt: { metrics.attempt($0) },
            onMaintenance: { report in report.expired.forEach { _ in metrics.decided(.expired) } })
        let dispatcher = self.dispatcher
        intake = AlertIntake(
            store: store,
            settings: .init(router: AlertRouter(routes: config.routes, defaultRoute: config.defaultRoute),
                            limits: config.limits.alert, maxBatch: config.limits.maxBatch),
            onAccepted: { dispatcher.wake() })

        let auth: APIAuthenticator
        do { auth = try APIAuthenticator.load(tokenFile: config.api.tokenFile) } catch {
            throw DaemonError(code: .configuration, message: error.description)
        }
        let api = APIRouter.alertd(
            intake: intake, store: store, onReplay: { dispatcher.wake() },
            dispatcherRunning: { await dispatcher.isRunning }, links: links, changes: changes, metrics: metrics)
        let handler: HTTPServer.Handler = { request in
            // Health checks carry no secrets; action links carry their own signed token.
            let open = request.path == "/v1/health" || request.path.contains("/actions/")
            if !open, let refusal = auth.reject(request) { return refusal }
            return await api.handle(request)
        }

        socketPath = config.resolvedSocketPath()
        var listeners: [HTTPServerConfiguration.Listener] = [.unixSocket(path: socketPath, mode: config.api.socketMode)]
        if let listen = config.api.listen.flatMap(ListenAddress.init) {
            listeners.append(.tcp(host: listen.host, port: listen.port))
        }
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
        if let port = tcpPort { meta["tcp"] = "\(configuration.withLock { ListenAddress($0.api.listen ?? "")?.host ?? "" }):\(port)" }
        log.notice("alertd ready", meta)
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
    var isTCP: Bool {
        if case .tcp = self { return true }
        return false
    }
}

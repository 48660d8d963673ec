import FoundationEssentials
import AlertdDelivery
import AlertdStore
import AlertModel
import AlertdServices

extension APIRouter {
    /// Every endpoint `alertd` serves, wired as the daemon wires them. The
    /// daemon and the test that holds `docs/openapi.json` to the routes both
    /// build the router here, so the two cannot drift apart.
    public static func alertd(
        intake: AlertIntake, store: any AlertStore,
        onReplay: @escaping @Sendable () -> Void,
        dispatcherRunning: @escaping @Sendable () async -> Bool,
        storeWriteFailure: @escaping @Sendable () -> StoreError? = { nil },
        links: ActionLinkSigner? = nil,
        changes: ChangeSignal = ChangeSignal(),
        metrics: DaemonMetrics = DaemonMetrics(),
        authenticator: APIAuthenticator = APIAuthenticator(token: nil),
        startedAt: Date = .distantPast
    ) -> APIRouter {
        let origins = APIOriginPolicy(publicURL: links?.publicURL)
        var router = APIRouter(authenticator: authenticator, origins: origins)
        let listings = ListingGate()
        let probe = StoreProbe(store: store)
        AlertsAPI(intake: intake, store: store, metrics: metrics, listings: listings, onReplay: onReplay, startedAt: startedAt).register(in: &router)
        DecisionsAPI(store: store, links: links, metrics: metrics, onDecided: onReplay).register(in: &router)
        GroupsAPI(store: store, listings: listings, startedAt: startedAt).register(in: &router)
        MetricsAPI(metrics: metrics, probe: probe, writeFailure: storeWriteFailure).register(in: &router)
        EventsAPI(store: store, changes: changes).register(in: &router)
        HealthAPI(probe: probe, dispatcherRunning: dispatcherRunning, writeFailure: storeWriteFailure,
                  reloadFailed: { metrics.lastReloadFailed }).register(in: &router)
        AlertmanagerAPI(intake: intake, store: store, metrics: metrics, dispatcherRunning: dispatcherRunning, listings: listings,
                        probe: probe, writeFailure: storeWriteFailure, startedAt: startedAt)
            .register(in: &router)
        AlertmanagerSilencesAPI(store: store, onChange: onReplay).register(in: &router)
        AlertmanagerWebhookAPI(intake: intake, store: store, metrics: metrics).register(in: &router)
        ConsoleAPI(authenticator: authenticator, secureCookie: origins.securesCookies)
            .register(in: &router)
        return router
    }
}

import FoundationEssentials
import AlertModel
import AlertdCurl
import AlertdDelivery
import AlertdPOSIX

/// Makes the configured presenters, and the two that call decision
/// handlers. Everything that can be wrong with a presenter's settings is
/// found here, before the daemon binds a socket.
public enum PresenterFactory {
    /// One shared client for every webhook: its multi handles reuse
    /// connections across presenters and deliveries. One per core, up to
    /// four: with one, its thread was the busiest in the daemon and held
    /// deliveries back while another core had room (bench/analysis.md).
    static let httpClient: HTTPClient = {
        var configuration = HTTPClientConfiguration()
        configuration.threads = min(4, ProcessInfo.processInfo.activeProcessorCount)
        // Room to keep every connection a presenter at its highest
        // `max_concurrency` opened: with 64 kept, one at 1,024 to a receiver
        // answering in 200 ms closed and reopened connections at every
        // request (5,000 alerts: 3.5 s and 3.9 s of CPU, now 1.8 s and 1.7 s).
        // Only connections opened are kept: 64 in flight keep 64.
        configuration.idleConnectionCache = PresenterDefinition.maxConcurrencyRange.upperBound
        return HTTPClient(configuration: configuration)
    }()

    /// Handler calls get a client, and so a connection pool, of their own:
    /// their URLs come from alert submitters, and must never ride a
    /// keep-alive connection the operator's webhooks opened to an internal
    /// host. It outlives reloads, which is why every request on it is
    /// checked against the policy in force, not only new connections.
    static let handlerClient = HTTPClient()

    /// Caps the connections deliveries keep open, both clients together
    /// (handler calls an eighth), so that they leave the API descriptors
    /// to accept with (``AlertDaemon``'s open-file budget).
    static func limitConnections(to total: Int) {
        let handlers = max(2, total / 8)
        handlerClient.limitConnections(to: handlers)
        httpClient.limitConnections(to: max(2, total - handlers))
    }

    /// Handler hosts that stopped answering: kept across reloads, as the client is.
    static let handlerBreaker = HandlerHostBreaker()

    public static func make(_ config: DaemonConfiguration) throws(DaemonError) -> PresenterSet {
        let context = PresenterContext(httpClient: httpClient, stateDirectory: config.stateDirectory)
        var entries: [PresenterSet.Entry] = []
        var problems: [String] = []
        for definition in config.presenters {
            do {
                let presenter = try definition.configuration.makePresenter(name: definition.name, context: context)
                entries.append(.init(presenter: presenter, maxConcurrency: definition.maxConcurrency, followUps: definition.followUps,
                                      rateLimit: definition.rateLimit))
            } catch {
                problems.append("presenters.\(definition.name): \(error.message)")
            }
        }
        do {
            entries += try handlers(config.actions)
        } catch {
            problems.append(error.message)
        }
        guard problems.isEmpty else {
            throw DaemonError(code: .presenter, message: problems.joined(separator: "\n"))
        }
        return PresenterSet(entries)
    }

    /// The two presenters that call confirm and cancel handlers.
    /// Each problem under `actions`; the policy's, one a line, under their entries' keys.
    static func handlers(_ actions: DaemonConfiguration.ActionsSection) throws(DaemonError) -> [PresenterSet.Entry] {
        var secret = actions.secret
        if let file = actions.secretFile {
            do { secret = try SecretFile.read(file) } catch { throw DaemonError(code: .presenter, message: "actions: \(error.message)") }
        }
        let signer: StandardWebhookSigner?
        do { signer = try secret.map { (s: String) throws(WebhookConfigurationError) in try StandardWebhookSigner(secret: s) } } catch {
            throw DaemonError(code: .presenter, message: "actions: \(error.message)")
        }
        let policy = try handlerPolicy(actions)
        return ActionKind.allCases.map { kind in
            PresenterSet.Entry(
                presenter: ActionHandlerPresenter(action: kind, policy: policy, signer: signer, client: handlerClient,
                                                  connectTimeout: actions.connectTimeout, timeout: actions.timeout, breaker: handlerBreaker),
                maxConcurrency: actions.maxConcurrency)
        }
    }

    /// The handler URL policy `actions.allow` describes; the presenters call
    /// with it and intake refuses, at submission, what it will certainly refuse.
    package static func handlerPolicy(_ actions: DaemonConfiguration.ActionsSection) throws(DaemonError) -> HandlerURLPolicy {
        let (policy, problems) = actions.handlerPolicy
        guard problems.isEmpty else { throw DaemonError(code: .configuration, message: problems.joined(separator: "\n")) }
        return policy
    }
}

import Foundation
import AlertModel
import AlertdCurl
import AlertdDelivery

/// Makes the configured presenters. Everything that can be wrong with a
/// presenter's settings is found here, before the daemon binds a socket.
public enum PresenterFactory {
    /// One shared client for every webhook: its multi handle reuses
    /// connections across presenters and deliveries.
    package static let webhookClient = HTTPClient()

    public static func make(_ config: DaemonConfiguration) throws(DaemonError) -> PresenterSet {
        var entries: [PresenterSet.Entry] = []
        var problems: [String] = []
        for definition in config.presenters {
            do {
                entries.append(.init(presenter: try make(definition, config: config), maxConcurrency: definition.maxConcurrency))
            } catch {
                problems.append("presenters.\(definition.name): \(error.message)")
            }
        }
        do {
            entries += try handlers(config.actions)
        } catch {
            problems.append("actions: \(error.message)")
        }
        guard problems.isEmpty else {
            throw DaemonError(code: .presenter, message: problems.joined(separator: "\n"))
        }
        return PresenterSet(entries)
    }

    /// The two presenters that call confirm and cancel handlers.
    package static func handlers(_ actions: DaemonConfiguration.ActionsSection) throws(DaemonError) -> [PresenterSet.Entry] {
        var secret = actions.secret
        if let file = actions.secretFile {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw DaemonError(code: .presenter, message: "cannot read the secret file \(file)")
            }
            secret = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let signer: StandardWebhookSigner?
        do { signer = try secret.map { (s: String) throws(WebhookConfigurationError) in try StandardWebhookSigner(secret: s) } } catch {
            throw DaemonError(code: .presenter, message: error.message)
        }
        let (policy, problems) = HandlerURLPolicy.parse(actions.allow)
        guard problems.isEmpty else { throw DaemonError(code: .configuration, message: problems.joined(separator: "; ")) }
        return ActionKind.allCases.map { kind in
            PresenterSet.Entry(
                presenter: ActionHandlerPresenter(action: kind, policy: policy, signer: signer, client: webhookClient,
                                                  connectTimeout: actions.connectTimeout, timeout: actions.timeout),
                maxConcurrency: actions.maxConcurrency)
        }
    }

    package static func make(_ definition: PresenterDefinition, config: DaemonConfiguration) throws(DaemonError) -> any AlertPresenter {
        switch definition.settings {
        case .terminal(let c):
            return TerminalPresenter(name: definition.name, configuration: c)
        case .log(var c):
            if case .file(let path) = c.destination { c.destination = .file(config.resolve(path)) }
            return LogPresenter(name: definition.name, configuration: c)
        case .webhook(var c, let secretFile):
            if let secretFile {
                guard let data = FileManager.default.contents(atPath: secretFile) else {
                    throw DaemonError(code: .presenter, message: "cannot read the secret file \(secretFile)")
                }
                c.secret = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            do {
                return try WebhookPresenter(name: definition.name, configuration: c, client: webhookClient)
            } catch {
                throw DaemonError(code: .presenter, message: error.message)
            }
        }
    }
}

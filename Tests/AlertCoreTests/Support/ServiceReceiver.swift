import Foundation
import Synchronization
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdHTTPServer
@testable import AlertdDelivery

/// A stand-in for a notification service's API on 127.0.0.1: it holds each
/// request to the service's documented contract (`contract` returns what is
/// wrong with it, and such a request is answered 400 as the service would),
/// answers from a script of responses (then `success`), and records
/// everything for the test to look at.
final class ServiceReceiver: Sendable {
    struct Received: Sendable {
        let request: HTTPRequest
        /// What the contract found wrong; empty for a good request.
        let problems: [String]

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] ?? [:] }
    }

    private let state: Locked<(script: [HTTPResponse], received: [Received])>
    private let server: HTTPServer

    init(
        success: HTTPResponse = HTTPResponse(status: 200, body: Data("ok".utf8)), script: [HTTPResponse] = [],
        contract: @escaping @Sendable (HTTPRequest) -> [String]
    ) throws {
        let state = Locked<(script: [HTTPResponse], received: [Received])>((script, []))
        self.state = state
        var config = HTTPServerConfiguration(listener: .tcp(host: "127.0.0.1", port: 0))
        config.shutdownGracePeriod = .seconds(1)
        server = HTTPServer(configuration: config) { request in
            let problems = contract(request)
            return state.withLock { s in
                s.received.append(Received(request: request, problems: problems))
                if !problems.isEmpty { return .text(status: 400, problems.joined(separator: "; ")) }
                return s.script.isEmpty ? success : s.script.removeFirst()
            }
        }
        try server.start()
    }

    deinit { Task { [server] in await server.stop() } }

    var base: String { "http://127.0.0.1:\(server.port ?? 0)" }

    var received: [Received] { state.withLock { $0.received } }

    /// Answers the next requests with these (then `success` again).
    func script(_ responses: [HTTPResponse]) { state.withLock { $0.script = responses } }

    /// Waits until `count` requests have come in.
    @discardableResult
    func wait(for count: Int, timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if received.count >= count { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return received.count >= count
    }
}

/// What service presenter tests send: every field used, text that needs
/// escaping, and signed links.
enum ServiceFixtures {
    static let confirmLink = "https://alertd.example/v1/alerts/a1/actions/confirm?expires=1&token=abc"
    static let cancelLink = "https://alertd.example/v1/alerts/a1/actions/cancel?expires=1&token=def"

    static func alert(
        title: String = "Disk <full> & db1", message: String? = "/var is at 98% <b>now</b> & rising", severity: Severity = .critical,
        labels: [String: String] = ["host": "db1", "env": "prod"], actions: Bool = true
    ) throws -> Alert {
        var b = AlertSpec.Builder().title(title).severity(severity).labels(labels)
        if actions { b = b.confirm("Expand", handler: "https://ops.example/expand").cancel("Ignore", handler: "https://ops.example/ignore") }
        if let message { b = b.message(message) }
        return Alert(spec: try b.build(limits: .permissive).get(), at: Date(timeIntervalSince1970: 1_719_835_200.123))
    }

    static let delivery = DeliveryContext(deliveryID: "dlv-1.0", attempt: 1, actionLinks: [.confirm: confirmLink, .cancel: cancelLink])

    /// Signs links as a daemon with `api.public_url` does, per recipient on request.
    static let linkSigner = ActionLinkSigner(key: Array(repeating: 3, count: 32), publicURL: "https://alertd.example")

    /// A delivery of `alert` whose links are signed as the dispatcher signs them.
    static func signedDelivery(_ alert: Alert, id: DeliveryID = "dlv-2.0", attempt: Int = 1) -> DeliveryContext {
        DeliveryContext(deliveryID: id, attempt: attempt, links: linkSigner.delivering(alert))
    }

    /// Reads `settings` as alertd reads a presenter's, failing the test on any problem.
    static func configuration<C: PresenterConfiguration>(_ type: C.Type, _ settings: [String: Any]) throws -> C {
        let (config, problems) = read(type, settings)
        guard problems.isEmpty, let config else { throw TestDaemon.Failure("unexpected problems: \(problems)") }
        return config
    }

    /// Reads `settings`; the configuration and every problem found.
    static func read<C: PresenterConfiguration>(_ type: C.Type, _ settings: [String: Any]) -> (C?, [String]) {
        let reader = JSONConfigReader()
        var raw = settings
        raw["type"] = C.typeName
        let definition = PresenterRegistry.definition(named: "p", from: raw, at: "presenters.p", reader)
        return (definition?.configuration as? C, reader.problems)
    }

    /// Makes the presenter as the daemon would.
    static func presenter<C: PresenterConfiguration>(_ type: C.Type, _ settings: [String: Any], stateDirectory: String = "/tmp") throws
        -> any AlertPresenter {
        try configuration(type, settings).makePresenter(name: "p", context: PresenterContext(httpClient: HTTPClient(), stateDirectory: stateDirectory))
    }

    /// What `presenter` makes of each of `answers`, one attempt each.
    static func outcomes(_ presenter: any AlertPresenter, _ receiver: ServiceReceiver, _ answers: [HTTPResponse]) async throws
        -> [PresentationOutcome] {
        receiver.script(answers)
        let alert = try ServiceFixtures.alert()
        var outcomes: [PresentationOutcome] = []
        for _ in answers { outcomes.append(await presenter.present(alert, delivery: delivery)) }
        return outcomes
    }

    /// A JSON answer.
    static func json(_ status: Int, _ text: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var all = headers
        all.set("Content-Type", "application/json")
        return HTTPResponse(status: status, headers: all, body: Data(text.utf8))
    }

    /// Runs `check` on the parsed body of a JSON request, after the checks
    /// every JSON API makes; the problems found.
    static func jsonContract(_ request: HTTPRequest, method: String = "POST", path: String, _ check: ([String: Any]) -> [String]) -> [String] {
        var problems: [String] = []
        if request.method != method { problems.append("method \(request.method), expected \(method)") }
        if request.path != path { problems.append("path \(request.path), expected \(path)") }
        if request.headers["Content-Type"]?.hasPrefix("application/json") != true {
            problems.append("Content-Type \(request.headers["Content-Type"] ?? "none"), expected application/json")
        }
        guard let json = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] else {
            return problems + ["the body is not a JSON object"]
        }
        return problems + check(json)
    }
}

/// Reads a JSON tree by path in tests: `J(json)["attachments"][0]["color"].string`.
struct J {
    let value: Any?
    init(_ value: Any?) { self.value = value }
    subscript(key: String) -> J { J((value as? [String: Any])?[key]) }
    subscript(index: Int) -> J {
        guard let list = value as? [Any], list.indices.contains(index) else { return J(nil) }
        return J(list[index])
    }
    var string: String? { value as? String }
    var int: Int? { (value as? NSNumber)?.intValue }
    var bool: Bool? { (value as? NSNumber)?.boolValue }
    var array: [Any] { value as? [Any] ?? [] }
    var object: [String: Any] { value as? [String: Any] ?? [:] }
    var exists: Bool { value != nil && !(value is NSNull) }
}

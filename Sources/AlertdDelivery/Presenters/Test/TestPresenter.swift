#if ALERTD_TEST_HOOKS
import FoundationEssentials
import Synchronization
import AlertModel
import AlertdPOSIX

/// The presenter mock, for tests of the daemon where the sink is not the
/// subject. It records each presentation as one JSON line in a file and
/// answers from a script, by attempt: the first attempt of every delivery
/// gets the first outcome, the second the second, and the last repeats.
///
/// ```json
/// "sink": {"type": "test", "record": "presented.jsonl", "outcomes": ["retry", "delivered"], "delay": "50ms"}
/// ```
///
/// Outcomes: `delivered`, `retry`, `retry:<duration>` (the destination's
/// Retry-After), `dead`. Debug builds only: a release alertd has no such type.
/// It is registered like every other type, and is one file, as a type should be.
public final class TestPresenter: AlertPresenter {
    public struct Configuration: PresenterConfiguration {
        public static let typeName = "test"
        public static let keys = ["record", "outcomes", "delay"]
        public static let defaultMaxConcurrency = 16
        /// With `"follow_ups": true`, follow-ups are recorded too, with `follow_up` (the outcome) and `follows_up`.
        public static let followUps = FollowUpSupport.offByDefault

        /// Where presentations are appended, relative to the state directory.
        public var record: String?
        public var outcomes: [String] = ["delivered"]
        /// How long each attempt takes, as a slow destination's would.
        public var delay: Duration?

        public init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader) {
            record = reader.string(object, "record", at: path)
            delay = reader.duration(object, "delay", at: path)
            if let outcomes = reader.strings(object, "outcomes", at: path) {
                for (i, o) in outcomes.enumerated() where TestPresenter.outcome(o) == nil {
                    reader.problem("\(path).outcomes[\(i)]", "must be delivered, retry, retry:<duration>, not_sent:<duration> or dead")
                }
                if !outcomes.isEmpty { self.outcomes = outcomes }
            }
        }

        public func makePresenter(name: String, context: PresenterContext) -> any AlertPresenter {
            TestPresenter(name: name, configuration: self, recordPath: record.map(context.resolve))
        }
    }

    public let name: String
    let configuration: Configuration
    let recordPath: String?
    private let lock = Mutex<Void>(())

    init(name: String, configuration: Configuration, recordPath: String?) {
        self.name = name
        self.configuration = configuration
        self.recordPath = recordPath
    }

    public func present(_ alert: Alert, delivery: DeliveryContext) async -> PresentationOutcome {
        if let delay = configuration.delay { try? await Task.sleep(for: delay) }
        if let recordPath {
            let entry: [String: Any] = [
                "presenter": name, "alert_id": alert.id.rawValue, "delivery_id": delivery.deliveryID.rawValue,
                "attempt": delivery.attempt, "title": alert.spec.title, "state": alert.state.rawValue,
                "action_links": Dictionary(uniqueKeysWithValues: delivery.actionLinks.map { ($0.key.rawValue, $0.value) }),
            ].merging(delivery.followUp.map { ["follow_up": $0.outcome.rawValue, "follows_up": $0.original.rawValue, "by": $0.decision.actor] } ?? [:]) { a, _ in a }
            let line = Data((JSONObject.text(of: entry) + "\n").utf8)
            lock.withLock { _ in Self.append(line, to: recordPath) }
        }
        let script = configuration.outcomes
        // A call not sent is no attempt: the next call takes the script's next entry all the same.
        let notSent = heldCalls.withLock { $0[delivery.deliveryID.rawValue] ?? 0 }
        let outcome = Self.outcome(script[min(max(delivery.attempt, 1) + notSent, script.count) - 1]) ?? .delivered
        if !outcome.wasAttempted { heldCalls.withLock { $0[delivery.deliveryID.rawValue, default: 0] += 1 } }
        return outcome
    }

    /// Calls answered `not_sent`, by delivery.
    private let heldCalls = Mutex<[String: Int]>([:])

    /// Records a group notification with what it says (group, sequence,
    /// reason, counts, the summary's text, the thread it was given), and
    /// answers with a thread of its own, as a chat service would.
    public func presentGroup(_ notification: AlertGroupNotification, delivery: DeliveryContext) async -> GroupPresentationOutcome {
        if let delay = configuration.delay { try? await Task.sleep(for: delay) }
        if let recordPath {
            var entry: [String: Any] = [
                "presenter": name, "alert_id": notification.summaryAlert.id.rawValue, "delivery_id": delivery.deliveryID.rawValue,
                "attempt": delivery.attempt, "title": notification.title, "state": notification.summaryAlert.state.rawValue,
                "group_id": notification.groupID.rawValue, "sequence": notification.sequence, "reason": notification.reason.rawValue,
                "firing": notification.firing.count, "new": notification.newAlertIDs.count, "closed": notification.closed.count,
                "message": notification.summaryText,
                "action_links": Dictionary(uniqueKeysWithValues: notification.actionLinks.map { ($0.key.rawValue, $0.value.count) }),
            ]
            if let thread = delivery.thread { entry["thread"] = thread }
            let line = Data((JSONObject.text(of: entry) + "\n").utf8)
            lock.withLock { _ in Self.append(line, to: recordPath) }
        }
        let script = configuration.outcomes
        let outcome = Self.outcome(script[min(max(delivery.attempt, 1), script.count) - 1]) ?? .delivered
        return GroupPresentationOutcome(outcome: outcome, thread: outcome.isDelivered ? "thread-\(notification.groupID)" : nil)
    }

    static func outcome(_ text: String) -> PresentationOutcome? {
        switch text {
        case "delivered": return .delivered
        case "retry": return .retryableFailure(reason: "test presenter: scripted retry")
        case "dead": return .permanentFailure(reason: "test presenter: scripted failure")
        default:
            if text.hasPrefix("not_sent:"), let after = AlertDuration(parsing: String(text.dropFirst(9))) {
                return .notSent(reason: "test presenter: scripted hold", retryAfter: after.duration)
            }
            guard text.hasPrefix("retry:"), let after = AlertDuration(parsing: String(text.dropFirst(6))) else { return nil }
            return .retryableFailure(reason: "test presenter: scripted retry", retryAfter: after.duration)
        }
    }

    private static func append(_ data: Data, to path: String) {
        guard case .success(let file) = AppendFile.open(path) else { return }
        _ = file.write(Array(data))
    }
}
#endif

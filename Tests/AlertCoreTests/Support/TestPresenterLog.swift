import Foundation
import Synchronization
@testable import AlertModel
@testable import AlertdDelivery
@testable import AlertdDaemon
@testable import AlertdClient

/// What a daemon's test presenter (`"type": "test"`, the presenter mock)
/// recorded: one entry per presentation, read from its `record` file.
struct TestPresenterLog: Sendable {
    struct Entry: Sendable {
        let presenter: String
        let alertID: String
        let deliveryID: String
        let attempt: Int
        let title: String
        let actionLinks: [String: String]
        /// On a follow-up: how the alert closed, by whom, and the delivery followed up.
        let followUp: String?
        let by: String?
        let followsUp: String?
    }

    let path: String

    /// The record file `record` of a daemon's test presenter, relative to its state directory.
    init(_ daemon: TestDaemon, record: String = "presented.jsonl") {
        path = daemon.stateDir + "/" + record
    }

    var entries: [Entry] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return Entry(presenter: o["presenter"] as? String ?? "", alertID: o["alert_id"] as? String ?? "",
                         deliveryID: o["delivery_id"] as? String ?? "", attempt: o["attempt"] as? Int ?? 0,
                         title: o["title"] as? String ?? "", actionLinks: o["action_links"] as? [String: String] ?? [:],
                         followUp: o["follow_up"] as? String, by: o["by"] as? String, followsUp: o["follows_up"] as? String)
        }
    }

    /// Waits up to `timeout` for the entries to satisfy `condition`.
    func wait(timeout: Duration = .seconds(5), until condition: ([Entry]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(entries) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(entries)
    }
}

import Foundation
import Testing
@testable import AlertdHTTP

/// Grouping across nodes sharing one database: alerts taken by any node
/// join one group, and its notifications go out once, whoever's timer fires.
extension ClusterTests {
    @Test func aGroupFedByThreeNodesIsNotifiedOnceAndRemindedOnce() async throws {
        let receiver = try WebhookReceiver()
        let url = try PostgresServer.shared().makeDatabase()
        let cluster = try await nodes(3, url: url, receiver: receiver, extra: [
            // A wait long enough for every batch to be in, on a busy machine too.
            "default_route": ["presenters": ["hook"], "group_by": ["alertname"], "group_wait": "3s",
                              "group_interval": "2s", "repeat_interval": "2s"],
        ])
        // 300 alerts of one group, in batches posted to the nodes at once.
        let statuses = try await withThrowingTaskGroup(of: UInt.self) { group in
            for n in 0..<6 {
                let alerts = (0..<50).map { ["title": "node \(n * 50 + $0) down", "labels": ["alertname": "NodeDown", "node": "n\(n * 50 + $0)"]] }
                group.addTask { UInt(try await cluster[n % 3].request("POST", "/v1/alerts", json: alerts).status) }
            }
            return try await group.reduce(into: [UInt]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 202, count: 6))
        #expect(await receiver.wait(timeout: .seconds(15)) { $0.count >= 1 })
        // The first notification, then one reminder 2 s later; nothing twice.
        #expect(await receiver.wait(timeout: .seconds(10)) { $0.count >= 2 })
        try await Task.sleep(for: .milliseconds(700))
        let seen = deliveries(receiver)
        #expect(seen.count == 2, "\(seen)")
        #expect(seen.values.allSatisfy { $0 == 1 }, "duplicates: \(seen)")
        #expect(seen.keys.allSatisfy { $0.hasPrefix("group:g-") }, "\(seen)")
        // A webhook gets the group payload: every alert, why it is told.
        let groups = receiver.received.compactMap { $0.json["group"] as? [String: Any] }
        #expect(groups.map { ($0["firing"] as? [Any])?.count } == [300, 300], "\(receiver.received.map(\.json))")
        #expect(groups.map { $0["reason"] as? String } == ["first", "reminder"])
        let open = json(try await cluster[1].request("GET", "/v1/groups"))["groups"] as? [[String: Any]] ?? []
        #expect(open.count == 1)
    }
}

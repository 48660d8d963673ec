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
            "default_route": ["presenters": ["hook"], "group_by": ["alertname"], "group_wait": "1500ms",
                              "group_interval": "1m", "repeat_interval": "2s"],
        ])
        // 300 alerts of one group, in batches spread over the nodes.
        for n in 0..<30 {
            let alerts = (0..<10).map { ["title": "node \(n * 10 + $0) down", "labels": ["alertname": "NodeDown", "node": "n\(n * 10 + $0)"]] }
            #expect(try await cluster[n % 3].request("POST", "/v1/alerts", json: alerts).status == 202)
        }
        #expect(await receiver.wait(timeout: .seconds(10)) { $0.count >= 1 })
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

import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdDelivery
@testable import AlertdDaemon

/// Grouping on the real daemon: grouped routes send one notification per
/// group and presenter, on Alertmanager's timers, and the timers survive
/// restarts; an ungrouped route in the same config is unchanged.
@Suite(.serialized) struct GroupingDaemonTests {
    /// One recorded group notification (or alert) of a test presenter.
    struct Note {
        let json: [String: Any]
        let at: Date
        var reason: String? { json["reason"] as? String }
        var firing: Int { json["firing"] as? Int ?? -1 }
        var sequence: Int { json["sequence"] as? Int ?? -1 }
        var groupID: String? { json["group_id"] as? String }
        var message: String { json["message"] as? String ?? "" }
        var title: String { json["title"] as? String ?? "" }
    }

    /// Reads a test presenter's record file; each line stamped with when it was first seen.
    final class Recorder: @unchecked Sendable {
        // Touched only from the test's own task.
        let path: String
        private var seen: [Date] = []

        init(_ d: TestDaemon, _ record: String) { path = d.stateDir + "/" + record }

        var notes: [Note] {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            while seen.count < lines.count { seen.append(Date()) }
            return zip(lines, seen).map { Note(json: $0, at: $1) }
        }

        func wait(timeout: Duration, until condition: ([Note]) -> Bool) async -> Bool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if condition(notes) { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return condition(notes)
        }
    }

    static func config(wait: String = "1s", interval: String = "1s", repeatInterval: String = "2s") -> [String: Any] {
        [
            "presenters": [
                "chat": ["type": "test", "record": "chat.jsonl"],
                "pager": ["type": "test", "record": "pager.jsonl"],
                "direct": ["type": "test", "record": "direct.jsonl"],
            ],
            "routes": [
                ["match": ["labels": ["team": "infra"]], "presenters": ["direct"]],
                ["name": "storms", "match": ["labels": ["alertname": "DiskFull"]], "presenters": ["chat", "pager"],
                 "group_by": ["alertname", "rack"], "group_wait": wait, "group_interval": interval, "repeat_interval": repeatInterval],
            ],
            "default_route": ["presenters": ["direct"]],
        ]
    }

    /// Alertmanager-API alerts: `count` DiskFull alerts in `racks` racks, firing, or resolved a second ago.
    static func diskFull(_ count: Int, racks: Int = 1, from: Int = 0, resolved: Bool = false) -> [[String: Any]] {
        let now = Date()
        return (from..<(from + count)).map { i in
            var a: [String: Any] = [
                "labels": ["alertname": "DiskFull", "rack": "r\(i % racks)", "instance": "db\(i)"],
                "annotations": ["summary": "Disk full on db\(i)"],
                "startsAt": UTCTimestamp.iso8601(now.addingTimeInterval(-60)),
            ]
            if resolved { a["endsAt"] = UTCTimestamp.iso8601(now.addingTimeInterval(-1)) }
            return a
        }
    }

    func post(_ d: TestDaemon, _ alerts: [[String: Any]]) async throws {
        let r = try await d.request("POST", "/api/v2/alerts", json: alerts)
        #expect(r.status == 200, "\(String(decoding: r.body, as: UTF8.self))")
    }

    func json(_ d: TestDaemon, _ path: String) async throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: try await d.request("GET", path).body) as? [String: Any] ?? [:]
    }

    /// A grouped alert has no delivery of its own: `show` named that "no
    /// presenter's route matched", though its route did.
    @Test func showSaysAGroupedAlertIsToldOfByItsGroup() async throws {
        let d = try TestDaemon(config: Self.config(wait: "1h"))
        try await d.start()
        let id = try await d.send(["title": "Disk full on db1", "labels": ["alertname": "DiskFull", "rack": "r0"]])
        let group = try #require((try await d.show(id)["groups"] as? [String])?.first)
        let show = try await d.alertctl(["show", id])
        #expect(show.stdout.contains("Deliveries: none of its own; it is told of in the notifications of group \(group) ('alertctl groups')"), "\(show.stdout)")
        let loose = try await d.send(["title": "unrouted"])
        #expect(try await d.alertctl(["show", loose]).stdout.contains("Deliveries:\n  direct"))
    }

    @Test func aThousandAlertsMakeOneNotificationPerPresenterThenRemindersThenOneResolution() async throws {
        let d = try TestDaemon(config: Self.config(wait: "1s", interval: "1s", repeatInterval: "2s"))
        try await d.start()
        let chat = Recorder(d, "chat.jsonl"), pager = Recorder(d, "pager.jsonl"), direct = Recorder(d, "direct.jsonl")
        let posted = Date()
        try await post(d, Self.diskFull(1_000))
        #expect(Date().timeIntervalSince(posted) < 2, "posting 1,000 alerts took over 2 s")

        #expect(await chat.wait(timeout: .seconds(5)) { !$0.isEmpty })
        #expect(await pager.wait(timeout: .seconds(2)) { !$0.isEmpty })
        let first = try #require(chat.notes.first)
        #expect(first.at.timeIntervalSince(posted) >= 0.95, "notified \(first.at.timeIntervalSince(posted)) s after posting, before group_wait")
        #expect(first.reason == "first" && first.sequence == 1 && first.firing == 1_000)
        #expect(first.title == "[FIRING:1000] alertname=DiskFull rack=r0")
        #expect(first.message.contains("+990 more"))
        #expect(first.message.components(separatedBy: "\n- [").count == 11, "the summary lists 10 alerts")
        #expect(pager.notes.first?.firing == 1_000)
        #expect(direct.notes.isEmpty, "grouped alerts were also delivered one by one")

        // Where it stands: the group, with its members and what each presenter was told.
        let groupID = try #require(first.groupID)
        let alerts = try await json(d, "/v1/alerts?limit=1")
        let anyID = try #require((alerts["alerts"] as? [[String: Any]])?.first?["id"] as? String)
        #expect((try await d.show(anyID))["groups"] as? [String] == [groupID])
        let group = try await json(d, "/v1/groups/\(groupID)")
        #expect((group["members"] as? [Any])?.count == 1_000)
        #expect((group["told"] as? [[String: Any]])?.map { $0["sequence"] as? Int } == [1, 1])
        #expect((try await json(d, "/v1/groups"))["groups"].map { ($0 as? [Any])?.count } == 1)

        // Nothing changes: a reminder every repeat_interval, in the thread the first one started.
        #expect(await chat.wait(timeout: .seconds(5)) { $0.count >= 3 })
        let notes = chat.notes
        #expect(notes.prefix(3).map(\.reason) == ["first", "reminder", "reminder"])
        #expect(notes.prefix(3).map(\.sequence) == [1, 2, 3])
        // When each was queued, as the store has it: the group's deliveries
        // hang off its oldest alert, and are made a repeat_interval apart.
        let anchor = try #require(first.json["alert_id"] as? String)
        let deliveries = (try await d.show(anchor))["deliveries"] as? [[String: Any]] ?? []
        let queued = deliveries.filter { ($0["id"] as? String)?.hasPrefix("group:") == true && $0["presenter"] as? String == "chat" }
            .compactMap { ($0["created_at"] as? String).flatMap(RFC3339.parse) }.sorted()
        #expect(queued.count >= 3)
        for (a, b) in zip(queued, queued.dropFirst()).prefix(2) {
            #expect(b.timeIntervalSince(a) >= 1.998, "reminders queued \(b.timeIntervalSince(a)) s apart")
            #expect(b.timeIntervalSince(a) < 3, "reminders queued \(b.timeIntervalSince(a)) s apart")
        }
        #expect(notes[1].json["thread"] as? String == "thread-\(groupID)")

        // All resolve: one resolution to each presenter, then the group is over.
        let before = [chat.notes.count, pager.notes.count]
        try await post(d, Self.diskFull(1_000, resolved: true))
        #expect(await chat.wait(timeout: .seconds(5)) { $0.contains { $0.reason == "resolved" } })
        #expect(await pager.wait(timeout: .seconds(2)) { $0.contains { $0.reason == "resolved" } })
        try await Task.sleep(for: .milliseconds(2_500))
        for (recorder, told) in zip([chat, pager], before) {
            let all = recorder.notes
            #expect(all.filter { $0.reason == "resolved" }.count == 1)
            #expect(all.last?.reason == "resolved", "\(all.map(\.reason))")
            // Closures that arrive over more than group_interval may be told
            // in a change first; between them, every one is told once.
            let after = all.dropFirst(told)
            #expect(after.map { $0.json["closed"] as? Int ?? 0 }.reduce(0, +) == 1_000, "\(after.map(\.json))")
            #expect(all.last?.title == "[RESOLVED] alertname=DiskFull rack=r0")
        }
        #expect((try await json(d, "/v1/groups"))["groups"].map { ($0 as? [Any])?.count } == 0)
        let metrics = String(decoding: try await d.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"alertd_group_notifications_total{presenter="chat",reason="first"} 1"#))
        #expect(metrics.contains(#"alertd_group_notifications_total{presenter="pager",reason="resolved"} 1"#))
        #expect(metrics.contains("alertd_groups_open 0"))
    }

    /// `"follow_ups": false` on a presenter of a grouped route is
    /// Alertmanager's `send_resolved: false`: told what fires, never that it
    /// resolved. It was told every closing all the same.
    @Test func aPresenterWithoutFollowUpsIsNotToldItsGroupResolved() async throws {
        var config = Self.config(wait: "300ms", interval: "1s", repeatInterval: "1h")
        var presenters = config["presenters"] as! [String: Any]
        presenters["pager"] = ["type": "test", "record": "pager.jsonl", "follow_ups": false]
        config["presenters"] = presenters
        let d = try TestDaemon(config: config)
        try await d.start()
        let chat = Recorder(d, "chat.jsonl"), pager = Recorder(d, "pager.jsonl")
        try await post(d, Self.diskFull(3))
        #expect(await pager.wait(timeout: .seconds(5)) { $0.map(\.reason) == ["first"] })
        try await post(d, Self.diskFull(3, resolved: true))
        #expect(await chat.wait(timeout: .seconds(5)) { $0.last?.reason == "resolved" })
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(pager.notes.map(\.reason) == ["first"])
        #expect((try await json(d, "/v1/groups"))["groups"].map { ($0 as? [Any])?.count } == 0)
    }

    @Test func tenGroupsMakeTenNotificationsAndAnUngroupedRouteStillDeliversEachAlertAtOnce() async throws {
        let d = try TestDaemon(config: Self.config(wait: "1s", interval: "1m", repeatInterval: "1h"))
        try await d.start()
        let chat = Recorder(d, "chat.jsonl"), direct = Recorder(d, "direct.jsonl")
        let posted = Date()
        try await post(d, Self.diskFull(100, racks: 10))
        let infra = (0..<5).map { ["title": "infra \($0)", "labels": ["team": "infra"]] as [String: Any] }
        #expect(try await d.request("POST", "/v1/alerts", json: infra).status == 202)
        // The ungrouped route: each alert at once, well before any group_wait.
        #expect(await direct.wait(timeout: .seconds(2)) { $0.count == 5 })
        #expect(chat.notes.isEmpty)
        #expect(direct.notes.allSatisfy { $0.at.timeIntervalSince(posted) < 0.9 }, "ungrouped deliveries waited")

        #expect(await chat.wait(timeout: .seconds(5)) { $0.count >= 10 })
        try await Task.sleep(for: .milliseconds(700))
        let notes = chat.notes
        #expect(notes.count == 10)
        #expect(Set(notes.compactMap(\.groupID)).count == 10)
        #expect(notes.allSatisfy { $0.reason == "first" && $0.firing == 10 })
        #expect(direct.notes.count == 5)
        // alertctl lists them: a header and one line per group.
        let listed = try await d.alertctl(["groups"])
        #expect(listed.exitCode == 0)
        let lines = listed.stdout.split(separator: "\n")
        #expect(lines.count == 11, "\(listed.stdout)")
        #expect(lines.first?.hasPrefix("ID") == true)
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("g-") && $0.contains("storms") && $0.contains("alertname=DiskFull rack=r") })
    }

    /// A reload (or a restart) that shortens a grouped route's wait and
    /// takes a presenter off it applies to the group already waiting: it is
    /// told at the new time, to the route's presenters now. It had waited
    /// for an alert to join, with the hour it formed with.
    @Test(arguments: [false, true]) func anEditedConfigurationAppliesToTheGroupsAlreadyOpen(_ byRestart: Bool) async throws {
        let d = try TestDaemon(config: Self.config(wait: "1h"))
        try await d.start()
        let chat = Recorder(d, "chat.jsonl")
        let pager = Recorder(d, "pager.jsonl")
        try await post(d, Self.diskFull(3))
        var config = Self.config(wait: "300ms")
        var routes = try #require(config["routes"] as? [[String: Any]])
        routes[1]["presenters"] = ["chat"]
        config["routes"] = routes
        if byRestart {
            d.signal(SIGTERM)
            _ = await d.waitForExit()
            try d.rewriteConfig(config)
            try await d.start()
        } else {
            try await d.reload(config)
        }
        #expect(await chat.wait(timeout: .seconds(5)) { $0.count == 1 })
        #expect(chat.notes.first?.reason == "first")
        #expect(chat.notes.first?.firing == 3)
        try await Task.sleep(for: .milliseconds(500))
        #expect(pager.notes.isEmpty)
    }

    @Test func aNewAlertAfterTheFirstNotificationIsOneChangeNoSoonerThanTheGroupInterval() async throws {
        let d = try TestDaemon(config: Self.config(wait: "300ms", interval: "1500ms", repeatInterval: "1h"))
        try await d.start()
        let chat = Recorder(d, "chat.jsonl")
        try await post(d, Self.diskFull(3))
        #expect(await chat.wait(timeout: .seconds(5)) { $0.count == 1 })
        let first = try #require(chat.notes.first)
        try await post(d, Self.diskFull(1, from: 3))
        #expect(await chat.wait(timeout: .seconds(5)) { $0.count >= 2 })
        try await Task.sleep(for: .milliseconds(500))
        let notes = chat.notes
        #expect(notes.count == 2)
        #expect(notes.last?.reason == "changed")
        #expect(notes.last?.firing == 4)
        #expect(notes.last?.json["new"] as? Int == 1)
        let gap = try #require(notes.last).at.timeIntervalSince(first.at)
        #expect(gap >= 1.45, "the change came \(gap) s after the first notification")
    }

    /// A restart in the middle of group_wait, after SIGKILL or SIGTERM:
    /// the notification goes out once, at the time it was due.
    @Test(arguments: [SIGKILL, SIGTERM]) func aRestartDuringTheGroupWaitSendsTheNotificationExactlyOnce(_ sig: Int32) async throws {
        let d = try TestDaemon(config: Self.config(wait: "2s", interval: "1m", repeatInterval: "1h"))
        try await d.start()
        let chat = Recorder(d, "chat.jsonl"), pager = Recorder(d, "pager.jsonl")
        let posted = Date()
        try await post(d, Self.diskFull(20))
        try await Task.sleep(for: .milliseconds(400))
        d.signal(sig)
        _ = await d.waitForExit()
        #expect(chat.notes.isEmpty)
        try await d.start()
        #expect(await chat.wait(timeout: .seconds(6)) { !$0.isEmpty })
        #expect(await pager.wait(timeout: .seconds(2)) { !$0.isEmpty })
        let at = try #require(chat.notes.first).at.timeIntervalSince(posted)
        #expect(at >= 1.95, "notified \(at) s after posting, before group_wait")
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(chat.notes.count == 1)
        #expect(pager.notes.count == 1)
        #expect(chat.notes.first?.firing == 20)
    }

    @Test func groupingKeysAreCheckedWithClearErrors() async throws {
        let d = try TestDaemon(config: [
            "presenters": ["chat": ["type": "test"]],
            "routes": [
                ["presenters": ["chat"], "group_by": ["alertname", "9lives", "alertname"], "group_wait": "soon", "group_interval": "0s"],
                ["presenters": ["chat"], "repeat_interval": "1h"],
                ["presenters": ["chat"], "group_by": ["...", "rack"], "name": "a b"],
                ["name": "twin", "presenters": ["chat"]],
                ["name": "twin", "presenters": ["chat"], "group_by": "alertname"],
            ],
        ])
        let result = try await d.checkConfig()
        #expect(result.exitCode != 0)
        for expected in ["routes[0].group_by[1]", "routes[0].group_by[2]", "routes[0].group_wait", "routes[0].group_interval",
                         "routes[1].repeat_interval: has no effect without group_by", "routes[2].group_by", "routes[2].name",
                         "routes[4].name: \"twin\" is already the name of routes[3]", "routes[4].group_by"] {
            #expect(result.stderr.contains(expected), "missing \(expected) in:\n\(result.stderr)")
        }
    }
}

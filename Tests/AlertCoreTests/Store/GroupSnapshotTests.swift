import Foundation
import Testing
@testable import AlertModel
@testable import AlertdStore

/// A group notification's stored text, written and read by hand, held to
/// the `Codable` form `JSONEncoder` wrote before: each reads the other.
@Suite struct GroupSnapshotTests {
    /// The fields `JSONEncoder` wrote, as it wrote them: the reference.
    struct Wire: Codable, Equatable {
        var group_id: AlertGroupID
        var route: String
        var labels: [AlertLabel]
        var sequence: Int
        var reason: AlertGroupNotification.Reason
        var firing: [Alert]
        var new: [AlertID]
        var closed: [Alert]
        var thread: String?

        init(_ s: GroupSnapshot) {
            let n = s.notification
            self.init(group_id: n.groupID, route: n.route, labels: n.groupLabels, sequence: n.sequence, reason: n.reason,
                      firing: n.firing, new: n.newAlertIDs.sorted(), closed: n.closed, thread: s.thread)
        }

        init(group_id: AlertGroupID, route: String, labels: [AlertLabel], sequence: Int, reason: AlertGroupNotification.Reason,
             firing: [Alert], new: [AlertID], closed: [Alert], thread: String?) {
            self.group_id = group_id
            self.route = route
            self.labels = labels
            self.sequence = sequence
            self.reason = reason
            self.firing = firing
            self.new = new
            self.closed = closed
            self.thread = thread
        }

        var snapshot: GroupSnapshot {
            GroupSnapshot(notification: AlertGroupNotification(groupID: group_id, route: route, groupLabels: labels, sequence: sequence,
                                                               reason: reason, firing: firing, newAlertIDs: Set(new), closed: closed),
                          thread: thread)
        }

        func encoded() throws -> String {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .millisecondsSince1970
            return String(decoding: try encoder.encode(self), as: UTF8.self)
        }

        static func decode(_ text: String) throws -> Wire {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .millisecondsSince1970
            return try decoder.decode(Wire.self, from: Data(text.utf8))
        }
    }

    /// A group's alerts with every optional part set in one and unset in
    /// another: actions, expiry, dedup key, repeats, a decision with and
    /// without comment and recipient, text that needs escaping. Times are
    /// `at` plus whole milliseconds, as the store keeps them.
    static func snapshot(at ms: Int64, thread: String?) throws -> GroupSnapshot {
        func date(_ offset: Int64) -> Date { Date(timeIntervalSince1970: Double(ms + offset) / 1000) }
        let full = try AlertSpec.Builder().title("Disk \"full\" on db1 \\").message("92% used\n/var").severity(.critical)
            .labels(["alertname": "DiskFull", "instance": "db1:9100", "note": "é \\ \"q\""])
            .confirm("Expand", handler: "https://ops.example/expand?x=1&y=2", method: .put)
            .cancel("Ignore", handler: "http://127.0.0.1:9/ignore")
            .dedupKey("disk-db1").expires(after: .seconds(3_600)).build().get()
        let bare = try AlertSpec.Builder().title("bare").build().get()
        let a = Alert(id: AlertID.generate(at: date(0)), spec: full, createdAt: date(0), updatedAt: date(7), resolvesAt: date(300_000),
                      repeats: AlertRepeats(count: 4, lastSeenAt: date(6)))
        let b = Alert(id: AlertID.generate(at: date(1)), spec: bare, createdAt: date(1))
        let closedA = Alert(id: AlertID.generate(at: date(2)), spec: full, state: .confirmed, createdAt: date(2), updatedAt: date(9),
                            decision: AlertDecision(outcome: .confirmed, actor: "link", at: date(9), comment: "done \"now\"",
                                                    recipient: "alice@example.com"))
        let closedB = Alert(id: AlertID.generate(at: date(3)), spec: bare, state: .resolved, createdAt: date(3), updatedAt: date(4),
                            decision: AlertDecision(outcome: .resolved, actor: "alertd", at: date(4)))
        let labels = [AlertLabel(name: "alertname", value: "DiskFull"), AlertLabel(name: "zone", value: "eu \"west\"")]
        return GroupSnapshot(
            notification: AlertGroupNotification(groupID: AlertGroupID(route: "disks", labels: labels), route: "disks", groupLabels: labels,
                                                 sequence: 3, reason: .changed, firing: [a, b], newAlertIDs: [b.id],
                                                 closed: [closedA, closedB]),
            thread: thread)
    }

    @Test func whatItWritesReadsBackWholeAndAsJSONDecoderReadsIt() throws {
        for thread in [nil, "1733.55 \"ts\""] {
            let snapshot = try Self.snapshot(at: 1_764_892_800_123, thread: thread)
            let text = snapshot.encoded()
            #expect(GroupSnapshot.decode(text) == snapshot)
            #expect(try Wire.decode(text).snapshot == snapshot)
            #expect(try Wire.decode(text) == Wire(snapshot))
        }
        let empty = GroupSnapshot(notification: AlertGroupNotification(groupID: AlertGroupID(route: "r", labels: []), route: "r",
                                                                       groupLabels: [], sequence: 1, reason: .resolved, firing: []),
                                  thread: nil)
        #expect(GroupSnapshot.decode(empty.encoded()) == empty)
    }

    /// Rows stored before the change hold `JSONEncoder`'s text, dates with
    /// fractions of a millisecond included: they read as `JSONDecoder`
    /// reads them.
    @Test func whatJSONEncoderWroteReadsAsJSONDecoderReadsIt() throws {
        for ms in [Int64(1_764_892_800_123), 0] {
            var snapshot = try Self.snapshot(at: ms, thread: "t")
            // A quarter of a millisecond on, as `Date()` gives.
            let firing = snapshot.notification.firing.map { a in
                var a = a
                a.updatedAt = a.updatedAt.addingTimeInterval(0.000_25)
                return a
            }
            snapshot.notification.firing = firing
            let old = try Wire(snapshot).encoded()
            let read = try #require(GroupSnapshot.decode(old))
            #expect(read == (try Wire.decode(old)).snapshot)
            // The fraction is kept (to within the double's rounding, as `JSONDecoder` keeps it).
            for (got, sent) in zip(read.notification.firing.map(\.updatedAt), firing.map(\.updatedAt)) {
                #expect(abs(got.timeIntervalSince(sent)) < 0.000_001)
            }
        }
    }

    /// A claim reads each text once however many deliveries store it, and
    /// keeps each delivery's own.
    @Test func textsReadTogetherReadAsEachAlone() throws {
        let one = GroupSnapshot.Encoded(try Self.snapshot(at: 1_764_892_800_123, thread: nil))
        let two = GroupSnapshot.Encoded(try Self.snapshot(at: 1_764_892_800_123, thread: "t"))
        #expect(one.text == one.value.encoded())
        let texts = [one.text, nil, two.text, one.text, "{", two.text]
        #expect(GroupSnapshot.decodeEach(texts) == texts.map { $0.flatMap(GroupSnapshot.decode) })
        #expect(GroupSnapshot.decodeEach(texts) == [one.value, nil, two.value, one.value, nil, two.value])
    }

    @Test func aTextThatIsNotWholeReadsAsNothing() throws {
        let text = try Self.snapshot(at: 1_764_892_800_123, thread: nil).encoded()
        #expect(GroupSnapshot.decode(String(text.dropLast())) == nil)
        #expect(GroupSnapshot.decode("") == nil)
        for (field, broken) in [(#""route":"disks","#, ""), (#""title":"bare""#, #""titel":"bare""#),
                                (#""outcome":"confirmed""#, #""outcome":"maybe""#), (#""count":4"#, #""count":"4""#),
                                (#""name":"zone""#, #""name":7"#)] {
            #expect(text.contains(field), "\(field)")
            #expect(GroupSnapshot.decode(text.replacingOccurrences(of: field, with: broken)) == nil, "\(field) → \(broken)")
        }
    }
}

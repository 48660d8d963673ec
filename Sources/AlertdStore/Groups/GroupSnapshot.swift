import FoundationEssentials
import AlertModel

/// A group notification as queued: what the presenter is to be told, and
/// the thread to tell it in. Stored as JSON with its delivery, so every
/// retry (and a replay) sends the same thing.
public struct GroupSnapshot: Sendable, Equatable {
    public var notification: AlertGroupNotification
    /// What the destination answered to the group's first notification.
    public var thread: String?

    public init(notification: AlertGroupNotification, thread: String?) {
        self.notification = notification
        self.thread = thread
    }

    private struct Wire: Codable {
        var group_id: AlertGroupID
        var route: String
        var labels: [AlertLabel]
        var sequence: Int
        var reason: AlertGroupNotification.Reason
        var firing: [Alert]
        var new: [AlertID]
        var closed: [Alert]
        var thread: String?
    }

    /// The stored text. Action links and the console link are not stored:
    /// they are signed (and expire), so they are made as the delivery is sent.
    package func encoded() -> String {
        let n = notification
        let wire = Wire(group_id: n.groupID, route: n.route, labels: n.groupLabels, sequence: n.sequence, reason: n.reason,
                        firing: n.firing, new: n.newAlertIDs.sorted(), closed: n.closed, thread: thread)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        // Every field is a plain value; encoding cannot fail.
        return String(decoding: (try? encoder.encode(wire)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// Reads back what ``encoded()`` wrote; nil when it does not parse.
    package static func decode(_ text: String) -> GroupSnapshot? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        guard let w = try? decoder.decode(Wire.self, from: Data(text.utf8)) else { return nil }
        return GroupSnapshot(
            notification: AlertGroupNotification(groupID: w.group_id, route: w.route, groupLabels: w.labels, sequence: w.sequence,
                                                 reason: w.reason, firing: w.firing, newAlertIDs: Set(w.new), closed: w.closed),
            thread: w.thread)
    }
}

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

    /// The stored text: the notification's alerts whole, through the one
    /// JSON writer. Action links and the console link are not stored: they
    /// are signed (and expire), so they are made as the delivery is sent.
    /// The fields are those `JSONEncoder` wrote before, so rows stored then
    /// read as these do.
    package func encoded() -> String {
        let n = notification
        // Room for the alerts at once rather than a doubling after doubling.
        var o = JSONObject(capacity: 512 + 768 * (n.firing.count + n.closed.count))
        o.objects("closed", n.closed) { $1.writeSnapshot(to: &$0) }
        o.objects("firing", n.firing) { $1.writeSnapshot(to: &$0) }
        o.string("group_id", n.groupID.rawValue)
        o.objects("labels", n.groupLabels) { l, label in
            l.string("name", label.name)
            l.string("value", label.value)
        }
        o.list("new", n.newAlertIDs.map(\.rawValue).sorted())
        o.string("reason", n.reason.rawValue)
        o.string("route", n.route)
        o.int("sequence", Int64(n.sequence))
        o.string("thread", thread)
        return o.json
    }

    /// A snapshot with its stored text, encoded once for every presenter
    /// told the same: a big group's is megabytes.
    public struct Encoded: Sendable {
        public let value: GroupSnapshot
        public let text: String

        package init(_ value: GroupSnapshot) {
            self.value = value
            text = value.encoded()
        }
    }

    /// Reads each stored text back, a text that recurs once: the presenters
    /// told the same of a group are usually claimed together.
    package static func decodeEach(_ texts: [String?]) -> [GroupSnapshot?] {
        var read: [(text: String, snapshot: GroupSnapshot?)] = []
        return texts.map { text in
            guard let text else { return nil }
            // A count differs in O(1): only a text that may be equal is compared.
            if let seen = read.first(where: { $0.text.utf8.count == text.utf8.count && $0.text == text }) { return seen.snapshot }
            let snapshot = decode(text)
            read.append((text, snapshot))
            return snapshot
        }
    }

    /// Reads back what ``encoded()`` wrote; nil when it does not parse.
    package static func decode(_ text: String) -> GroupSnapshot? {
        let read = try? StrictJSON.read(text) { r throws(StrictJSON.Failure) -> GroupSnapshot? in
            var groupID: AlertGroupID?
            var route: String?
            var labels: [AlertLabel] = []
            var sequence: Int?
            var reason: AlertGroupNotification.Reason?
            var firing: [Alert] = []
            var new: Set<AlertID> = []
            var closed: [Alert] = []
            var thread: String?
            // An alert or label that does not read: the snapshot is not whole.
            var broken = false
            func alerts(_ r: inout StrictJSON.Reader, into list: inout [Alert]) throws(StrictJSON.Failure) {
                try r.elements { r throws(StrictJSON.Failure) in
                    if let alert = try Alert.readSnapshot(&r) { list.append(alert) } else { broken = true }
                }
            }
            try r.uniqueMembers { key, r throws(StrictJSON.Failure) in
                if try r.skipNull() { return }
                switch key {
                case "group_id": groupID = try r.stringValue().map(AlertGroupID.init(trusted:))
                case "route": route = try r.stringValue()
                case "labels":
                    try r.elements { r throws(StrictJSON.Failure) in
                        if let label = try StoreCoding.readLabel(&r) { labels.append(label) } else { broken = true }
                    }
                case "sequence": sequence = StrictJSON.wholeNumber(try r.value())
                case "reason": reason = try r.stringValue().flatMap(AlertGroupNotification.Reason.init(rawValue:))
                case "firing": try alerts(&r, into: &firing)
                case "new":
                    try r.elements { r throws(StrictJSON.Failure) in
                        if let id = try r.stringValue() { new.insert(AlertID(trusted: id)) } else { broken = true }
                    }
                case "closed": try alerts(&r, into: &closed)
                case "thread": thread = try r.stringValue()
                default: _ = try r.value()
                }
            }
            guard let groupID, let route, let sequence, let reason, !broken else { return nil }
            return GroupSnapshot(
                notification: AlertGroupNotification(groupID: groupID, route: route, groupLabels: labels, sequence: sequence,
                                                     reason: reason, firing: firing, newAlertIDs: new, closed: closed),
                thread: thread)
        }
        return read ?? nil
    }
}

import FoundationEssentials
import AlertModel

/// Alertmanager's webhook body (version 4), for a receiver written for
/// Alertmanager: its bridges to chat, its incident tools, its own
/// `webhook` receivers. Each alert is shown as Alertmanager's API shows it
/// (``AlertmanagerView``).
///
/// ```json
/// {
///   "version": "4", "groupKey": "{}/{route=\"disk\"}:{alertname=\"DiskFull\"}", "truncatedAlerts": 0,
///   "status": "firing", "receiver": "team-hook",
///   "groupLabels": {"alertname": "DiskFull"}, "commonLabels": {…}, "commonAnnotations": {…},
///   "externalURL": "https://alertd.example",
///   "alerts": [{"status": "firing", "labels": {…}, "annotations": {"summary": "…"}, "startsAt": "…",
///               "endsAt": "0001-01-01T00:00:00Z", "generatorURL": "…", "fingerprint": "2a83cb32c4427b17"}]
/// }
/// ```
/// A group notification lists its firing alerts and those closed since the
/// last one, as `resolved`; an alert delivered on its own is a group of
/// one, keyed by all its labels, as Alertmanager's `group_by: ['...']`
/// keys it, and its follow-up says it `resolved`. `status` is `firing`
/// while any alert listed fires.
public struct AlertmanagerWebhookPayload: Sendable {
    /// Alertmanager's webhook version this body follows.
    public static let version = "4"

    let receiver: String
    let groupKey: String
    let groupLabels: [String: String]
    let alerts: [(view: AlertmanagerView, firing: Bool)]
    let externalURL: String
    /// Alerts left out past the presenter's `max_alerts`.
    let truncated: Int

    /// `alert` on its own, or its follow-up once it closed. `followedUp`:
    /// the alert's own delivery, whose follow-up will say it closed
    /// (``DeliveryContext/followedUp``): it says `firing` whatever the
    /// alert's state by the time of the attempt.
    public init(alert: Alert, receiver: String, externalURL: String, followedUp: Bool = false) {
        let view = AlertmanagerView(alert)
        self.receiver = receiver
        groupLabels = view.labels
        groupKey = "{}:" + AlertmanagerView.text(of: view.labels)
        alerts = [(view, alert.state == .open || followedUp)]
        self.externalURL = externalURL
        truncated = 0
    }

    /// A group notification: what fires, then what closed since the last;
    /// past `maxAlerts` (0: no limit) the rest are left out and counted in
    /// `truncatedAlerts`, and the body says what the alerts in it have in
    /// common, as Alertmanager's `max_alerts` does.
    public init(_ notification: AlertGroupNotification, receiver: String, externalURL: String, maxAlerts: Int = 0) {
        self.receiver = receiver
        // A group_by label the alerts lack is no label, as in Alertmanager's group key.
        groupLabels = Dictionary(notification.groupLabels.filter { !$0.value.isEmpty }.map { ($0.name, $0.value) }) { a, _ in a }
        // The route in the key, as Alertmanager's route path is: two routes grouping alike are two groups.
        groupKey = "{}/{route=\(JSONObject.quoted(notification.route))}:" + AlertmanagerView.text(of: groupLabels)
        let listed = notification.listed(atMost: maxAlerts)
        let firing = listed.firing.map(AlertmanagerView.init)
        // A label set is one alert to an Alertmanager receiver: one that
        // resolved and fired again since the last notification (a native
        // alert sent again without a dedup key, its fingerprint another) is
        // listed firing, not resolved too, which a receiver going in order
        // took last and closed what fires.
        let fired = Set(firing.map { LabelFingerprint($0.labels) })
        alerts = firing.map { ($0, true) }
            + listed.closed.map(AlertmanagerView.init).filter { !fired.contains(LabelFingerprint($0.labels)) }.map { ($0, false) }
        truncated = listed.leftOut
        self.externalURL = externalURL
    }

    /// The JSON bytes, through the one JSON writer, keys sorted.
    public func encoded() -> Data {
        var o = JSONObject(capacity: 512 + 512 * alerts.count)
        o.objects("alerts", alerts) { a, item in
            let (view, firing) = item
            a.strings("annotations", view.annotations)
            // As Alertmanager's webhook: no end for what fires, whatever the sender's
            // endsAt (a receiving alertd took it as its own and resolved early).
            a.string("endsAt", Self.timestamp(firing ? RFC3339.goZero : view.endsAt))
            a.string("fingerprint", view.fingerprint)
            a.string("generatorURL", view.generatorURL ?? "")
            a.strings("labels", view.labels)
            a.string("startsAt", Self.timestamp(view.startsAt))
            a.string("status", firing ? "firing" : "resolved")
        }
        o.strings("commonAnnotations", Self.common(alerts.map(\.view.annotations)))
        o.strings("commonLabels", Self.common(alerts.map(\.view.labels)))
        o.string("externalURL", externalURL)
        o.string("groupKey", groupKey)
        o.strings("groupLabels", groupLabels)
        o.string("receiver", receiver)
        o.string("status", alerts.contains(where: \.firing) ? "firing" : "resolved")
        o.int("truncatedAlerts", Int64(truncated))
        o.string("version", Self.version)
        return o.jsonData
    }

    /// The pairs every one of `maps` has, as Alertmanager's `commonLabels`.
    static func common(_ maps: [[String: String]]) -> [String: String] {
        guard var out = maps.first else { return [:] }
        for map in maps.dropFirst() { out = out.filter { map[$0.key] == $0.value } }
        return out
    }

    /// RFC 3339 in UTC with milliseconds, as Go's zero time too: `0001-01-01T00:00:00Z` stays that.
    static func timestamp(_ date: Date) -> String {
        RFC3339.isUnset(date) ? "0001-01-01T00:00:00Z" : UTCTimestamp.iso8601(date)
    }
}

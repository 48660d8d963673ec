import FoundationEssentials

/// An alert as Alertmanager shows it, wherever alertd speaks Alertmanager's
/// language (its API's listings, a webhook in its format): the labels
/// without the generator URL alertd keeps among them, that URL on its own,
/// the title and message as the `summary` and `description` annotations,
/// the fingerprint over the labels, and when it started and ends.
package struct AlertmanagerView: Sendable {
    /// The label alertd keeps the generator URL in; it is not part of the
    /// fingerprint, and Alertmanager's shapes show it as `generatorURL` again.
    package static let generatorURLLabel = "generator_url"

    package let labels: [String: String]
    package let generatorURL: String?
    package let annotations: [String: String]
    package let fingerprint: String
    /// When alertd took the alert: the `startsAt` a sender gave is not kept.
    package let startsAt: Date
    /// For an open alert the sooner of its expiry and its `resolves_at`
    /// (the last `endsAt` its sender sent), else Go's zero time; for a
    /// closed one, when it closed.
    package let endsAt: Date

    package init(_ alert: Alert) {
        var labels = alert.spec.labels
        generatorURL = labels.removeValue(forKey: Self.generatorURLLabel)
        self.labels = labels
        var annotations = ["summary": alert.spec.title]
        if let message = alert.spec.message { annotations["description"] = message }
        self.annotations = annotations
        fingerprint = Self.fingerprint(of: alert, shownLabels: labels).description
        startsAt = alert.createdAt
        endsAt = alert.state == .open
            ? [alert.expiresAt, alert.resolvesAt].compactMap { $0 }.min() ?? RFC3339.goZero
            : alert.decision?.at ?? alert.updatedAt
    }

    /// The labels' fingerprint, as Alertmanager's, for an alert taken from
    /// its senders: its dedup key is that fingerprint (one a native alert
    /// may not take), so its labels are what it is. A native alert is one
    /// by its dedup key, or else by its id, which its fingerprint takes in
    /// too: two with the same labels (often none) had one fingerprint, and
    /// the groups listing put them in one group, where dashboards keying on
    /// it showed one of them.
    private static func fingerprint(of alert: Alert, shownLabels labels: [String: String]) -> LabelFingerprint {
        let byLabels = LabelFingerprint(labels)
        guard alert.spec.dedupKey != byLabels.description else { return byLabels }
        var identified = labels
        // No label name holds a control character, so none is this one.
        identified["\u{0}alertd"] = alert.spec.dedupKey ?? alert.id.rawValue
        return LabelFingerprint(identified)
    }

    /// `{alertname="DiskFull", instance="db1"}`, in name order, as
    /// Alertmanager writes label sets in messages and group keys.
    package static func text(of labels: [String: String]) -> String {
        "{" + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\(JSONObject.quoted($0.value))" }.joined(separator: ", ") + "}"
    }
}

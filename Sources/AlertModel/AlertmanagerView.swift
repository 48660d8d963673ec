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
        fingerprint = LabelFingerprint(labels).description
        startsAt = alert.createdAt
        endsAt = alert.state == .open
            ? [alert.expiresAt, alert.resolvesAt].compactMap { $0 }.min() ?? RFC3339.goZero
            : alert.decision?.at ?? alert.updatedAt
    }

    /// `{alertname="DiskFull", instance="db1"}`, in name order, as
    /// Alertmanager writes label sets in messages and group keys.
    package static func text(of labels: [String: String]) -> String {
        "{" + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\(JSONObject.quoted($0.value))" }.joined(separator: ", ") + "}"
    }
}

/// Which body a webhook presenter POSTs.
public enum WebhookPayloadFormat: String, Sendable, Equatable, CaseIterable {
    /// alertd's own (``WebhookPayload``, ``WebhookGroupPayload``): ids,
    /// actions and their links, decisions, follow-ups.
    case alertd
    /// Alertmanager's webhook body (``AlertmanagerWebhookPayload``), so a
    /// receiver written for Alertmanager takes alertd's notifications as they are.
    case alertmanager
}

import AlertModel

/// What a decision on an alert came to.
public enum DecisionOutcome: Sendable, Equatable {
    /// The alert is now closed; `handlerDelivery` is the queued handler call, if any.
    case decided(Alert, handlerDelivery: DeliveryID?)
    /// Someone (or the clock) decided first; the alert as it stands.
    case alreadyDecided(Alert)
    case notFound
}

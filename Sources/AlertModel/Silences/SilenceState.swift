/// Where a silence is in its life, by the clock: Alertmanager's three states.
public enum SilenceState: String, Sendable, Codable, CaseIterable {
    /// Its start is still to come: a maintenance window ahead.
    case pending
    /// It holds back the deliveries of the alerts it matches.
    case active
    /// Its end has passed, or it was expired early.
    case expired
}

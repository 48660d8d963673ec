/// Whether a presenter type tells its destination when an alert it showed
/// closes (a follow-up: a PagerDuty `resolve`, a "Resolved: …" message),
/// and whether it does so unless its settings say `"follow_ups": false`.
public enum FollowUpSupport: Sendable, Equatable {
    /// The type has no follow-ups; `"follow_ups": true` is refused.
    case unsupported
    /// Follow-ups are sent unless `"follow_ups": false`.
    case onByDefault
    /// Follow-ups are sent only with `"follow_ups": true`.
    case offByDefault

    /// Whether a presenter sends them, given its `follow_ups` setting.
    public func enabled(_ setting: Bool?) -> Bool {
        switch self {
        case .unsupported: false
        case .onByDefault: setting ?? true
        case .offByDefault: setting ?? false
        }
    }
}

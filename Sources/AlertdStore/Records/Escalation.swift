import FoundationEssentials
import AlertModel

/// "Still open after `after`? Tell `presenters` too." Fires once per alert.
public struct Escalation: Sendable, Equatable {
    public var after: Duration
    public var presenters: [String]
    /// Those of `presenters` told when the alert closes, once they have shown it.
    public var followUps: Set<String>

    public init(after: Duration, presenters: [String], followUps: Set<String> = []) {
        self.after = after
        self.presenters = presenters
        self.followUps = followUps
    }
}

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

/// An open alert's escalation as stored, not fired yet.
public struct ScheduledEscalation: Sendable, Equatable {
    public var alert: AlertID
    /// When it fires: its alert's creation and the route's `after`.
    public var at: Date
    public var presenters: [String]
    public var followUps: Set<String>
    /// Taken out by a reload, kept for one that gives it back: never fires.
    public var isHeld: Bool { StoreCoding.millis(at) == StoreCoding.heldEscalation }

    public init(alert: AlertID, at: Date, presenters: [String], followUps: Set<String>) {
        self.alert = alert
        self.at = at
        self.presenters = presenters
        self.followUps = followUps
    }
}

import FoundationEssentials
import AlertModel

/// "Still open after `after`? Tell `presenters` too." Fires once per alert.
public struct Escalation: Sendable, Equatable {
    public var after: Duration
    public var presenters: [String]

    public init(after: Duration, presenters: [String]) {
        self.after = after
        self.presenters = presenters
    }
}

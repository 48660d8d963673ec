import FoundationEssentials
import AlertModel

/// One entry of the event log that `/v1/events` streams.
public struct StoredEvent: Sendable, Equatable {
    /// Strictly increasing; clients resume from the last one they saw.
    public let sequence: Int64
    public let kind: EventKind
    public let alertID: AlertID
    public let at: Date
    /// Event-specific fields (delivery id, error, actor, ...).
    public let data: [String: String]

    public init(sequence: Int64, kind: EventKind, alertID: AlertID, at: Date, data: [String: String]) {
        self.sequence = sequence
        self.kind = kind
        self.alertID = alertID
        self.at = at
        self.data = data
    }
}

import FoundationEssentials
import AlertModel

/// The few primitive reads and writes a backend offers inside one
/// transaction. The rules built on them live once, in ``StoreRules``, so
/// every backend applies the same ones and none re-derives them in its
/// query language.
package protocol StoreTransaction {
    associatedtype Failure: Error

    /// The open alert holding `dedupKey`, if any.
    mutating func openAlert(dedupKey: String) throws(Failure) -> AlertID?
    /// The alert as it stands, if it exists.
    mutating func alert(_ id: AlertID) throws(Failure) -> Alert?
    /// Stores a new open alert, with its escalation if its route has one.
    mutating func insert(_ alert: Alert, escalation: Escalation?) throws(Failure)
    /// Writes `alert`'s new state and decision (it was open until now).
    mutating func close(_ alert: Alert) throws(Failure)
    /// Records that `alert`'s escalation has fired, so it never fires again.
    mutating func markEscalated(_ alert: AlertID, at: Date) throws(Failure)
    /// Queues a delivery, due at once.
    mutating func insert(_ delivery: DeliveryRecord) throws(Failure)
    /// Appends to the event log.
    mutating func append(_ kind: EventKind, alert: AlertID, at: Date, data: [String: String]) throws(Failure)
}

import FoundationEssentials
import AlertModel

/// The outcome of one attempt, as the store records it.
public struct DeliverySettlement: Sendable, Equatable {
    public enum Result: Sendable, Equatable {
        case delivered
        /// Try again at `at`; `error` says why this attempt failed.
        case retry(at: Date, error: String)
        case dead(error: String)

        /// The event the store logs for it.
        public var eventKind: EventKind {
            switch self {
            case .delivered: .deliverySucceeded
            case .retry: .deliveryFailed
            case .dead: .deliveryDead
            }
        }

        /// `delivered`, `retry` or `dead`: for metrics and logs.
        public var name: String {
            switch self {
            case .delivered: "delivered"
            case .retry: "retry"
            case .dead: "dead"
            }
        }

        /// The state it leaves the delivery in.
        public var state: DeliveryState {
            switch self {
            case .delivered: .delivered
            case .retry: .pending
            case .dead: .dead
            }
        }

        /// Why the attempt failed, if it did.
        public var error: String? {
            switch self {
            case .delivered: nil
            case .retry(_, let error), .dead(let error): error
            }
        }
    }

    public var deliveryID: DeliveryID
    public var result: Result
    public var at: Date
    /// For a delivered group notification: what the destination answered
    /// that later notifications of the group thread under.
    public var thread: String?
    /// For a delivered group notification: the firing alerts it listed,
    /// now what its destination takes for firing.
    public var listed: Set<AlertID>?
    /// The delivery as its claim gave it, when the settler holds it (the
    /// dispatcher always does): what never changes on a delivery (its
    /// alert, presenter, follow-up flag) need not be read back to record
    /// the outcome. The store checks it against the row.
    public var delivery: DeliveryRecord?
    /// False for a delivery ended without an attempt (its presenter taken
    /// out, superseded, out of time while its presenter failed), or put
    /// back untried (a handler host's breaker held the call): its claim
    /// counted an attempt that was never made, which the store takes back.
    public var sent = true

    public init(deliveryID: DeliveryID, result: Result, at: Date = Date(), thread: String? = nil) {
        self.thread = thread
        self.deliveryID = deliveryID
        self.result = result
        self.at = at
    }

    /// The outcome of an attempt at `delivery`, as its claim gave it.
    public init(_ delivery: DeliveryRecord, result: Result, at: Date = Date(), thread: String? = nil) {
        self.init(deliveryID: delivery.id, result: result, at: at, thread: thread)
        self.delivery = delivery
    }
}

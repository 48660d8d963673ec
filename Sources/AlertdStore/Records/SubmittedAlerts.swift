import AlertModel

/// What ``AlertIntakeStore/submit(_:claiming:)`` stored.
public struct SubmittedAlerts: Sendable, Equatable {
    /// One per submission, in order.
    public var results: [SubmissionResult]
    /// The deliveries of the new alerts (not those folded into open ones),
    /// as stored: what intake hands the dispatcher.
    public var deliveries: [AcceptedDelivery]
    /// The store's ``DeliveryQueue/silenceEpoch`` when it wrote the new
    /// deliveries of the kinds asked for already claimed; nil when it wrote
    /// them pending, to be claimed the usual way.
    public var claimEpoch: UInt64?

    public init(results: [SubmissionResult], deliveries: [AcceptedDelivery], claimEpoch: UInt64? = nil) {
        self.results = results
        self.deliveries = deliveries
        self.claimEpoch = claimEpoch
    }
}

import AlertModel

/// What ``AlertIntakeStore/submit(_:claiming:)`` stored.
public struct SubmittedAlerts: Sendable, Equatable {
    /// One per submission, in order.
    public var results: [SubmissionResult]
    /// The store's ``DeliveryQueue/silenceEpoch`` when it wrote the new
    /// deliveries of the kinds asked for already claimed; nil when it wrote
    /// them pending, to be claimed the usual way.
    public var claimEpoch: UInt64?

    public init(results: [SubmissionResult], claimEpoch: UInt64? = nil) {
        self.results = results
        self.claimEpoch = claimEpoch
    }
}

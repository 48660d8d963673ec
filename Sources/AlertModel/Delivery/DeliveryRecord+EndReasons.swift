extension DeliveryRecord {
    /// The `last_error` of a delivery the dispatcher ended because its
    /// presenter is not configured (a reload took it out). alertctl reads it
    /// back: a replay alone would end it dead again.
    public var presenterNotConfiguredError: String { "presenter \"\(presenter)\" is not configured" }

    /// The `last_error` of a follow-up the dispatcher ended because its
    /// presenter no longer sends follow-ups; likewise read back.
    public var presenterSendsNoFollowUpsError: String { "presenter \"\(presenter)\" no longer sends follow-ups" }
}

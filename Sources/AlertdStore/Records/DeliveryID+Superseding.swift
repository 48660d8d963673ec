import AlertModel

extension DeliveryID {
    /// For a group notification being claimed, what says what stands now
    /// in its place, if anything: the group's next notification to the same
    /// presenter when `nextQueued`; or, when the group ended and formed
    /// again since (open now as `formedAt`, a later generation), that
    /// forming's first notification to the presenter. Sent after either
    /// (a retry once the destination is back, a replay), it would undo
    /// them: an old `resolved` closes the incident the new forming opened.
    package func superseding(nextQueued: Bool, groupFormedAt formedAt: Int64?) -> DeliveryID? {
        guard let parts = groupNotification else { return nil }
        if nextQueued { return nextGroupNotification }
        if let formedAt, formedAt > parts.generation { return .group(parts.group, generation: formedAt, 1, presenter: parts.presenter) }
        return nil
    }
}

extension Dispatcher {
    /// What holds one presenter kind's slots.
    struct Slots {
        /// Attempts running: each holds a slot.
        var running = 0
        /// Attempts over whose outcome is not written yet. The slot is free
        /// again as soon as the attempt is over, so sending goes on while the
        /// store writes; past a presenter's slots of them, new attempts wait
        /// for the write.
        var awaitingWrite = 0
        /// Hand-offs taken for a slot and not started yet (the store claims
        /// them, or a store write under way must end first): they hold their
        /// slots, so a slot freed meanwhile is not given twice.
        var reserved = 0

        /// The slots of `max` held now.
        func taken(of max: Int) -> Int {
            running + reserved + Swift.max(0, awaitingWrite - max)
        }

        /// An attempt is over and its outcome waits for the store.
        mutating func settled() {
            release(\.running)
            awaitingWrite += 1
        }

        /// One fewer of `count`, never below none.
        mutating func release(_ count: WritableKeyPath<Slots, Int>) {
            self[keyPath: count] = Swift.max(0, self[keyPath: count] - 1)
        }
    }
}

import AlertModel
import AlertdStore
import Synchronization

/// The snapshots of the group notifications the writer queued last, kept
/// for the claim that soon follows: it takes the value the flush made
/// rather than reading megabytes of text back and decoding them (a fifth
/// of the CPU of notifying a 5,000-alert group every second).
///
/// A kept snapshot is always the one the row holds: every insert of a
/// notification keeps its snapshot (so one made again after a rollback
/// replaces the first), dropping a row's snapshot forgets it, and a claim
/// takes it out. What is not kept (after a restart, a retry, or once more
/// than ``limit`` wait) is read from the row.
final class GroupSnapshotCache: Sendable {
    /// A flush queues one notification per presenter told; a claim follows
    /// within the writer's next batches.
    static let limit = 16

    private struct Kept {
        var snapshots: [DeliveryID: GroupSnapshot] = [:]
        /// Oldest first, for dropping the oldest when full.
        var order: [DeliveryID] = []
    }

    /// Used by the writer's thread alone; the lock is never contended.
    private let kept = Mutex(Kept())

    init() {}

    func keep(_ snapshot: GroupSnapshot, for delivery: DeliveryID) {
        kept.withLock { kept in
            if kept.snapshots.updateValue(snapshot, forKey: delivery) != nil {
                kept.order.removeAll { $0 == delivery }
            }
            kept.order.append(delivery)
            if kept.order.count > Self.limit {
                kept.snapshots[kept.order.removeFirst()] = nil
            }
        }
    }

    func forget(_ delivery: DeliveryID) {
        kept.withLock { kept in
            guard kept.snapshots.removeValue(forKey: delivery) != nil else { return }
            kept.order.removeAll { $0 == delivery }
        }
    }

    /// The snapshot kept for `delivery`, no longer kept.
    func take(_ delivery: DeliveryID) -> GroupSnapshot? {
        kept.withLock { kept in
            guard let snapshot = kept.snapshots.removeValue(forKey: delivery) else { return nil }
            kept.order.removeAll { $0 == delivery }
            return snapshot
        }
    }
}

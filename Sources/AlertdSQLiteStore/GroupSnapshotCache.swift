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
/// wait than the limits allow) is read from the row. SQLite's alone: one
/// process writes its file, where in a Postgres cluster another node may
/// queue the same notification again after this one's write rolled back.
final class GroupSnapshotCache: Sendable {
    /// A flush queues one notification per presenter told; a claim follows
    /// within the writer's next batches, unless the presenter has no room.
    static let limit = 16
    /// The alerts all kept snapshots list, at most (some 10 MB): waiting
    /// claims of big groups must not hold their snapshots twice.
    static let alertLimit = 20_000

    private struct Kept {
        var snapshots: [DeliveryID: GroupSnapshot] = [:]
        /// Oldest first, for dropping the oldest when full.
        var order: [DeliveryID] = []
        var alerts = 0

        mutating func remove(_ delivery: DeliveryID) -> GroupSnapshot? {
            guard let snapshot = snapshots.removeValue(forKey: delivery) else { return nil }
            order.removeAll { $0 == delivery }
            alerts -= snapshot.alertCount
            return snapshot
        }
    }

    /// Used by the writer's thread alone; the lock is never contended.
    private let kept = Mutex(Kept())

    init() {}

    func keep(_ snapshot: GroupSnapshot, for delivery: DeliveryID) {
        kept.withLock { kept in
            _ = kept.remove(delivery)
            guard snapshot.alertCount <= Self.alertLimit else { return }
            kept.snapshots[delivery] = snapshot
            kept.order.append(delivery)
            kept.alerts += snapshot.alertCount
            while kept.order.count > Self.limit || kept.alerts > Self.alertLimit {
                _ = kept.remove(kept.order[0])
            }
        }
    }

    func forget(_ delivery: DeliveryID) {
        _ = kept.withLock { $0.remove(delivery) }
    }

    /// The snapshot kept for `delivery`, no longer kept.
    func take(_ delivery: DeliveryID) -> GroupSnapshot? {
        kept.withLock { $0.remove(delivery) }
    }
}

extension GroupSnapshot {
    /// The alerts it lists, firing and closed.
    fileprivate var alertCount: Int { notification.firing.count + notification.closed.count }
}

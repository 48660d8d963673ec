import AlertModel
import AlertdStore

/// Deliveries intake handed to the dispatcher in memory, per kind, oldest
/// first, waiting for a free slot. Bounded: past `limit` a hand-off is
/// dropped, which loses nothing, since the store holds every one: the
/// dispatcher's poll finds a pending one there, and one the store wrote
/// claimed (``AcceptedDelivery/claimEpoch``) is given back to it first.
struct HandOffQueue {
    private var waiting: [DeliveryKind: [AcceptedDelivery]] = [:]
    /// Per kind, how many at the front of `waiting` were already taken.
    private var heads: [DeliveryKind: Int] = [:]
    private(set) var count = 0
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    var isEmpty: Bool { count == 0 }

    /// How many of `kind` wait that the store wrote claimed (the others
    /// are pending there, and counted as such).
    func claimedCount(of kind: DeliveryKind) -> Int {
        guard let items = waiting[kind] else { return 0 }
        return items[heads[kind, default: 0]...].count { $0.claimEpoch != nil }
    }

    /// The ids of the hand-offs waiting.
    var ids: Set<DeliveryID> {
        var out = Set<DeliveryID>(minimumCapacity: count)
        for (kind, items) in waiting { for d in items[heads[kind, default: 0]...] { out.insert(d.id) } }
        return out
    }

    /// Queues what fits; returns those dropped for want of room.
    mutating func append(_ deliveries: [AcceptedDelivery]) -> ArraySlice<AcceptedDelivery> {
        let room = max(0, limit - count)
        for d in deliveries.prefix(room) { waiting[d.kind, default: []].append(d) }
        count += min(room, deliveries.count)
        return deliveries.dropFirst(room)
    }

    /// Takes up to `slots[kind]` of each kind, oldest first. A kind with no
    /// entry in `slots` has no presenter any more: its hand-offs are
    /// dropped (returned as `dropped`), and the poll settles them.
    mutating func take(_ slots: [DeliveryKind: Int]) -> (taken: [AcceptedDelivery], dropped: [AcceptedDelivery]) {
        var out: [AcceptedDelivery] = []
        var dropped: [AcceptedDelivery] = []
        for kind in Array(waiting.keys) {
            if let n = slots[kind] {
                out += take(n, of: kind)
            } else {
                dropped += take(Int.max, of: kind)
            }
        }
        return (out, dropped)
    }

    /// Takes up to `n` of `kind`, oldest first.
    mutating func take(_ n: Int, of kind: DeliveryKind) -> ArraySlice<AcceptedDelivery> {
        guard let items = waiting[kind] else { return [] }
        let head = heads[kind, default: 0]
        let left = items.count - head
        let n = min(max(0, n), left)
        count -= n
        if n == left {
            waiting[kind] = nil
            heads[kind] = nil
        } else if head + n > 4_096 {
            // Drop the taken front now and then, not on every take.
            waiting[kind] = Array(items[(head + n)...])
            heads[kind] = 0
        } else {
            heads[kind] = head + n
        }
        return items[head..<(head + n)]
    }

    /// Empties the queue; returns what waited.
    mutating func removeAll() -> [AcceptedDelivery] {
        var out: [AcceptedDelivery] = []
        for (kind, items) in waiting { out += items[heads[kind, default: 0]...] }
        waiting = [:]
        heads = [:]
        count = 0
        return out
    }
}

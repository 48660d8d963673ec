import AlertModel
import AlertdStore

/// Deliveries intake handed to the dispatcher in memory, per kind, oldest
/// first, waiting for a free slot. Bounded: past `limit` a hand-off is
/// dropped, which loses nothing, since the store holds every one and the
/// dispatcher's poll of the store finds it there.
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

    /// Queues what fits; returns how many were dropped for want of room.
    mutating func append(_ deliveries: [AcceptedDelivery]) -> Int {
        let room = max(0, limit - count)
        for d in deliveries.prefix(room) { waiting[d.kind, default: []].append(d) }
        count += min(room, deliveries.count)
        return max(0, deliveries.count - room)
    }

    /// Takes up to `slots[kind]` of each kind, oldest first. A kind with no
    /// entry in `slots` has no presenter any more: its hand-offs are
    /// dropped, and the poll settles them.
    mutating func take(_ slots: [DeliveryKind: Int]) -> [AcceptedDelivery] {
        var out: [AcceptedDelivery] = []
        for (kind, items) in waiting {
            let head = heads[kind, default: 0]
            let left = items.count - head
            let n = slots[kind].map { min(max(0, $0), left) } ?? left
            if slots[kind] != nil { out += items[head..<(head + n)] }
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
        }
        return out
    }
}

import Synchronization
import AlertModel

/// The recipients each delivery's per-recipient mails already reached,
/// so a retry after some were accepted sends only to the rest. Kept in
/// memory by one presenter instance: a restart or reload forgets it, and
/// the retry then mails everyone again, under the same `Message-ID`s.
final class EmailSentRecipients: Sendable {
    /// Deliveries remembered at most; the oldest is forgotten first. A
    /// delivery that succeeds is forgotten at once, so only those still
    /// retrying, or dead, count.
    static let capacity = 1_000

    private struct State {
        var sent: [DeliveryID: Set<String>] = [:]
        var order: [DeliveryID] = []
    }

    private let state = Mutex(State())

    func recipients(of delivery: DeliveryID) -> Set<String> {
        state.withLock { $0.sent[delivery] ?? [] }
    }

    func add(_ recipient: String, to delivery: DeliveryID) {
        state.withLock { s in
            if s.sent[delivery] == nil {
                s.order.append(delivery)
                if s.order.count > Self.capacity { s.sent[s.order.removeFirst()] = nil }
            }
            s.sent[delivery, default: []].insert(recipient)
        }
    }

    func forget(_ delivery: DeliveryID) {
        state.withLock { s in
            guard s.sent.removeValue(forKey: delivery) != nil else { return }
            s.order.removeAll { $0 == delivery }
        }
    }
}

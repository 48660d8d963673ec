import Synchronization
import AlertModel

/// What each delivery's per-recipient mails came to so far: the
/// recipients that accepted it, so a retry after some were accepted sends
/// only to the rest, and those refused for good (a 5xx), with why, so a
/// retry for the others does not ask again what SMTP says not to (RFC 5321
/// §4.2.1) and still names them. Kept in memory by one presenter instance:
/// a restart or reload forgets it, and the retry then mails everyone
/// again, under the same `Message-ID`s.
final class EmailSentRecipients: Sendable {
    /// Deliveries remembered at most; the oldest is forgotten first. A
    /// delivery that succeeds is forgotten at once, so only those still
    /// retrying, or dead, count.
    static let capacity = 1_000

    private struct Record {
        var reached: Set<String> = []
        /// Address → the reason it was refused.
        var refused: [String: String] = [:]
    }

    private struct State {
        var records: [DeliveryID: Record] = [:]
        var order: [DeliveryID] = []

        mutating func change(_ delivery: DeliveryID, _ body: (inout Record) -> Void) {
            if records[delivery] == nil {
                order.append(delivery)
                if order.count > EmailSentRecipients.capacity { records[order.removeFirst()] = nil }
            }
            body(&records[delivery, default: Record()])
        }
    }

    private let state = Mutex(State())

    func recipients(of delivery: DeliveryID) -> Set<String> {
        state.withLock { $0.records[delivery]?.reached ?? [] }
    }

    /// The recipients refused for good in an earlier attempt, with why.
    func refusals(of delivery: DeliveryID) -> [String: String] {
        state.withLock { $0.records[delivery]?.refused ?? [:] }
    }

    func add(_ recipient: String, to delivery: DeliveryID) {
        state.withLock { $0.change(delivery) { $0.reached.insert(recipient) } }
    }

    func refuse(_ recipient: String, because reason: String, for delivery: DeliveryID) {
        state.withLock { $0.change(delivery) { $0.refused[recipient] = reason } }
    }

    func forget(_ delivery: DeliveryID) {
        state.withLock { s in
            guard s.records.removeValue(forKey: delivery) != nil else { return }
            s.order.removeAll { $0 == delivery }
        }
    }
}

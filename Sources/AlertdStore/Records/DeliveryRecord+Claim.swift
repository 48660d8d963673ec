import FoundationEssentials
import AlertModel

extension DeliveryRecord {
    /// This delivery as claiming it at `now` leaves it: in flight, with
    /// one more attempt started.
    package func claimed(at now: Date) -> DeliveryRecord {
        var claimed = self
        claimed.state = .inFlight
        claimed.attempts += 1
        claimed.nextAttemptAt = nil
        claimed.updatedAt = now
        return claimed
    }
}

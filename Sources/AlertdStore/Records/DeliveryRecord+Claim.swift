import FoundationEssentials
import AlertModel

extension DeliveryRecord {
    /// This delivery as claiming it at `now` leaves it: in flight, with
    /// one more attempt started, and held by no silence or inhibition any
    /// more. Kept, the old holder made a later retry look held (`show`
    /// said "held by the silence until" the retry's time), kept it out of
    /// ``AlertStore/hastenRetries(of:now:)``, and withheld it for good
    /// once its alert closed, as if never tried.
    package func claimed(at now: Date) -> DeliveryRecord {
        var claimed = self
        claimed.silencedBy = nil
        claimed.state = .inFlight
        claimed.attempts += 1
        claimed.nextAttemptAt = nil
        claimed.updatedAt = now
        return claimed
    }
}

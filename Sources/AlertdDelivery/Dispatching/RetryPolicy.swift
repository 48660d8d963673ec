import FoundationEssentials
import AlertModel
import AlertdStore

/// When to try a failed delivery again: exponential backoff with equal
/// jitter (AWS's "Exponential Backoff and Jitter"), bounded by a number of
/// attempts and by the age of the delivery.
public struct RetryPolicy: Sendable, Equatable {
    /// Delay before the second attempt (before jitter).
    public var initialDelay: Duration = .seconds(1)
    /// Growth per attempt.
    public var factor: Double = 2
    /// No single wait is longer than this.
    public var maxDelay: Duration = .seconds(600)
    /// Equal jitter: wait a uniformly random time between half the computed
    /// delay and all of it, so a receiver coming back up is not hit by every
    /// retry at once, and none comes right after the failure: with full
    /// jitter (from zero) a 5xx or a 429 without `Retry-After` was tried
    /// again within 34 ms, where services ask for seconds (Pushover: 5).
    public var jitter: Bool = true
    /// Give up after this many attempts; nil means only `maxAge` bounds it.
    public var maxAttempts: Int?
    /// Give up once the delivery is this old.
    public var maxAge: Duration = .seconds(24 * 3600)
    /// No retry sooner than this, whatever the backoff or the receiver's
    /// hint: the least wait a service asks of its clients
    /// (``AlertPresenter/minimumRetryDelay``), not a setting.
    public var minimumDelay: Duration = .zero

    public init() {}

    /// `maxAge` for messages: whole seconds as written (`1h30m`); one of
    /// milliseconds as such ("2s" for 2500ms read as another setting).
    package var maxAgeText: String {
        maxAge.components.attoseconds == 0 ? AlertDuration(seconds: maxAge.components.seconds).description : maxAge.alertdDescription
    }

    /// The wait after failed attempt number `attempt` (1-based), before jitter.
    public func backoff(afterAttempt attempt: Int) -> Duration {
        var seconds = initialDelay.seconds
        // factor^(attempt-1), stopping once past the cap (no `pow` without C or full Foundation).
        for _ in 1..<max(1, attempt) where seconds < maxDelay.seconds { seconds *= factor }
        return .milliseconds(Int64(min(seconds, maxDelay.seconds) * 1000))
    }

    /// What to record after a failed attempt: retry at some time, or give up.
    /// `retryAfter` is the receiver's own hint and wins over the backoff
    /// when it asks for more than `initialDelay`; one that asks for less
    /// (`Retry-After: 0`, a date past) says nothing, and the backoff goes
    /// on: taken as `initialDelay`, it retried every second for `maxAge`.
    public func settle(
        reason: String, retryable: Bool, retryAfter: Duration?, attempt: Int, createdAt: Date, now: Date,
        random: (Double) -> Double = { Double.random(in: 0...$0) }
    ) -> DeliverySettlement.Result {
        guard retryable else { return .dead(error: reason) }
        if let maxAttempts, attempt >= maxAttempts {
            return .dead(error: "\(reason) (gave up after \(attempt) attempts)")
        }
        var delay: Double
        let retryAfter = retryAfter.flatMap { $0 > initialDelay ? $0 : nil }
        if let retryAfter {
            delay = retryAfter.seconds
        } else {
            let full = backoff(afterAttempt: attempt).seconds
            delay = jitter ? full / 2 + random(full / 2) : full
        }
        delay = max(delay, minimumDelay.seconds)
        let next = now.addingTimeInterval(delay)
        guard next.timeIntervalSince(createdAt) > maxAge.seconds else { return .retry(at: next, error: reason) }
        if let retryAfter, now.timeIntervalSince(createdAt) + initialDelay.seconds <= maxAge.seconds {
            // Only the receiver's wait goes past max_age; say so, not "too old".
            let asked = AlertDuration(seconds: retryAfter.wholeSecondsRoundedUp).description
            return .dead(error: "\(reason) (gave up: the receiver asked to retry after \(asked), past retry.max_age of \(maxAgeText))")
        }
        let age = AlertDuration(seconds: Int64(now.timeIntervalSince(createdAt))).description
        return .dead(error: "\(reason) (gave up: the next retry would fall past retry.max_age of \(maxAgeText); first tried \(age) ago)")
    }
}

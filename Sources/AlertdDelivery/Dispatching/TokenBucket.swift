/// A token bucket for one presenter's ``RateLimit``: full at the start, a
/// token taken per delivery claimed, refilled at the rate up to the burst.
struct TokenBucket: Sendable {
    let limit: RateLimit
    private var tokens: Double
    private var updated: ContinuousClock.Instant

    init(_ limit: RateLimit, now: ContinuousClock.Instant = .now) {
        self.limit = limit
        self.tokens = Double(limit.burst)
        self.updated = now
    }

    /// Whole tokens available at `now`: how many deliveries may be claimed.
    mutating func available(at now: ContinuousClock.Instant) -> Int {
        refill(now)
        return Int(tokens.rounded(.down))
    }

    /// Spends `count` tokens (deliveries claimed).
    mutating func take(_ count: Int, at now: ContinuousClock.Instant) {
        refill(now)
        tokens = max(0, tokens - Double(count))
    }

    /// How long until the next whole token, zero when one is there.
    mutating func untilNextToken(at now: ContinuousClock.Instant) -> Duration {
        refill(now)
        guard tokens < 1 else { return .zero }
        // At most a week: a rate made in code, not read from a configuration,
        // may be small enough for the wait to overflow.
        let milliseconds = ((1 - tokens) / limit.perSecond * 1000).rounded(.up)
        return .milliseconds(Int64(milliseconds < 604_800_000 ? milliseconds : 604_800_000))
    }

    private mutating func refill(_ now: ContinuousClock.Instant) {
        guard now > updated else { return }
        tokens = min(Double(limit.burst), tokens + (now - updated).seconds * limit.perSecond)
        updated = now
    }
}

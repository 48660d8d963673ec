import FoundationEssentials

extension Duration {
    /// `1.5s`, `250ms`: for messages.
    package var alertdDescription: String {
        let ms = milliseconds
        if ms % 1000 == 0 { return "\(ms / 1000)s" }
        if ms >= 1000 { return "\(Double(ms) / 1000)s" }
        return "\(ms)ms"
    }

    /// Whole milliseconds, rounded down, saturating.
    package var milliseconds: Int {
        let (seconds, attoseconds) = components
        let (ms, overflow) = Int(clamping: seconds).multipliedReportingOverflow(by: 1000)
        return overflow ? (seconds < 0 ? .min : .max) : ms.addingReportingOverflow(Int(attoseconds / 1_000_000_000_000_000)).partialValue
    }

    /// The longest duration alertd takes from outside, from its
    /// configuration or from a peer's hint (`Retry-After`, a service's
    /// `retry_after`): a century. Longer only says "not soon", and the
    /// bound keeps every sum and conversion made of it far from
    /// overflowing, whatever number was written.
    package static let century: Duration = .seconds(100 * 365 * 86_400)

    /// A wait a peer asked for, in seconds: nil when it is not a number,
    /// zero when negative, at most ``century``.
    package static func peerHint(seconds: Double) -> Duration? {
        peerHint(milliseconds: seconds * 1000)
    }

    /// A wait a peer asked for, in milliseconds (rounded up); as
    /// ``peerHint(seconds:)``.
    package static func peerHint(milliseconds: Double) -> Duration? {
        guard !milliseconds.isNaN else { return nil }
        guard milliseconds < Double(century.milliseconds) else { return century }
        return milliseconds > 0 ? .milliseconds(Int64(milliseconds.rounded(.up))) : .zero
    }

    /// Whole seconds, rounded up, saturating: for messages.
    package var wholeSecondsRoundedUp: Int64 {
        let (seconds, attoseconds) = components
        return attoseconds > 0 && seconds < .max ? seconds + 1 : seconds
    }

    /// The duration as fractional seconds.
    package var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }

    /// How long to sleep for `date` to have come, at most `cap` (a loop
    /// that sleeps so also wakes now and then to prove it lives): a
    /// millisecond past it, so that waking finds it due; zero once it has.
    package static func until(_ date: Date, atMost cap: Duration) -> Duration {
        let delta = date.timeIntervalSinceNow
        guard delta > 0 else { return .zero }
        return .milliseconds(Int64(min(delta, cap.seconds) * 1000) + 1)
    }
}

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

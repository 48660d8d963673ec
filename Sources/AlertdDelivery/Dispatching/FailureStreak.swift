/// A presenter's attempts that failed in a row, none delivered between,
/// and how often a single attempt found it failing still
/// (``Dispatcher``'s failing-presenter pacing).
struct FailureStreak {
    var failures = 0
    var trips = 0
    /// When the next retry may be tried, once tripped.
    var nextTry: ContinuousClock.Instant?
    /// Past the threshold: tried one delivery at a time.
    var tripped: Bool { trips > 0 }
    /// Failed attempts logged at debug level only since the last
    /// `presenter still failing` line: once tripped, that line speaks for
    /// them. A line each, a receiver down for a day made some 43,000.
    var unlogged = 0
    /// When that line is next due, once tripped.
    var nextReminder: ContinuousClock.Instant?
}

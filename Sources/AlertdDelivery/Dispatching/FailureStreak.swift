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
}

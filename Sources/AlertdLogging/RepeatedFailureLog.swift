/// A failure a loop meets every time round, logged when it starts and then
/// once a `period` with how many times it recurred, rather than at every
/// round: a database down for an hour is a few dozen lines per loop, not
/// thousands, and the line that it works again ends the run.
public struct RepeatedFailureLog: Sendable {
    private let period: Duration
    private var failing = false
    private var lastLogged = ContinuousClock.now
    private var unlogged = 0

    public init(period: Duration = .seconds(60)) {
        self.period = period
    }

    /// The round failed: logs `message` at error level if this starts a
    /// run of failures or `period` has passed since the last line. Returns
    /// whether it logged.
    @discardableResult
    public mutating func failed(_ log: Logger, _ message: String, _ metadata: Logger.Metadata) -> Bool {
        let now = ContinuousClock.now
        guard !failing || now - lastLogged >= period else {
            unlogged += 1
            return false
        }
        var metadata = metadata
        if unlogged > 0 { metadata["failures_since_last_logged"] = String(unlogged + 1) }
        log.error(message, metadata)
        failing = true
        lastLogged = now
        unlogged = 0
        return true
    }

    /// The round worked: after a run of failures, says so once. Returns
    /// whether it logged.
    @discardableResult
    public mutating func succeeded(_ log: Logger, _ message: String) -> Bool {
        guard failing else { return false }
        log.notice(message, unlogged > 0 ? ["failures_not_logged": String(unlogged)] : [:])
        failing = false
        unlogged = 0
        return true
    }
}

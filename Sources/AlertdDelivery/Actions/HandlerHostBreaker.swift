import Synchronization

/// Handler hosts that stopped answering. All handler calls share
/// `actions.max_concurrency` slots, and a call that gets no answer holds one
/// for `actions.timeout`: a sender whose alerts name a handler that never
/// answers (a tarpit) held them all, retry after retry, and another
/// alert's handler call waited 118 s where it took 1 s. So after
/// ``tripAfter`` calls in a row got no answer (a timeout, a refused or
/// dropped connection), calls to that host are not made, and wait
/// ``openFor`` untried (not attempts: a `max_attempts` of 2 had ended calls
/// dead that were never sent); then one call tries it while the rest wait
/// for its answer, and an answer of any status closes the breaker again.
///
/// That one call is, where there is one, a call to a URL of the host that
/// has not itself gone unanswered: one handler that hangs had been the
/// call that tried the host, wait after wait, and kept every other
/// handler on the host waiting with it until its delivery died.
public final class HandlerHostBreaker: Sendable {
    private struct Host {
        var unanswered = 0
        var openUntil: ContinuousClock.Instant?
        var probing = false
        /// URLs whose calls went unanswered since the host last answered.
        var silentURLs: Set<String> = []
        /// A call to another URL was held back since the last try.
        var othersWaiting = false
    }

    /// Silent URLs remembered a host, at most.
    static let mostSilentURLs = 64

    /// Calls in a row without an answer that open a host's breaker.
    public static let tripAfter = 3
    /// Hosts remembered at most: one that answers is forgotten, and past
    /// this those not (or no longer) held open go first.
    static let mostHosts = 10_000

    private let hosts = Mutex<[String: Host]>([:])
    /// How long calls to a host that stopped answering fail at once.
    public let openFor: Duration

    public init(openFor: Duration = .seconds(30)) {
        self.openFor = openFor
    }

    /// Nil when a call to `url` on `host` may go now; else how long until
    /// one may: while one call tries the host, as long as that call may
    /// take (`probeTakesAtMost`), where a full ``openFor`` had the others
    /// wait 30 s past an answer that came at once. A URL that went
    /// unanswered itself leaves the try to a call to another URL held back
    /// meanwhile, for as long as a try may take past the wait; then it may
    /// try too, should no other come.
    func admit(_ host: String, url: String, probeTakesAtMost: Duration, now: ContinuousClock.Instant = .now) -> Duration? {
        hosts.withLock { hosts in
            guard var h = hosts[host], let until = h.openUntil else { return nil }
            defer { hosts[host] = h }
            let silent = h.silentURLs.contains(url)
            if !silent { h.othersWaiting = true }
            if now < until { return until - now }
            // Open long enough: one call tries the host, the rest wait for it.
            let probeTime = min(probeTakesAtMost, openFor)
            if h.probing { return probeTime }
            if silent && h.othersWaiting && now < until + probeTime { return until + probeTime - now }
            h.probing = true
            h.othersWaiting = false
            return nil
        }
    }

    /// How a call to `url` on `host` went: answered (whatever the status),
    /// not answered, or nil when it says nothing of the host (refused here).
    func record(_ host: String, url: String, answered: Bool?, now: ContinuousClock.Instant = .now) {
        hosts.withLock { hosts in
            switch answered {
            case true?:
                hosts[host] = nil
            case false?:
                var h = hosts[host] ?? Host()
                h.unanswered += 1
                h.probing = false
                if h.silentURLs.count < Self.mostSilentURLs { h.silentURLs.insert(url) }
                if h.unanswered >= Self.tripAfter { h.openUntil = now + openFor }
                hosts[host] = h
                if hosts.count > Self.mostHosts {
                    hosts = hosts.filter { $0.value.openUntil.map { now < $0 } ?? false }
                }
            case nil:
                hosts[host]?.probing = false
            }
        }
    }
}

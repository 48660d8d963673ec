import AlertModel

/// What the `filter` matchers of one listing may cost, counted
/// in regex steps (``MatcherRegex/wholeMatch(_:work:)``). The regexes come
/// from the client: 32 of `(?:.*){1000}` held against a 1,000-character
/// label take 32 million steps an alert, and a reader token's listing of 100
/// such alerts held both threads of the cooperative pool for 25 s, past the
/// watchdog's timeout, with deliveries timing out behind it. A listing now
/// yields the pool every ``slice`` steps, its filters' and the silences' it
/// screens alike, and is refused past its limit of filter steps.
package struct FilterWork {
    /// About 1.5 s of one core (some 8 ns a step in that listing, a release
    /// build on this project's machine). A listing of 100,000 alerts under
    /// five ordinary regex filters (`instance=~"db-.*"`) takes some 25
    /// million: an eighth of it.
    package static let limit = 200_000_000
    /// About 2 ms of matching between yields.
    static let slice = 250_000

    private let limit: Int
    private var done = 0
    private var sinceYield = 0
    /// How often it has let other work run.
    private(set) var yields = 0

    init(limit: Int = Self.limit) { self.limit = limit }

    /// Whether `labels` satisfy every one of `filters`; throws once the
    /// listing's regexes have taken more than its limit of steps.
    mutating func allMatch(_ filters: [LabelMatcher], _ labels: [String: String]) async throws(APIError) -> Bool {
        for filter in filters {
            var steps = 0
            let matched = filter.matches(labels, work: &steps)
            done += steps
            sinceYield += steps
            guard done <= limit else {
                throw APIError(status: 422, code: "filter_too_costly", message: """
                    The `filter` regexes took more than \(limit) steps to match and the listing was stopped. \
                    Use fewer or simpler regexes (a literal prefix such as `host-1.*` is checked before the rest), or plain `name="value"` matchers.
                    """)
            }
            await yieldIfDue()
            try APIError.checkClientStayed()
            guard matched else { return false }
        }
        return true
    }

    /// The active silences of `index` that hold back an alert with `labels`.
    /// Their steps count toward the yields, not the limit: the silences are
    /// the operators', each within its bound, and a listing shows them all.
    /// Ten costly silences against 100 alerts of long labels held both
    /// threads of the pool for 6 s a listing, `/v1/health` and every POST
    /// waiting behind.
    mutating func silencing(_ labels: [String: String], in index: SilenceIndex) async -> [Silence] {
        var steps = 0
        let found = index.silencing(labels, work: &steps)
        sinceYield += steps
        await yieldIfDue()
        return found
    }

    private mutating func yieldIfDue() async {
        guard sinceYield >= Self.slice else { return }
        sinceYield = 0
        yields += 1
        await Task.yield()
    }

    /// Which silences of `index` hold `alert` back, by the same rule the
    /// store holds its deliveries by: only an open alert is held.
    mutating func silencing(heldBy index: SilenceIndex, _ alert: Alert) async -> [SilenceID] {
        alert.state == .open ? await silencing(alert.spec.labels, in: index).map(\.id) : []
    }
}

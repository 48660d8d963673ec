import AlertModel

/// What the `filter` matchers of one Alertmanager listing may cost, counted
/// in regex steps (``MatcherRegex/wholeMatch(_:work:)``). The regexes come
/// from the client: 32 of `(?:.*){1000}` held against a 1,000-character
/// label take 32 million steps an alert, and a reader token's listing of 100
/// such alerts held both threads of the cooperative pool for 25 s, past the
/// watchdog's timeout, with deliveries timing out behind it. A listing now
/// yields the pool every ``slice`` steps and is refused past its limit.
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
            if sinceYield >= Self.slice {
                sinceYield = 0
                await Task.yield()
            }
            guard matched else { return false }
        }
        return true
    }
}

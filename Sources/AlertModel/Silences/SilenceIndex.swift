import FoundationEssentials

/// The silences active at one moment, found for an alert by its labels
/// rather than by holding it against each one. Each silence is filed under
/// one of its matchers that every alert it matches must satisfy in a way
/// that can be looked up: a plain `name="value"`, or a regex's literal
/// starts (`instance=~"db-1\\..*"` under `instance` starting `db-1.`;
/// `instance=~"(web|db)-1.*"` under both `web-1` and `db-1`), whichever the
/// fewest other silences share. Only the silences filed under one of the
/// alert's labels (and those with no such matcher) are matched.
/// Listing 5,000 alerts against 1,000 silences held each alert against
/// every silence, several times Alertmanager's time; filed only by plain
/// pairs, 500 regex silences that all shared `job="node"` were still each
/// matched against every alert.
///
/// The filing is of every silence not yet expired, pending ones too, as
/// the store's budget (``SilenceBudget``) counts them: filed over the
/// active ones alone, a pending silence's start could no longer spread
/// others apart, and one alert could reach more than the budget allowed.
/// Starts are kept as scalars: as `String`s, a composed `é` and an `e`
/// with a combining accent were one key of two lengths, and a silence
/// filed under one form was not found by an alert written in the other.
public struct SilenceIndex: Sendable {
    /// The silences not yet expired, and which of them are active.
    private let silences: [Silence]
    private let active: [Bool]
    /// Whether no silence is active: asked for every delivery a claim
    /// screens, so found once here.
    public let isEmpty: Bool
    /// Positions in `silences`, by a plain matcher's name, then value.
    private let byPair: [String: [String: [Int]]]
    /// Positions in `silences`, by a regex matcher's name, then the length
    /// of one of its literal starts in scalars, then that start.
    private let byStart: [String: [Int: [[Unicode.Scalar]: [Int]]]]
    /// Positions of the silences with no matcher to file them under.
    private let unfiled: [Int]
    /// When it was filed, and when the first of its silences ends: between
    /// the two it files what a new index would (``moved(to:)``).
    private let filedAt: Date
    private let firstEnd: Date
    /// Costly screenings made against these silences as they are active now.
    private let screenings: SilenceScreenings

    /// Where each silence of a list is filed (``filed(_:keyCount:)``).
    /// Keys are numbered as they are first seen, so each is hashed once
    /// (hashing them over and over was most of a silence's save with a
    /// thousand in force).
    private struct Filing {
        /// Every key a silence has, by number.
        var keys = KeyNumbers()
        /// For each silence, the numbers of the keys it is filed under;
        /// none when it has no matcher to file it under.
        var filed: [[Int]] = []

        init(_ silences: [Silence]) {
            let numbered = silences.map { silence in
                NumberedKeys(SilenceIndex.keys(silence).map { group in group.map { keys.number($0).number } })
            }
            filed = SilenceIndex.filed(numbered, keyCount: keys.count)
        }
    }

    /// Keys numbered in the order they are first seen.
    struct KeyNumbers: Sendable {
        private var numbers: [Key: Int] = [:]
        /// Each key, by its number.
        private(set) var keys: [Key] = []

        var count: Int { keys.count }

        /// The key's number, and whether it was first seen now.
        mutating func number(_ key: Key) -> (number: Int, isNew: Bool) {
            if let n = numbers[key] { return (n, false) }
            numbers[key] = keys.count
            keys.append(key)
            return (keys.count - 1, true)
        }
    }

    /// A silence's keys by number: one group per matcher it can be filed
    /// under (``keys(_:)``), and each number once.
    struct NumberedKeys: Sendable {
        let groups: [[Int]]
        let distinct: [Int]

        init(_ groups: [[Int]]) {
            self.groups = groups
            var last = -1
            distinct = groups.joined().sorted().filter { n in
                defer { last = n }
                return n != last
            }
        }
    }

    /// For each silence, the group of its keys it is filed under: the one
    /// whose keys the fewest silences share, the first such, so the filing
    /// is the same every time; none without a group.
    static func filed(_ silences: some Collection<NumberedKeys>, keyCount: Int) -> [[Int]] {
        var shared = [Int](repeating: 0, count: keyCount)
        // Once a silence, however many of its matchers have the key.
        for silence in silences {
            for n in silence.distinct { shared[n] += 1 }
        }
        let cost = { (group: [Int]) in group.reduce(0) { $0 + shared[$1] } }
        return silences.map { $0.groups.min { cost($0) < cost($1) } ?? [] }
    }

    /// What a silence can be filed under.
    package enum Key: Hashable {
        case pair(name: String, value: String)
        case start(name: String, scalars: [Unicode.Scalar])
    }

    /// Files the silences of `all` not yet expired at `now`; those active
    /// at `now` are found.
    public init(_ all: [Silence], at now: Date) {
        let unexpired = all.filter { $0.state(at: now) != .expired }
        let filing = Filing(unexpired)
        self.init(unexpired, filedUnder: filing.filed.map { $0.map { filing.keys.keys[$0] } }, at: now)
    }

    /// Files the silences of `all` not yet expired at `now` as `budget`
    /// files them, when it counts just those: the same filing, kept
    /// between saves rather than worked out again from every silence (most
    /// of a claim after each save of a silence, with a thousand of them).
    /// Nil when it counts others.
    package init?(_ all: [Silence], filedAs budget: inout SilenceBudget, at now: Date) {
        let unexpired = all.filter { $0.state(at: now) != .expired }
        guard let filing = budget.filing(at: now), filing.count == unexpired.count else { return nil }
        var filedUnder: [[Key]] = []
        filedUnder.reserveCapacity(unexpired.count)
        for silence in unexpired {
            guard let keys = filing[silence.id] else { return nil }
            filedUnder.append(keys)
        }
        self.init(unexpired, filedUnder: filedUnder, at: now)
    }

    /// `unexpired`, each filed under the keys of `filedUnder` at its place.
    private init(_ unexpired: [Silence], filedUnder: [[Key]], at now: Date) {
        var byPair: [String: [String: [Int]]] = [:]
        var byStart: [String: [Int: [[Unicode.Scalar]: [Int]]]] = [:]
        var unfiled: [Int] = []
        for (i, keys) in filedUnder.enumerated() {
            if keys.isEmpty { unfiled.append(i) }
            for key in keys {
                switch key {
                case .pair(let name, let value):
                    byPair[name, default: [:]][value, default: []].append(i)
                case .start(let name, let scalars):
                    byStart[name, default: [:]][scalars.count, default: [:]][scalars, default: []].append(i)
                }
            }
        }
        silences = unexpired
        active = unexpired.map { $0.isActive(at: now) }
        isEmpty = !active.contains(true)
        self.byPair = byPair
        self.byStart = byStart
        self.unfiled = unfiled
        filedAt = now
        firstEnd = unexpired.lazy.map(\.endsAt).min() ?? .distantFuture
        screenings = SilenceScreenings()
    }

    private init(_ filed: SilenceIndex, at now: Date) {
        silences = filed.silences
        active = filed.silences.map { $0.isActive(at: now) }
        isEmpty = !active.contains(true)
        byPair = filed.byPair
        byStart = filed.byStart
        unfiled = filed.unfiled
        filedAt = filed.filedAt
        firstEnd = filed.firstEnd
        screenings = active == filed.active ? filed.screenings : SilenceScreenings()
    }

    /// The same silences at a later `now`, with those that started since
    /// found and the filing kept (and its costly screenings, while no
    /// silence started); nil once one of them has ended (or for a
    /// clock set back), when the silences must be filed anew, as
    /// ``init(_:at:)`` would not file an expired one. Filing a thousand
    /// regex silences, and reading them, cost each claim more than its
    /// screening.
    public func moved(to now: Date) -> SilenceIndex? {
        guard now >= filedAt, now < firstEnd else { return nil }
        return SilenceIndex(self, at: now)
    }

    /// For each matcher of `silence` it can be filed under, the keys every
    /// alert it matches is found under one of: a plain matcher's pair (a
    /// non-empty value, so the alert has the label), and a case-sensitive
    /// regex matcher's literal starts (a match begins with one, so again the
    /// alert has the label).
    static func keys(_ silence: Silence) -> [[Key]] {
        silence.matchers.compactMap { matcher -> [Key]? in
            switch matcher.op {
            case .equal where !matcher.value.isEmpty:
                return [.pair(name: matcher.name, value: matcher.value)]
            case .matchesRegex:
                return matcher.compiled?.starts.map { $0.map { Key.start(name: matcher.name, scalars: $0) } }
            default:
                return nil
            }
        }
    }

    /// What `[Silence].silencing(_:at:)` gives for these labels, in the same
    /// order: the active silences that match.
    public func silencing(_ labels: [String: String]) -> [Silence] {
        var work = 0
        return silencing(labels, work: &work)
    }

    /// ``silencing(_:)``, adding to `work` the steps of the regexes it held
    /// the labels against (``MatcherRegex/wholeMatch(_:work:)``): none for
    /// labels a costly screening found before (``SilenceScreenings``).
    public func silencing(_ labels: [String: String], work: inout Int) -> [Silence] {
        guard !isEmpty else { return [] }
        if let known = screenings.found(for: labels) { return known.map { silences[$0] } }
        let workBefore = work
        var candidates = unfiled
        for (name, value) in labels {
            if let filed = byPair[name]?[value] { candidates += filed }
            guard let lengths = byStart[name] else { continue }
            let scalars = value.unicodeScalars
            for (length, table) in lengths {
                guard let end = scalars.index(scalars.startIndex, offsetBy: length, limitedBy: scalars.endIndex),
                      let filed = table[Array(scalars[..<end])] else { continue }
                candidates += filed
            }
        }
        if candidates.count > 1 { candidates.sort() }
        // Matched in place: copying each candidate first cost more than matching it.
        var found: [Int] = []
        var last = -1
        for i in candidates where i != last {
            // Filed under two starts (`(ab|abc).*`), a silence may come twice.
            last = i
            if active[i], silences[i].matches(labels, work: &work) { found.append(i) }
        }
        if work - workBefore >= SilenceScreenings.worthKeeping { screenings.keep(found, for: labels) }
        return found.map { silences[$0] }
    }
}

import FoundationEssentials

/// The silences active at one moment, found for an alert by its labels
/// rather than by holding it against each one. Each silence is filed under
/// one of its matchers that every alert it matches must satisfy in a way
/// that can be looked up: a plain `name="value"`, or a regex's literal
/// prefix (`instance=~"db-1\\..*"` under `instance` starting `db-1.`),
/// whichever the fewest other silences share. Only the silences filed under
/// one of the alert's labels (and those with no such matcher) are matched.
/// Listing 5,000 alerts against 1,000 silences held each alert against
/// every silence, several times Alertmanager's time; filed only by plain
/// pairs, 500 regex silences that all shared `job="node"` were still each
/// matched against every alert.
public struct SilenceIndex: Sendable {
    private let silences: [Silence]
    /// Positions in `silences`, by a plain matcher's name, then value.
    private let byPair: [String: [String: [Int]]]
    /// Positions in `silences`, by a regex matcher's name, then its literal
    /// prefix's length in scalars, then the prefix.
    private let byPrefix: [String: [Int: [String: [Int]]]]
    /// Positions of the silences with no matcher to file them under.
    private let unfiled: [Int]

    /// What a silence can be filed under.
    private enum Key: Hashable {
        case pair(name: String, value: String)
        case prefix(name: String, scalars: String)
    }

    /// Files the silences of `all` active at `now`.
    public init(_ all: [Silence], at now: Date) {
        let active = all.filter { $0.isActive(at: now) }
        let keys = active.map(Self.keys)
        var shared: [Key: Int] = [:]
        for silenceKeys in keys {
            for key in Set(silenceKeys) { shared[key, default: 0] += 1 }
        }
        var byPair: [String: [String: [Int]]] = [:]
        var byPrefix: [String: [Int: [String: [Int]]]] = [:]
        var unfiled: [Int] = []
        for (i, silenceKeys) in keys.enumerated() {
            // The first of the least shared keys, so the filing is the same every time.
            switch silenceKeys.min(by: { shared[$0]! < shared[$1]! }) {
            case .pair(let name, let value)?:
                byPair[name, default: [:]][value, default: []].append(i)
            case .prefix(let name, let scalars)?:
                byPrefix[name, default: [:]][scalars.unicodeScalars.count, default: [:]][scalars, default: []].append(i)
            case nil:
                unfiled.append(i)
            }
        }
        self.silences = active
        self.byPair = byPair
        self.byPrefix = byPrefix
        self.unfiled = unfiled
    }

    /// The keys every alert `silence` matches is found under: its plain
    /// matchers' pairs (a non-empty value, so the alert has the label), and
    /// its case-sensitive regex matchers' literal prefixes (a match starts
    /// with the prefix, so again the alert has the label).
    private static func keys(_ silence: Silence) -> [Key] {
        silence.matchers.compactMap { matcher -> Key? in
            switch matcher.op {
            case .equal where !matcher.value.isEmpty:
                return .pair(name: matcher.name, value: matcher.value)
            case .matchesRegex:
                guard let regex = matcher.compiled, !regex.caseInsensitive, !regex.prefix.isEmpty else { return nil }
                let prefix = regex.prefix.compactMap(Unicode.Scalar.init)
                guard prefix.count == regex.prefix.count else { return nil }
                return .prefix(name: matcher.name, scalars: String(String.UnicodeScalarView(prefix)))
            default:
                return nil
            }
        }
    }

    public var isEmpty: Bool { silences.isEmpty }

    /// What `[Silence].silencing(_:at:)` gives for these labels, in the same
    /// order: the active silences that match.
    public func silencing(_ labels: [String: String]) -> [Silence] {
        var work = 0
        return silencing(labels, work: &work)
    }

    /// ``silencing(_:)``, adding to `work` the steps of the regexes it held
    /// the labels against (``MatcherRegex/wholeMatch(_:work:)``).
    public func silencing(_ labels: [String: String], work: inout Int) -> [Silence] {
        guard !silences.isEmpty else { return [] }
        var candidates = unfiled
        for (name, value) in labels {
            if let filed = byPair[name]?[value] { candidates += filed }
            guard let lengths = byPrefix[name] else { continue }
            let scalars = value.unicodeScalars
            for (length, table) in lengths {
                guard let end = scalars.index(scalars.startIndex, offsetBy: length, limitedBy: scalars.endIndex),
                      let filed = table[String(scalars[..<end])] else { continue }
                candidates += filed
            }
        }
        if candidates.count > 1 { candidates.sort() }
        // Matched in place: copying each candidate first cost more than matching it.
        var found: [Silence] = []
        for i in candidates where silences[i].matches(labels, work: &work) { found.append(silences[i]) }
        return found
    }
}

import FoundationEssentials

/// The silences active at one moment, found for an alert by its labels
/// rather than by holding it against each one: every silence with a plain
/// `name="value"` matcher is filed under that pair, and only those filed
/// under one of the alert's labels (and those with no such matcher) are
/// matched. Listing 5,000 alerts against 1,000 silences held each alert
/// against every silence, several times Alertmanager's time.
public struct SilenceIndex: Sendable {
    private let silences: [Silence]
    /// Positions in `silences`, by a plain matcher's name, then value.
    private let byPair: [String: [String: [Int]]]
    /// Positions of the silences with no plain matcher to file them under.
    private let unfiled: [Int]

    /// Files the silences of `all` active at `now`.
    public init(_ all: [Silence], at now: Date) {
        let active = all.filter { $0.isActive(at: now) }
        var byPair: [String: [String: [Int]]] = [:]
        var unfiled: [Int] = []
        for (i, silence) in active.enumerated() {
            if let pair = silence.matchers.first(where: { $0.op == .equal && !$0.value.isEmpty }) {
                byPair[pair.name, default: [:]][pair.value, default: []].append(i)
            } else {
                unfiled.append(i)
            }
        }
        self.silences = active
        self.byPair = byPair
        self.unfiled = unfiled
    }

    public var isEmpty: Bool { silences.isEmpty }

    /// What `[Silence].silencing(_:at:)` gives for these labels, in the same
    /// order: the active silences that match.
    public func silencing(_ labels: [String: String]) -> [Silence] {
        guard !silences.isEmpty else { return [] }
        var candidates = unfiled
        for (name, value) in labels {
            if let filed = byPair[name]?[value] { candidates += filed }
        }
        if candidates.count > 1 { candidates.sort() }
        // Matched in place: copying each candidate first cost more than matching it.
        var found: [Silence] = []
        for i in candidates where silences[i].matches(labels) { found.append(silences[i]) }
        return found
    }
}

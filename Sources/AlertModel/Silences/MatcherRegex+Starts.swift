extension MatcherRegex {
    /// The most literal starts a regex is filed under (``starts``); a
    /// pattern with more is filed as one with none.
    static let maxStarts = 16

    /// The most scalars of a start kept: a shorter one is still a start.
    static let maxStartLength = 64

    /// The literal texts one of which every match starts with, for
    /// ``SilenceIndex``: `(web|db)-1[0-9]*` starts `web-1` or `db-1`, and
    /// `(Disk|Cpu).*` `Disk` or `Cpu`. nil when a match may start otherwise
    /// (with a class, `.`, an optional part, or the empty text), when there
    /// would be more than ``maxStarts``, and for `(?i)` patterns.
    static func literalStarts(of node: Node, caseInsensitive: Bool) -> [[Unicode.Scalar]]? {
        guard !caseInsensitive, let found = starts(of: node)?.starts else { return nil }
        // Scalars, not `String`s: two spellings of one text (a composed `é`,
        // an `e` and a combining accent) are two starts of their own.
        var texts = Set<[Unicode.Scalar]>()
        for start in found {
            let scalars = start.prefix(maxStartLength).compactMap(Unicode.Scalar.init)
            guard !scalars.isEmpty, scalars.count == min(start.count, maxStartLength) else { return nil }
            texts.insert(scalars)
        }
        return texts.sorted { $0.lexicographicallyPrecedes($1) { $0.value < $1.value } }
    }

    /// `node`'s literal starts, and whether each is the whole of what a
    /// match of `node` can be, so that what follows `node` extends them.
    private static func starts(of node: Node) -> (starts: [[UInt32]], whole: Bool)? {
        switch node {
        case .empty, .start, .end:
            // Nothing consumed: what follows starts the match.
            return ([[]], true)
        case .scalar(let value):
            return ([[value]], true)
        case .any, .set:
            return nil
        case .alternate(let branches):
            var all: [[UInt32]] = []
            var whole = true
            for branch in branches {
                guard let (starts, branchWhole) = starts(of: branch) else { return nil }
                all += starts
                whole = whole && branchWhole
                if all.count > maxStarts { return nil }
            }
            return (all, whole)
        case .concat(let parts):
            var current: [[UInt32]] = [[]]
            for part in parts {
                guard let (next, whole) = starts(of: part), current.count * next.count <= maxStarts else { return (current, false) }
                current = current.flatMap { start in next.map { start + $0 } }
                if !whole || current.contains(where: { $0.count >= maxStartLength }) { return (current, false) }
            }
            return (current, true)
        case .repetition(let inner, let min, let max):
            // Optional: a match may start with what follows instead.
            guard min > 0, let (starts, whole) = starts(of: inner) else { return ([[]], false) }
            return (starts, whole && min == 1 && max == 1)
        }
    }
}

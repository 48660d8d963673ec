import FoundationEssentials
import AlertModel

/// The inhibition rules in force with the open alerts that are a source of
/// some rule: what ``StoreRules/screen(_:kind:heldBy:of:silences:inhibitions:now:in:)``
/// holds a delivery against. Built once per claim, and once per listing.
package struct Inhibitions: Sendable {
    package let rules: [InhibitRule]
    package let sources: [Alert]
    /// For each rule, the position in `sources` of the rule's first source
    /// (oldest, then first listed) by the values of its `equal` labels.
    /// Holding each target against every source made 2,500 sources and
    /// 2,500 targets cost seconds to deliver and a listing 13 s.
    private let byRule: [[[String]: Int]]
    /// The same, of the sources that do not match the rule's target side:
    /// the only ones that hold back a target matching its source side
    /// (``InhibitRule/inhibits(_:by:)``), which is thus never its own.
    private let oneSidedByRule: [[[String]: Int]]

    /// No rules: nothing is inhibited, and nothing need be read.
    package static let none = Inhibitions(rules: [], openAlerts: [])

    /// How long a delivery held by a source without an end waits before it
    /// is looked at again, as a backstop: closing the source releases it at once.
    package static let recheck: TimeInterval = 3600

    /// Keeps, of `openAlerts`, those that are a source of one of `rules`.
    package init(rules: [InhibitRule], openAlerts: [Alert]) {
        self.rules = rules
        let sources = rules.isEmpty ? [] : openAlerts.filter { $0.state == .open && Self.isSource($0, under: rules) }
        var byRule = Array(repeating: [[String]: Int](), count: rules.count)
        var oneSidedByRule = byRule
        func keep(_ position: Int, at key: [String], in index: inout [[String]: Int]) {
            if index[key].map({ Self.earlier(position, than: $0, in: sources) }) ?? true { index[key] = position }
        }
        for (position, source) in sources.enumerated() {
            for (k, rule) in rules.enumerated() where rule.isSource(source.spec.labels) {
                let key = rule.equal.map { source.spec.labels[$0] ?? "" }
                keep(position, at: key, in: &byRule[k])
                if !rule.isTarget(source.spec.labels) { keep(position, at: key, in: &oneSidedByRule[k]) }
            }
        }
        self.sources = sources
        self.byRule = byRule
        self.oneSidedByRule = oneSidedByRule
    }

    /// Whether `alert` is a source of one of `rules`.
    package static func isSource(_ alert: Alert, under rules: [InhibitRule]) -> Bool {
        rules.contains { $0.isSource(alert.spec.labels) }
    }

    /// The open alert that inhibits `target` (the oldest, when several do), if any.
    package func source(inhibiting target: Alert) -> Alert? {
        var best: Int?
        for (k, rule) in rules.enumerated() where rule.isTarget(target.spec.labels) {
            let key = rule.equal.map { target.spec.labels[$0] ?? "" }
            let index = rule.isSource(target.spec.labels) ? oneSidedByRule[k] : byRule[k]
            guard let first = index[key] else { continue }
            if best.map({ Self.earlier(first, than: $0, in: sources) }) ?? true { best = first }
        }
        return best.map { sources[$0] }
    }

    /// Whether the source at `a` came before the one at `b`: created
    /// earlier, or at the same time and listed first.
    private static func earlier(_ a: Int, than b: Int, in sources: [Alert]) -> Bool {
        (sources[a].createdAt, a) < (sources[b].createdAt, b)
    }
}

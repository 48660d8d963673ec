import FoundationEssentials
import AlertModel

/// The inhibition rules in force with the open alerts that are a source of
/// some rule: what ``StoreRules/screen(_:kind:heldBy:of:silences:inhibitions:now:in:)``
/// holds a delivery against. Built once per claim, and once per listing.
package struct Inhibitions: Sendable {
    package let rules: [InhibitRule]
    package let sources: [Alert]
    /// For each rule, the positions in `sources` of the rule's sources
    /// (oldest first, then as listed) by the values of its `equal` labels.
    /// Holding each target against every source made 2,500 sources and
    /// 2,500 targets cost seconds to deliver and a listing 13 s.
    private let byRule: [[Key: [Int]]]
    /// The same, of the sources that do not match the rule's target side:
    /// the only ones that hold back a target matching its source side
    /// (``InhibitRule/inhibits(_:by:)``), which is thus never its own.
    private let oneSidedByRule: [[Key: [Int]]]

    /// The `equal` labels' values byte for byte, as ``LabelMatcher/same(_:_:)``
    /// compares them: keyed by `String`, `café` composed and decomposed were
    /// one key, and a source held a target Alertmanager would not.
    private struct Key: Hashable {
        let bytes: [UInt8]

        init(_ rule: InhibitRule, _ labels: [String: String]) {
            var bytes: [UInt8] = []
            // 0xFF is never a byte of UTF-8: values cannot run into each other.
            for name in rule.equal { bytes += (labels[name] ?? "").utf8; bytes.append(0xFF) }
            self.bytes = bytes
        }
    }

    /// No rules: nothing is inhibited, and nothing need be read.
    package static let none = Inhibitions(rules: [], openAlerts: [])

    /// How long a delivery held by a source without an end waits before it
    /// is looked at again, as a backstop: closing the source releases it at once.
    package static let recheck: TimeInterval = 3600

    /// Keeps, of `openAlerts`, those that are a source of one of `rules`.
    package init(rules: [InhibitRule], openAlerts: [Alert]) {
        self.rules = rules
        let sources = rules.isEmpty ? [] : openAlerts.filter { $0.state == .open && Self.isSource($0, under: rules) }
        var byRule = Array(repeating: [Key: [Int]](), count: rules.count)
        var oneSidedByRule = byRule
        for (position, source) in sources.enumerated() {
            for (k, rule) in rules.enumerated() where rule.isSource(source.spec.labels) {
                let key = Key(rule, source.spec.labels)
                byRule[k][key, default: []].append(position)
                if !rule.isTarget(source.spec.labels) { oneSidedByRule[k][key, default: []].append(position) }
            }
        }
        let order = { (a: Int, b: Int) in Self.earlier(a, than: b, in: sources) }
        self.sources = sources
        self.byRule = byRule.map { $0.mapValues { $0.sorted(by: order) } }
        self.oneSidedByRule = oneSidedByRule.map { $0.mapValues { $0.sorted(by: order) } }
    }

    /// Whether `alert` is a source of one of `rules`.
    package static func isSource(_ alert: Alert, under rules: [InhibitRule]) -> Bool {
        rules.contains { $0.isSource(alert.spec.labels) }
    }

    /// The open alert that inhibits `target` (the oldest, when several do),
    /// if any, leaving out those of `closed`: sources found closed since
    /// these were read, so the next one holds the target if one does.
    package func source(inhibiting target: Alert, excluding closed: Set<AlertID> = []) -> Alert? {
        var best: Int?
        for (k, rule) in rules.enumerated() where rule.isTarget(target.spec.labels) {
            let index = rule.isSource(target.spec.labels) ? oneSidedByRule[k] : byRule[k]
            guard let first = index[Key(rule, target.spec.labels)]?.first(where: { !closed.contains(sources[$0].id) }) else { continue }
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

import FoundationEssentials
import AlertModel

/// The inhibition rules in force with the open alerts that are a source of
/// some rule: what ``StoreRules/screen(_:kind:heldBy:of:silences:inhibitions:now:in:)``
/// holds a delivery against. Built once per claim.
package struct Inhibitions: Sendable {
    package let rules: [InhibitRule]
    package let sources: [Alert]

    /// No rules: nothing is inhibited, and nothing need be read.
    package static let none = Inhibitions(rules: [], openAlerts: [])

    /// How long a delivery held by a source without an end waits before it
    /// is looked at again, as a backstop: closing the source releases it at once.
    package static let recheck: TimeInterval = 3600

    /// Keeps, of `openAlerts`, those that are a source of one of `rules`.
    package init(rules: [InhibitRule], openAlerts: [Alert]) {
        self.rules = rules
        self.sources = rules.isEmpty ? [] : openAlerts.filter { a in
            a.state == .open && rules.contains { $0.isSource(a.spec.labels) }
        }
    }

    /// The open alert that inhibits `target` (the oldest, when several do), if any.
    package func source(inhibiting target: Alert) -> Alert? {
        sources.filter { source in
            source.id != target.id && rules.contains { $0.inhibits(target.spec.labels, by: source.spec.labels) }
        }.min { $0.createdAt < $1.createdAt }
    }
}

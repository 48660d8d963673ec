import Foundation
import Testing
@testable import AlertModel
@testable import AlertdStore

/// ``Inhibitions`` finds a target's source by rule and `equal` values; it
/// must find what holding the target against every source finds.
@Suite struct InhibitionsTests {
    /// The rule as written: every source, every rule, the oldest (first listed on a tie).
    func bruteForce(_ rules: [InhibitRule], _ sources: [Alert], _ target: Alert) -> Alert? {
        sources.filter { source in
            source.id != target.id && rules.contains { $0.inhibits(target.spec.labels, by: source.spec.labels) }
        }.min { $0.createdAt < $1.createdAt }
    }

    func alert(_ labels: [String: String], at t: Double) throws -> Alert {
        Alert(id: .generate(), spec: try AlertSpec.Builder().title("a").labels(labels).build().get(), createdAt: Date(timeIntervalSince1970: t))
    }

    /// The index compares `equal` values byte for byte, as the rule does:
    /// keyed by `String`, `café` composed and decomposed were one value.
    @Test func theIndexComparesEqualValuesByteForByte() throws {
        let rule = InhibitRule(sourceMatchers: [try LabelMatcher(parsing: "sev=crit")], targetMatchers: [try LabelMatcher(parsing: "sev=warn")],
                               equal: ["svc"])
        let source = try alert(["sev": "crit", "svc": "caf\u{e9}"], at: 1)
        let inhibitions = Inhibitions(rules: [rule], openAlerts: [source])
        #expect(inhibitions.source(inhibiting: try alert(["sev": "warn", "svc": "cafe\u{301}"], at: 2)) == nil)
        #expect(inhibitions.source(inhibiting: try alert(["sev": "warn", "svc": "caf\u{e9}"], at: 2))?.id == source.id)
    }

    /// The oldest source closed since the inhibitions were read (on another
    /// node): the next open one holds the target; none left, nothing does.
    @Test func aSourceClosedSinceLeavesTheTargetToTheNextOpenOne() throws {
        let rule = InhibitRule(sourceMatchers: [try LabelMatcher(parsing: "sev=crit")], targetMatchers: [try LabelMatcher(parsing: "sev=warn")],
                               equal: ["svc"])
        let a = try alert(["sev": "crit", "svc": "x", "n": "a"], at: 1)
        let b = try alert(["sev": "crit", "svc": "x", "n": "b"], at: 2)
        let target = try alert(["sev": "warn", "svc": "x"], at: 3)
        let inhibitions = Inhibitions(rules: [rule], openAlerts: [a, b])
        var state = InMemoryStoreState()
        var closedA = a
        closedA.state = .resolved
        state.alerts[a.id] = closedA
        state.alerts[b.id] = b
        state.alerts[target.id] = target
        func claimable() throws -> Bool {
            try StoreRules.screen(DeliveryID(rawValue: "d"), kind: .presenter("log"), heldBy: nil, of: target, silences: SilenceIndex([], at: Date()),
                                  inhibitions: inhibitions, now: Date(), in: &state)
        }
        #expect(try !claimable(), "b is open and inhibits it")
        var closedB = b
        closedB.state = .resolved
        state.alerts[b.id] = closedB
        #expect(try claimable())
    }

    @Test func theIndexFindsWhatHoldingEverySourceFinds() throws {
        var generator = SystemRandomNumberGenerator()
        let names = ["alertname", "instance", "rack"]
        let values = ["a", "b", "c"]
        func matcher() throws -> LabelMatcher {
            let name = names.randomElement(using: &generator)!, value = values.randomElement(using: &generator)!
            return try LabelMatcher(name: name, Bool.random(using: &generator) ? .equal : .notEqual, value)
        }
        let start = Date()
        for _ in 0..<20 {
            let rules = try (0..<Int.random(in: 1...4, using: &generator)).map { _ in
                InhibitRule(sourceMatchers: [try matcher()], targetMatchers: [try matcher()],
                            equal: Array(names.shuffled(using: &generator).prefix(Int.random(in: 0...2, using: &generator))))
            }
            // Few distinct times, so ties between sources happen.
            let alerts = try (0..<200).map { i in
                var labels: [String: String] = [:]
                for name in names where Int.random(in: 0..<4, using: &generator) > 0 { labels[name] = values.randomElement(using: &generator)! }
                let spec = try AlertSpec.Builder().title("alert \(i)").labels(labels).build().get()
                return Alert(id: .generate(), spec: spec, createdAt: start.addingTimeInterval(Double(Int.random(in: 0..<5, using: &generator))))
            }
            let inhibitions = Inhibitions(rules: rules, openAlerts: alerts)
            for target in alerts {
                #expect(inhibitions.source(inhibiting: target)?.id == bruteForce(rules, inhibitions.sources, target)?.id)
            }
        }
    }
}

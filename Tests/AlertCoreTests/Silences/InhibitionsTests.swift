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

import Foundation
import Testing
@testable import AlertModel

/// A budget kept across saves counts what one made afresh from the same
/// silences counts: saves, changes of matchers under the same id, expiries
/// and starting over from the live silences included.
@Suite struct SilenceBudgetTests {
    func matchers(_ kind: Int, _ k: Int) throws -> [LabelMatcher] {
        switch kind {
        case 0: // filed under a start of its own, sharing the alertname starts
            [try LabelMatcher(name: "instance", .matchesRegex, #"(web|db)-\#(k)[0-9]*\.example\.com"#),
             try LabelMatcher(name: "alertname", .matchesRegex, "(Disk|Cpu).*")]
        case 1: // all under one pair
            [try LabelMatcher(name: "job", .equal, "node"), try LabelMatcher(name: "x", .matchesRegex, "(?:a|b){\(300 + k % 300)}")]
        case 2: // unfiled
            [try LabelMatcher(name: "instance", .matchesRegex, ".*-\(k % 7)")]
        default: // starts of another length under the same name
            [try LabelMatcher(name: "instance", .matchesRegex, "db-\(k % 5)(a|b)+.*"), try LabelMatcher(name: "y", .equal, "\(k % 3)")]
        }
    }

    @Test func aKeptBudgetCountsWhatAFreshOneDoes() throws {
        var random = SplitMix(seed: 11)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var now = start
        var current: [SilenceID: Silence] = [:]
        var kept = SilenceBudget([])
        var compared = 0
        for step in 0..<600 {
            now = now.addingTimeInterval(Double(Int.random(in: 0...3, using: &random)))
            var new = Silence(matchers: try matchers(Int.random(in: 0...3, using: &random), Int.random(in: 0...400, using: &random)),
                              startsAt: now, endsAt: now.addingTimeInterval(Double(Int.random(in: 5...900, using: &random))),
                              createdBy: "a", comment: "c")
            let live = current.values.filter { $0.endsAt > now }
            // Now and then a change of an existing one, under its own id or a new one.
            let replaced = step % 5 == 0 ? live.randomElement(using: &random)?.id : nil
            if let replaced, Bool.random(using: &random) { new.id = replaced }
            var fresh = SilenceBudget(live)
            let expected = fresh.stepsInForce(at: now, saving: new, replacing: replaced)
            #expect(kept.stepsInForce(at: now, saving: new, replacing: replaced) == expected, "step \(step)")
            compared += expected > Silence.maxRegexStepsInForce ? 1 : 0
            if let replaced, replaced != new.id, var old = current[replaced] {
                old.endsAt = now
                current[replaced] = old
                kept.save(old)
            }
            current[new.id] = new
            kept.save(new)
        }
        // Past the budget often enough that the filing, not the sum, was compared.
        #expect(compared > 50)
    }

    /// The budget follows the filing: silences filed apart cost an alert
    /// one of them; filed under one key, all of them.
    @Test func theBudgetFollowsTheFiling() throws {
        let now = Date()
        let costly = { (k: Int) throws -> Silence in
            Silence(matchers: [try LabelMatcher(name: "job", .equal, "j\(k)"), try LabelMatcher(name: "x", .matchesRegex, "(?:a|b){1000}")],
                    startsAt: now, endsAt: now.addingTimeInterval(60), createdBy: "a", comment: "c")
        }
        var budget = SilenceBudget(try (0..<20).map(costly))
        let one = try costly(0).regexSteps
        #expect(budget.stepsInForce(at: now, saving: try costly(20)) == one)
        // Once they have all expired, only the one saved counts.
        #expect(budget.stepsInForce(at: now.addingTimeInterval(61), saving: try costly(21)) == one)
        #expect(SilenceBudget.steps(of: try (0..<20).map { _ in try costly(0) }) == 20 * one)
    }
}

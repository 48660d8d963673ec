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
            #expect(expected == Self.filedAnew(live.filter { $0.id != replaced && $0.id != new.id } + [new]), "step \(step)")
            #expect(kept.stepsInForce(at: now, saving: new, replacing: replaced) == expected, "step \(step)")
            compared += expected > Silence.maxRegexStepsInForce ? 1 : 0
            Self.save(new, replacing: replaced, at: now, in: &current, &kept)
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

    /// Silences with a choice of keys from small pools, so that a save or an
    /// expiry moves others from one key to another: the kept budget, filing
    /// again only those a change can move, counts what filing every live
    /// silence anew does.
    @Test func silencesMovedByOthersAreFiledAsAnewFilingFilesThem() throws {
        var random = SplitMix(seed: 29)
        var now = Date(timeIntervalSince1970: 1_800_000_000)
        var current: [SilenceID: Silence] = [:]
        var kept = SilenceBudget([])
        var compared = 0
        for step in 0..<1_500 {
            now = now.addingTimeInterval(Double(Int.random(in: 0...2, using: &random)))
            let pick = { (pool: Int) in Int.random(in: 0..<pool, using: &random) }
            var matchers = [try LabelMatcher(name: "x", .matchesRegex, "(?:a|b){\(200 + pick(400))}")]
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                switch pick(4) {
                case 0: matchers.append(try LabelMatcher(name: "job", .equal, "j\(pick(6))"))
                case 1: matchers.append(try LabelMatcher(name: "instance", .matchesRegex, "(h\(pick(8))|g\(pick(8))).*"))
                case 2: matchers.append(try LabelMatcher(name: "instance", .matchesRegex, "db\(pick(3))-.*"))
                default: matchers.append(try LabelMatcher(name: "team", .equal, "t\(pick(3))"))
                }
            }
            var new = Silence(matchers: matchers, startsAt: now,
                              endsAt: now.addingTimeInterval(Double(Int.random(in: 1...120, using: &random))),
                              createdBy: "a", comment: "c")
            let live = current.values.filter { $0.endsAt > now }
            let replaced = step % 4 == 0 ? live.randomElement(using: &random)?.id : nil
            if let replaced, Bool.random(using: &random) { new.id = replaced }
            let expected = Self.filedAnew(live.filter { $0.id != replaced && $0.id != new.id } + [new])
            #expect(kept.stepsInForce(at: now, saving: new, replacing: replaced) == expected, "step \(step)")
            compared += expected > Silence.maxRegexStepsInForce ? 1 : 0
            // Refused now and then, as a store refuses one past the bound.
            guard step % 7 != 3 else { continue }
            Self.save(new, replacing: replaced, at: now, in: &current, &kept)
            // An index filed as the budget files finds what one filed anew does.
            guard step % 10 == 0 else { continue }
            let all = Array(current.values)
            let index = try #require(SilenceIndex(all, filedAs: &kept, at: now))
            let anew = SilenceIndex(all, at: now)
            for _ in 0..<20 {
                let labels = ["job": "j\(pick(6))", "instance": ["h", "g", "db"].randomElement(using: &random)! + "\(pick(8))-x",
                              "team": "t\(pick(3))", "x": String(repeating: "ab", count: 100 + pick(200))]
                #expect(index.silencing(labels).map(\.id) == anew.silencing(labels).map(\.id))
            }
        }
        #expect(compared > 200)
    }

    /// Saves `new` as a store does: the silence it replaces under another
    /// id ends now.
    static func save(_ new: Silence, replacing replaced: SilenceID?, at now: Date,
                     in current: inout [SilenceID: Silence], _ kept: inout SilenceBudget) {
        if let replaced, replaced != new.id, var old = current[replaced] {
            old.endsAt = now
            current[replaced] = old
            kept.save(old)
        }
        current[new.id] = new
        kept.save(new)
    }

    /// The budget as first written: every live silence filed anew
    /// (``SilenceIndex/filed(_:keyCount:)``), then for each name, and each
    /// length of start, the costliest key.
    static func filedAnew(_ live: [Silence]) -> Int {
        let all = live.reduce(0) { $0 + $1.regexSteps }
        guard all > Silence.maxRegexStepsInForce else { return all }
        var keys = SilenceIndex.KeyNumbers()
        let numbered = live.map { SilenceIndex.NumberedKeys(SilenceIndex.keys($0).map { $0.map { keys.number($0).number } }) }
        var filed = [Int](repeating: 0, count: keys.count)
        var unfiled = 0
        for (silence, group) in zip(live, SilenceIndex.filed(numbered, keyCount: keys.count)) {
            if group.isEmpty { unfiled += silence.regexSteps }
            for n in group { filed[n] += silence.regexSteps }
        }
        var most: [String: Int] = [:]
        for (n, steps) in filed.enumerated() where steps > 0 {
            let reach = switch keys.keys[n] {
            case .pair(let name, _): "pair \(name)"
            case .start(let name, let scalars): "start \(scalars.count) \(name)"
            }
            most[reach] = max(most[reach] ?? 0, steps)
        }
        return min(all, most.values.reduce(unfiled, +))
    }
}

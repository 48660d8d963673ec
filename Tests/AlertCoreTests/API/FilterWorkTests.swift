import AlertModel
@testable import AlertdAPI
import Foundation
import Testing

@Suite struct FilterWorkTests {
    /// Silences are the operators', so their regexes count toward a
    /// listing's yields and never toward its limit: ten of `(?:.*y){800}z`
    /// against 100 alerts of 1,024-character labels held both threads of the
    /// cooperative pool for 6 s a listing, with `/v1/health` and every POST
    /// waiting behind it.
    @Test func costlySilencesYieldThePoolWithoutRefusingTheListing() async throws {
        let now = Date()
        let silences = try (0..<4).map { i in
            Silence(matchers: [try LabelMatcher(parsing: #"alertname="Long""#), try LabelMatcher(parsing: #"x=~"(?:.*y){\#(100 + i)}z""#)],
                    startsAt: now.addingTimeInterval(-1), endsAt: now.addingTimeInterval(600), createdBy: "alice", comment: "costly")
        }
        let index = SilenceIndex(silences, at: now)
        var work = FilterWork(limit: 1)
        for i in 0..<3 {
            let labels = ["alertname": "Long", "x": "\(i)" + String(repeating: "y", count: 1_023)]
            #expect(await work.silencing(labels, in: index).isEmpty)
        }
        #expect(work.yields >= 3)
        // A label that ends as they ask is held by every one of them.
        let held = await work.silencing(["alertname": "Long", "x": String(repeating: "y", count: 200) + "z"], in: index)
        #expect(held.map(\.id) == silences.map(\.id))
    }
}

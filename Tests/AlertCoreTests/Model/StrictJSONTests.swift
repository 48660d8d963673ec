import Foundation
import Testing
@testable import AlertModel

/// What the API's JSON reader keeps and refuses.
@Suite struct StrictJSONTests {
    func string(_ bytes: [UInt8]) throws -> String {
        let object = try #require(try StrictJSON.parse(Data(bytes)) as? [String: Any])
        return try #require(object["k"] as? String)
    }

    /// `JSONSerialization` alone drops a raw byte-order mark at the start of
    /// a string or right after an escape; sent escaped, it keeps it.
    @Test func aRawByteOrderMarkInAStringIsKeptWhereverItIs() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(try string(Array(#"{"k":""#.utf8) + bom + Array(#"key"}"#.utf8)) == "\u{FEFF}key")
        #expect(try string(Array(#"{"k":"a"#.utf8) + bom + Array(#"b"}"#.utf8)) == "a\u{FEFF}b")
        #expect(try string(Array(#"{"k":"\n"#.utf8) + bom + Array(#""}"#.utf8)) == "\n\u{FEFF}")
        #expect(try string(Array(#"{"k":"\ufeffkey"}"#.utf8)) == "\u{FEFF}key")
        // Outside strings nothing is rewritten: keys and values around it read as before.
        #expect(try string(Array(#"{"k": "x", "n": 1}"#.utf8)) == "x")
    }

    @Test func trailingCommasAreStillRefusedWithTheirPosition() {
        #expect(throws: StrictJSON.Failure.self) { try StrictJSON.parse(Data("{\"a\": 1,\n}".utf8)) }
        do {
            _ = try StrictJSON.parse(Data("[1,\n 2,\n]".utf8))
        } catch {
            #expect(error.description == "A trailing comma is not allowed in JSON at line 2, column 3.")
        }
        // A comma inside a string is text.
        #expect((try? StrictJSON.parse(Data(#"{"a": "x,}"}"#.utf8))) != nil)
    }

    /// Thousands of bad keys cost time in proportion to their number, and the
    /// answer lists the first hundred with a count of the rest.
    @Test func problemsBeyondTheListLimitAreCounted() throws {
        var object: [String: Any] = ["title": "t"]
        for i in 0..<5_000 { object["unknown\(i)"] = "v" }
        let start = ContinuousClock.now
        let result = AlertSpec.Builder(jsonObject: object).build()
        #expect(ContinuousClock.now - start < .seconds(1))
        guard case .failure(let errors) = result else { Issue.record("accepted"); return }
        #expect(errors.errors.count == AlertSpecErrors.listLimit)
        #expect(errors.count == 5_000)
        #expect(errors.omitted == 5_000 - AlertSpecErrors.listLimit)
        #expect(errors.description.hasSuffix("(4900 more problems not listed)"))
    }

    /// Past the label-count limit, the labels are not checked one by one.
    @Test func tooManyLabelsIsOneProblem() throws {
        let labels = Dictionary(uniqueKeysWithValues: (0..<10_000).map { ("1bad\($0)", "\u{1B}") })
        guard case .failure(let errors) = AlertSpec.Builder(jsonObject: ["title": "t", "labels": labels]).build() else {
            Issue.record("accepted")
            return
        }
        #expect(errors.codes == [.tooManyLabels])
    }
}

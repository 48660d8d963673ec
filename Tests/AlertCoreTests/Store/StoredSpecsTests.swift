import Foundation
import Testing
@testable import AlertModel
@testable import AlertdStore

/// Specs decoded once per stored text answer as decoding does, every time.
@Suite struct StoredSpecsTests {
    @Test func aCachedSpecIsTheDecodedOneAndADamagedTextNone() throws {
        let specs = try (0..<3).map { i in
            try AlertSpec.Builder().title("disk \(i)").labels(["instance": "db\(i)"]).dedupKey("k\(i)").build().get()
        }
        for _ in 0..<2 {
            for spec in specs {
                #expect(StoredSpecs.spec(spec.canonicalJSON) == spec)
                #expect(StoredSpecs.spec(spec.canonicalJSON) == (try? AlertSpec.fromStorage(spec.canonicalJSON)))
            }
        }
        #expect(StoredSpecs.spec(#"{"title": 3}"#) == nil)
        #expect(StoredSpecs.spec("") == nil)
    }
}

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

    /// A text is one spec byte for byte: `café` composed and decomposed are
    /// two, though Swift's `String` takes them for one.
    @Test func canonicallyEquivalentTextsAreTwoSpecs() throws {
        let composed = try AlertSpec.Builder().title("caf\u{E9} \(UUID())").labels(["site": "caf\u{E9}"]).build().get()
        let decomposed = try AlertSpec.Builder().title(composed.title.replacingOccurrences(of: "\u{E9}", with: "e\u{301}"))
            .labels(["site": "cafe\u{301}"]).build().get()
        #expect(composed.canonicalJSON == decomposed.canonicalJSON)  // as `String`s
        #expect(StoredSpecs.spec(composed.canonicalJSON)?.title.utf8.elementsEqual(composed.title.utf8) == true)
        let read = try #require(StoredSpecs.spec(decomposed.canonicalJSON))
        #expect(read.title.utf8.elementsEqual(decomposed.title.utf8) && read.labels["site"]?.utf8.elementsEqual("cafe\u{301}".utf8) == true)
    }
}

import Foundation
import Testing
@testable import AlertdStore

/// The lists a store keeps as JSON text (presenters, the alerts a group's
/// presenter was told of): written by the one JSON writer, read by the
/// strict reader, and rows `JSONEncoder` wrote before still read.
@Suite struct StoreCodingListTests {
    static let lists: [[String]] = [[], ["chat"], ["a/b", "q\"uote", "back\\slash", "new\nline", "é ✓", "\u{1}", ""],
                                    (0..<5_000).map { "0193a1b2-c3d4-7e5f-8a9b-\(String($0, radix: 16))" }]

    @Test func whatItWritesReadsBackAndIsWhatJSONDecoderReads() throws {
        for list in Self.lists {
            let text = StoreCoding.jsonList(list)
            #expect(StoreCoding.decodeList(text) == list)
            #expect(try JSONDecoder().decode([String].self, from: Data(text.utf8)) == list)
        }
    }

    @Test func whatJSONEncoderWroteReadsTheSame() throws {
        for list in Self.lists {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            #expect(StoreCoding.decodeList(String(decoding: try encoder.encode(list), as: UTF8.self)) == list)
            #expect(StoreCoding.decodeList(String(decoding: try JSONEncoder().encode(list), as: UTF8.self)) == list)
        }
    }

    @Test func aTextThatIsNotAListOfStringsReadsAsEmpty() {
        for text in ["", "[", "{}", "\"a\"", "[\"a\",1]", "[\"a\"] x", "null"] {
            #expect(StoreCoding.decodeList(text) == [], "\(text)")
        }
    }
}

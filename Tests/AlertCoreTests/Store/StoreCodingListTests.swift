import Foundation
import Testing
@testable import AlertModel
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

/// A group's row, as the stores write it, reads back with the strict
/// reader; a row that does not hold what the writer writes is corrupt.
@Suite struct StoreCodingGroupTests {
    @Test func aGroupRowReadsBackWhatWasWritten() throws {
        let labels = [AlertLabel(name: "alertname", value: "Disk \"full\" é"), AlertLabel(name: "rack", value: "")]
        let settings = AlertGroupSettings(presenters: ["chat", "pager/x"], wait: .milliseconds(1_500), interval: .seconds(300),
                                          repeatInterval: .seconds(14_400))
        let row = StoreCoding.GroupRow(id: "g-0123456789abcdef", route: "storms", labels: StoreCoding.encodeLabels(labels),
                                       settings: StoreCoding.encodeSettings(settings), created: 1_000, nextDue: 2_000, notified: nil)
        let group = try StoreCoding.group(row)
        #expect(group.labels == labels)
        #expect(group.settings == settings)
        for (labelText, settingsText) in [("[{\"name\":\"a\"}]", row.settings), (row.labels, "{\"presenters\":[1],\"wait_ms\":1,\"interval_ms\":1,\"repeat_ms\":1}"),
                                          (row.labels, "{\"presenters\":[],\"wait_ms\":1}"), ("{}", row.settings)] {
            var bad = row
            (bad.labels, bad.settings) = (labelText, settingsText)
            #expect(throws: StoreError.self) { try StoreCoding.group(bad) }
        }
    }
}

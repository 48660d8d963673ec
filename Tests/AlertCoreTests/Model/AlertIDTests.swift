import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdDelivery

@Suite struct AlertIDTests {
    @Test func aRoutedDeliveryIDIsTheAlertIDAndThePresentersPlace() {
        let id = AlertID.generate()
        #expect(DeliveryID.routed(id, 0).rawValue == "\(id.rawValue).0")
        #expect(DeliveryID.routed(id, 12).rawValue == "\(id.rawValue).12")
        #expect(DeliveryID.escalated(id, 1).rawValue == "\(id.rawValue).e1")
    }

    @Test func idsSortByCreationAndAreUnique() {
        let start = Date(timeIntervalSince1970: 1_748_779_200)
        // Its own generator: other tests make ids with today's clock at the same time.
        let generator = UUIDv7Generator()
        var ids: [AlertID] = []
        for i in 0..<10_000 {
            // Many share a millisecond, which exercises the counter.
            ids.append(.generate(at: start.addingTimeInterval(Double(i / 7) / 1000), using: generator))
        }
        #expect(Set(ids).count == 10_000)
        #expect(ids.sorted() == ids)
        #expect(AlertID.generate(at: start.addingTimeInterval(3_600), using: generator) > ids.last!)
    }

    @Test func idsAreVersion7WithTheTimeInFront() throws {
        let date = Date(timeIntervalSince1970: 1_748_779_200.123)
        let id = AlertID.generate(at: date, using: UUIDv7Generator())
        let hex = Array(id.rawValue.replacingOccurrences(of: "-", with: ""))
        #expect(hex.count == 32)
        #expect(hex[12] == "7")
        #expect("89ab".contains(hex[16]))
        #expect(UInt64(String(hex[0..<12]), radix: 16) == 1_748_779_200_123)
        #expect(id.rawValue == id.rawValue.lowercased())
    }

    @Test func parsesOnlyUUIDs() throws {
        #expect(AlertID("nope") == nil)
        let id = try #require(AlertID("0197285C-2E00-7ABC-8DEF-0123456789AB"))
        #expect(id.rawValue == "0197285c-2e00-7abc-8def-0123456789ab")
        #expect(try JSONDecoder().decode([AlertID].self, from: Data(#"["0197285c-2e00-7abc-8def-0123456789ab"]"#.utf8)) == [id])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([AlertID].self, from: Data(#"["x"]"#.utf8)) }
    }

    /// The parser written out takes what Foundation's `UUID(uuidString:)`
    /// takes and writes back the same (its `sscanf` also lets through a
    /// space or an `x` here and there, read as something else): canonical
    /// UUIDs in either case, not one-byte changes of one (a dash moved, a
    /// non-hex digit, a byte more or fewer, a multi-byte character).
    @Test func acceptsWhatFoundationsUUIDAccepts() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdefABCDEFgG-x é".unicodeScalars)
        for _ in 0..<300 {
            let canonical = UUID().uuidString
            var cases = [canonical, canonical.lowercased(), String(canonical.dropLast()), canonical + "0", "{\(canonical)}"]
            for _ in 0..<6 {
                var scalars = Array(canonical.unicodeScalars)
                scalars[Int.random(in: 0..<scalars.count, using: &rng)] = alphabet.randomElement(using: &rng)!
                cases.append(String(String.UnicodeScalarView(scalars)))
            }
            for text in cases {
                let canonical = UUID(uuidString: text).map(\.uuidString).flatMap { $0.lowercased() == text.lowercased() ? $0.lowercased() : nil }
                #expect(AlertID(text)?.rawValue == canonical, "\(text)")
            }
        }
    }
}

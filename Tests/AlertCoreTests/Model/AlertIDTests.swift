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
}

import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdDelivery

@Suite struct AlertDurationTests {
    @Test(arguments: [
        ("30m", Int64(1_800)), ("1h30m", 5_400), ("90", 90), ("45s", 45), ("2d", 172_800), ("1w", 604_800),
        (" 5m ", 300), ("0", 0), ("1d2h3m4s", 93_784),
    ])
    func parses(_ text: String, _ seconds: Int64) {
        #expect(AlertDuration(parsing: text)?.seconds == seconds)
    }

    @Test(arguments: ["30x", "", "m", "1h30", "-5", "1.5h", "1 h", "99999999999999999999", "9999999999999999w",
                      "100000000000000000m5000000000000000000s", "٣m",
                      // Units out of order or twice: slips, not sums.
                      "30m1h", "1h1h", "1s1m"])
    func rejects(_ text: String) {
        #expect(AlertDuration(parsing: text) == nil)
    }

    @Test func describesCanonically() {
        #expect(AlertDuration.seconds(5_400).description == "1h30m")
        #expect(AlertDuration.seconds(0).description == "0s")
        #expect(AlertDuration.seconds(90_061).description == "1d1h1m1s")
        #expect(AlertDuration(parsing: AlertDuration.seconds(93_784).description) == .seconds(93_784))
    }

    @Test func codesAsSecondsAndReadsStrings() throws {
        #expect(String(decoding: try JSONEncoder().encode([AlertDuration.minutes(2)]), as: UTF8.self) == "[120]")
        #expect(try JSONDecoder().decode([AlertDuration].self, from: Data(#"[120, "2m"]"#.utf8)) == [.minutes(2), .minutes(2)])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([AlertDuration].self, from: Data("[-1]".utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([AlertDuration].self, from: Data(#"["soon"]"#.utf8)) }
    }
}

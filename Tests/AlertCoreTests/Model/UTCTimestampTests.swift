import Foundation
import Testing
@testable import AlertModel

/// alertd's one way of writing instants.
@Suite struct UTCTimestampTests {
    /// The digit-by-digit writer agrees with the calendar arithmetic it
    /// shares with the readable forms, across centuries and before 1970.
    @Test func iso8601AgreesWithTheReadableFormEverywhere() {
        var seconds: Double = -2_208_988_800  // 1900-01-01
        while seconds < 13_000_000_000 {  // past 2381
            for millis in [0.0, 0.001, 0.5, 0.999] {
                let date = Date(timeIntervalSince1970: seconds + millis)
                let expectedMillis = String(format: "%03d", Int((millis * 1000).rounded()))
                #expect(UTCTimestamp.iso8601(date) == UTCTimestamp.dateTime(date).replacingOccurrences(of: " ", with: "T") + ".\(expectedMillis)Z")
            }
            seconds += 7_777_777
        }
        #expect(UTCTimestamp.iso8601(Date(timeIntervalSince1970: 1_764_640_496.25)) == "2025-12-02T01:54:56.250Z")
        #expect(UTCTimestamp.iso8601(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000Z")
    }

    /// An instant past Int64's milliseconds (a hostile server's expiry added
    /// to its alert's creation: `alertctl show` died of it) prints at the edge.
    @Test(arguments: [9.3e15, -9.3e15, 1e300, -1e300, .infinity, -.infinity, .nan])
    func anInstantPastWhatMillisecondsHoldPrintsAtTheEdge(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(!UTCTimestamp.readable(date).isEmpty)
        #expect(!UTCTimestamp.iso8601(date).isEmpty)
        #expect(UTCTimestamp.dateTime(date).hasPrefix(seconds > 0 ? "292278994-" : "-"), "\(UTCTimestamp.dateTime(date))")
    }
}

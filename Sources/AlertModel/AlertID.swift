import FoundationEssentials
import Synchronization

/// An alert's identity: a UUIDv7 in lowercase text. Its first 48 bits are the
/// creation time in milliseconds, so ids sort by creation time, and the store
/// can page through them without a second index.
public struct AlertID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// Accepts a UUID in its canonical text form; nil otherwise.
    public init?(_ text: String) {
        guard let uuid = UUID(uuidString: text) else { return nil }
        rawValue = uuid.uuidString.lowercased()
    }

    package init(trusted rawValue: String) { self.rawValue = rawValue }

    /// `generator` keeps ids increasing; the process shares one.
    package static func generate(at date: Date = Date(), using generator: UUIDv7Generator) -> AlertID {
        AlertID(trusted: generator.next(millis: UInt64(max(0, date.timeIntervalSince1970 * 1000))))
    }

    /// A new id for the given moment (now by default), strictly greater than
    /// every id this process made before.
    public static func generate(at date: Date = Date()) -> AlertID {
        generate(at: date, using: .shared)
    }

    public var description: String { rawValue }

    public static func < (lhs: AlertID, rhs: AlertID) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let s = try c.decode(String.self)
        guard let id = AlertID(s) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not an alert id: \(s)")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

/// Makes UUIDv7 strings that increase strictly within a process, even for
/// ids made in the same millisecond or while the clock steps back (RFC 9562
/// §6.2, method 1: a counter in the 12 `rand_a` bits, with the clock pushed
/// forward when it overflows or goes backwards).
package final class UUIDv7Generator: Sendable {
    package static let shared = UUIDv7Generator()

    private let state = Mutex<(millis: UInt64, counter: UInt16)>((0, 0))

    package func next(millis now: UInt64) -> String {
        let (millis, counter) = state.withLock { s -> (UInt64, UInt16) in
            if now > s.millis {
                s.millis = now
                s.counter = UInt16.random(in: 0..<0x400)  // leave headroom for the counter
            } else if s.counter >= 0xFFF {
                s.millis += 1
                s.counter = 0
            } else {
                s.counter += 1
            }
            return (s.millis, s.counter)
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<6 { bytes[i] = UInt8((millis >> (8 * (5 - UInt64(i)))) & 0xFF) }
        bytes[6] = 0x70 | UInt8(counter >> 8)
        bytes[7] = UInt8(counter & 0xFF)
        var rng = SystemRandomNumberGenerator()
        let tail = rng.next() as UInt64
        for i in 8..<16 { bytes[i] = UInt8((tail >> (8 * UInt64(i - 8))) & 0xFF) }
        bytes[8] = 0x80 | (bytes[8] & 0x3F)
        // Formatted by hand: this runs once per accepted alert.
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (i, b) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(b >> 4)])
            text.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

import FoundationEssentials
import Synchronization

/// An alert's identity: a UUIDv7 in lowercase text. Its first 48 bits are the
/// creation time in milliseconds, so ids sort by creation time, and the store
/// can page through them without a second index.
public struct AlertID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// Accepts a UUID in its canonical text form (8-4-4-4-12 hex digits,
    /// either case); nil otherwise. Checked and lowercased in one pass:
    /// Foundation's `UUID(uuidString:)` went through `sscanf` and `sprintf`,
    /// and stored id lists are read this way by the thousand.
    public init?(_ text: String) {
        guard text.utf8.count == 36 else { return nil }
        var text = text
        var valid = true
        let lowered = text.withUTF8 { bytes in String(unsafeUninitializedCapacity: 36) { out in
            for i in 0..<36 {
                let byte = bytes[i]
                switch (i, byte) {
                case (8, UInt8(ascii: "-")), (13, UInt8(ascii: "-")), (18, UInt8(ascii: "-")), (23, UInt8(ascii: "-")):
                    out[i] = byte
                case (8, _), (13, _), (18, _), (23, _):
                    valid = false
                case (_, UInt8(ascii: "0")...UInt8(ascii: "9")), (_, UInt8(ascii: "a")...UInt8(ascii: "f")):
                    out[i] = byte
                case (_, UInt8(ascii: "A")...UInt8(ascii: "F")):
                    out[i] = byte + 32
                default:
                    valid = false
                }
                if !valid { return 0 }
            }
            return 36
        } }
        guard valid else { return nil }
        rawValue = lowered
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
        var rng = SystemRandomNumberGenerator()
        let random = rng.next() as UInt64
        // Bytes 8-15 are random but for the variant's two bits (RFC 9562: 10).
        let tail = random & ~0xC0 | 0x80
        func byte(_ i: Int) -> UInt8 {
            switch i {
            case 0..<6: UInt8(truncatingIfNeeded: millis >> (8 * UInt64(5 - i)))
            case 6: 0x70 | UInt8(truncatingIfNeeded: counter >> 8)
            case 7: UInt8(truncatingIfNeeded: counter)
            default: UInt8(truncatingIfNeeded: tail >> (8 * UInt64(i - 8)))
            }
        }
        func hex(_ nibble: UInt8) -> UInt8 { nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble }
        // Written straight into the string: this runs once per accepted alert.
        return String(unsafeUninitializedCapacity: 36) { text in
            var n = 0
            for i in 0..<16 {
                if i == 4 || i == 6 || i == 8 || i == 10 {
                    text[n] = UInt8(ascii: "-")
                    n += 1
                }
                text[n] = hex(byte(i) >> 4)
                text[n + 1] = hex(byte(i) & 0x0F)
                n += 2
            }
            return n
        }
    }
}

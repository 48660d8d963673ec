/// A label set's identity as Prometheus and Alertmanager compute it: FNV-1a
/// (64 bits) over the names and values in name order, each followed by the
/// byte 0xFF, written as 16 hex digits. alertd makes it the dedup key of an
/// alert from Prometheus, so its re-sends fold into one alert, and shows it
/// as `fingerprint` where Alertmanager would.
package struct LabelFingerprint: Sendable, Hashable, CustomStringConvertible {
    package let value: UInt64

    package init(_ labels: [String: String]) {
        var hash = FNV1a()
        func add(_ text: String) {
            hash.add(text)
            hash.add(0xFF)
        }
        // Byte order, as Go sorts strings. The pairs are sorted, so no value
        // is looked up again by its name.
        for (name, value) in labels.sorted(by: { Self.precedes($0.key, $1.key) }) {
            add(name)
            add(value)
        }
        value = hash.value
    }

    /// Whether `a`'s UTF-8 bytes sort before `b`'s. Over each string's own
    /// storage: `UTF8View`'s generic comparison was 6% of the daemon's CPU
    /// taking alerts of 31 labels from Prometheus.
    private static func precedes(_ a: String, _ b: String) -> Bool {
        let inPlace = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                for i in 0..<min(x.count, y.count) where x[i] != y[i] { return x[i] < y[i] }
                return x.count < y.count
            }
        }
        return (inPlace ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    package var description: String {
        String(unsafeUninitializedCapacity: 16) { out in
            for i in 0..<16 {
                let digit = UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * i)) & 0x0F
                out[i] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
            }
            return 16
        }
    }

    /// Whether `key` has a fingerprint's form, 16 lower-case hex digits.
    /// Such dedup keys are kept for alerts from Prometheus: a native alert
    /// sent with one would take a coming Prometheus alert's place (which
    /// then folded into it, routed by the native alert's labels) or be
    /// closed by that alert's resolve.
    package static func hasItsForm(_ key: String) -> Bool {
        key.utf8.count == 16 && key.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

/// A label set's identity as Prometheus and Alertmanager compute it: FNV-1a
/// (64 bits) over the names and values in name order, each followed by the
/// byte 0xFF, written as 16 hex digits. alertd makes it the dedup key of an
/// alert from Prometheus, so its re-sends fold into one alert, and shows it
/// as `fingerprint` where Alertmanager would.
package struct LabelFingerprint: Sendable, Hashable, CustomStringConvertible {
    package let value: UInt64

    package init(_ labels: [String: String]) {
        var hash: UInt64 = 14_695_981_039_346_656_037
        func add<S: Sequence<UInt8>>(_ bytes: S) {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 1_099_511_628_211
            }
        }
        // Byte order, as Go sorts strings; compared in place, not copied to arrays.
        for name in labels.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            add(name.utf8)
            add(CollectionOfOne(0xFF))
            add(labels[name]!.utf8)
            add(CollectionOfOne(0xFF))
        }
        value = hash
    }

    package var description: String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

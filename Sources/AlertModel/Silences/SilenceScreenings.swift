import Synchronization

/// The costly screenings a ``SilenceIndex`` made, kept while its filing and
/// the active silences stay as they were: a group's flush holds each open
/// member against the silences again, and with regexes that cost a
/// hundred milliseconds an alert (within the store's budget), a group of
/// 200 kept the one writer busy for 19 s at every flush, intake waiting
/// behind it. Only screenings past ``worthKeeping`` steps are kept, and
/// labels are hashed only once one is; the kept labels are bounded in count
/// and size, and all are let go when full.
final class SilenceScreenings: Sendable {
    /// Labels compared and hashed byte for byte, as matchers compare them:
    /// keyed by `[String: String]`, `café` composed and decomposed were one
    /// key, and one alert's screening answered for the other's.
    private struct Labels: Hashable {
        let labels: [String: String]

        static func == (a: Labels, b: Labels) -> Bool {
            a.labels.count == b.labels.count && a.labels.allSatisfy { name, value in
                b.labels.contains { LabelMatcher.same($0.key, name) && LabelMatcher.same($0.value, value) }
            }
        }

        func hash(into hasher: inout Hasher) {
            // In an order of their own bytes, so equal labels hash alike whatever the dictionary's order.
            for (name, value) in labels.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                var name = name, value = value
                name.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
                hasher.combine(0xFF as UInt8)
                value.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
                hasher.combine(0xFF as UInt8)
            }
        }
    }

    /// Steps of regex matching below which screening again is cheaper than keeping.
    static let worthKeeping = 100_000
    static let maxKept = 1_024
    /// The bytes of kept label names and values, at most.
    static let maxBytes = 1 << 20

    private struct Kept {
        var found: [Labels: [Int]] = [:]
        var bytes = 0
    }

    private let kept = Mutex(Kept())

    init() {}

    /// The positions of the silences found for `labels`, if kept.
    func found(for labels: [String: String]) -> [Int]? {
        kept.withLock { $0.found.isEmpty ? nil : $0.found[Labels(labels: labels)] }
    }

    func keep(_ found: [Int], for labels: [String: String]) {
        let bytes = labels.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        guard bytes <= Self.maxBytes else { return }
        kept.withLock { kept in
            if kept.found.count >= Self.maxKept || kept.bytes + bytes > Self.maxBytes { kept = Kept() }
            kept.found[Labels(labels: labels)] = found
            kept.bytes += bytes
        }
    }
}

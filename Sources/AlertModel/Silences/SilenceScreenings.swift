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
    /// Steps of regex matching below which screening again is cheaper than keeping.
    static let worthKeeping = 100_000
    static let maxKept = 1_024
    /// The bytes of kept label names and values, at most.
    static let maxBytes = 1 << 20

    private struct Kept {
        /// By the labels' bytes: keyed by `[String: String]`, `café`
        /// composed and decomposed were one key, and one alert's screening
        /// answered for the other's.
        var found: [[ExactText: ExactText]: [Int]] = [:]
        var bytes = 0
    }

    private let kept = Mutex(Kept())

    init() {}

    /// The positions of the silences found for `labels`, if kept.
    func found(for labels: [String: String]) -> [Int]? {
        kept.withLock { $0.found.isEmpty ? nil : $0.found[Self.key(labels)] }
    }

    private static func key(_ labels: [String: String]) -> [ExactText: ExactText] {
        Dictionary(labels.map { (ExactText($0.key), ExactText($0.value)) }) { first, _ in first }
    }

    func keep(_ found: [Int], for labels: [String: String]) {
        let bytes = labels.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        guard bytes <= Self.maxBytes else { return }
        kept.withLock { kept in
            if kept.found.count >= Self.maxKept || kept.bytes + bytes > Self.maxBytes { kept = Kept() }
            kept.found[Self.key(labels)] = found
            kept.bytes += bytes
        }
    }
}

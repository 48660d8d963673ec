import FoundationEssentials
import AlertModel

/// A silence's matchers decoded once per distinct stored text. Every claim
/// of due deliveries reads the active silences back, and decoding each
/// one's matchers (JSON, then compiling its regexes) made a thousand
/// silences cost every claim tens of milliseconds on the writer's thread.
/// Byte for byte (``DecodedTextCache``): keyed by `String`, a silence on
/// `k="é"` composed answered for a later one on `k="é"` decomposed, which
/// then held the first one's alerts, and was saved back so when it ended.
package enum StoredMatchers {
    /// A bound, not a working size: a daemon has far fewer active silences.
    static let cache = DecodedTextCache<[LabelMatcher]>(capacity: 4_096) {
        try? JSONDecoder().decode([LabelMatcher].self, from: Data($0.utf8))
    }

    /// The matchers `text` holds; nil when it cannot be read (such as a
    /// silence stored before a limit that now refuses its regex).
    package static func matchers(_ text: String) -> [LabelMatcher]? { cache.value(text) }
}

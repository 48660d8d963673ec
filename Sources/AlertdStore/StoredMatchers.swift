import FoundationEssentials
import Synchronization
import AlertModel

/// A silence's matchers decoded once per distinct stored text. Every claim
/// of due deliveries reads the active silences back, and decoding each
/// one's matchers (JSON, then compiling its regexes) made a thousand
/// silences cost every claim tens of milliseconds on the writer's thread.
/// Keyed by the stored text itself, so it can never answer for a silence
/// that changed, whichever store or node wrote it.
package enum StoredMatchers {
    /// Past this many distinct texts the cache starts over: a bound, not a
    /// working size (a daemon has far fewer active silences).
    static let capacity = 4_096

    private static let decoded = Mutex<[String: [LabelMatcher]]>([:])

    /// The matchers `text` holds; nil when it cannot be read (such as a
    /// silence stored before a limit that now refuses its regex).
    package static func matchers(_ text: String) -> [LabelMatcher]? {
        if let hit = decoded.withLock({ $0[text] }) { return hit }
        guard let matchers = try? JSONDecoder().decode([LabelMatcher].self, from: Data(text.utf8)) else { return nil }
        decoded.withLock { cache in
            if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            cache[text] = matchers
        }
        return matchers
    }
}

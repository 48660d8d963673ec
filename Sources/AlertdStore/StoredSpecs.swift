import FoundationEssentials
import Synchronization
import AlertModel

/// Alert specs decoded once per distinct stored text, for the open alerts
/// every claim reads while inhibition rules are in force (the sources are
/// found among them). Decoding all of them again for each claim made the
/// writer's thread spend most of a storm of 5,000 alerts in the JSON
/// reader. Keyed by the stored text's bytes (``ExactText``), so it can
/// never answer for another spec, whichever store or node wrote it: keyed
/// by `String`, a spec titled `café` composed answered for one titled
/// `cafe` with a combining accent, and a group listed one alert's title and
/// labels for the other's.
package enum StoredSpecs {

    /// Past this many distinct texts the cache starts over: a bound on its
    /// memory (some 15 MB), not a working size.
    static let capacity = 10_000

    private static let decoded = Mutex<[ExactText: AlertSpec]>([:])

    /// The spec `text` holds; nil when it cannot be read.
    package static func spec(_ text: String) -> AlertSpec? {
        let key = ExactText(text)
        if let hit = decoded.withLock({ $0[key] }) { return hit }
        guard let spec = try? AlertSpec.fromStorage(text) else { return nil }
        decoded.withLock { cache in
            if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            cache[key] = spec
        }
        return spec
    }
}

import Synchronization
import AlertModel

/// Values decoded once per distinct stored text, for what every claim reads
/// back again and again. Keyed by the text's bytes (``ExactText``), so an
/// entry can never answer for another text, whichever store or node wrote
/// it: keyed by `String`, a text holding `café` composed answered for one
/// with `cafe` and a combining accent, as Swift takes the two for equal.
package final class DecodedTextCache<Value: Sendable>: Sendable {
    /// Past this many distinct texts the cache starts over: a bound on its
    /// memory, not a working size.
    let capacity: Int
    private let decode: @Sendable (String) -> Value?
    private let decoded = Mutex<[ExactText: Value]>([:])

    /// `decode` reads a value from a text; nil when it cannot be read.
    package init(capacity: Int, decode: @escaping @Sendable (String) -> Value?) {
        self.capacity = capacity
        self.decode = decode
    }

    /// What `text` holds, decoded at its first use; nil when it cannot be
    /// read (a text that cannot be read is tried again, not kept).
    package func value(_ text: String) -> Value? {
        let key = ExactText(text)
        if let hit = decoded.withLock({ $0[key] }) { return hit }
        guard let value = decode(text) else { return nil }
        decoded.withLock { cache in
            if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            cache[key] = value
        }
        return value
    }
}

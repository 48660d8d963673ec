import FoundationEssentials
import Synchronization

/// Failed console sign-ins counted per client address: past
/// ``maxFailures`` in a ``window`` that address may not try again until the
/// window ends. Without it a client could try thousands of tokens a second;
/// a random token is out of reach of that, a weak one is not. Loopback
/// addresses are not counted: a TLS proxy in front puts every browser
/// behind one of them, and ten wrong tokens from anyone would then lock
/// everyone out of signing in.
public final class SignInThrottle: Sendable {
    /// Failed tries an address may make in one window.
    static let maxFailures = 10
    /// How long a window lasts, from an address's first failure in it.
    static let window: TimeInterval = 60
    /// The most addresses followed; past it windows that ended are dropped,
    /// then the oldest, so memory does not grow with the addresses used.
    static let capacity = 10_000

    private struct Window {
        let start: Date
        var failures: Int
    }

    private let windows = Mutex<[String: Window]>([:])

    public init() {}

    /// Whether `address` (numeric, as the server gives a TCP peer) is a
    /// loopback one, which the throttle leaves alone.
    public static func isLoopback(_ address: String) -> Bool {
        address == "::1" || address.hasPrefix("127.") || address.hasPrefix("::ffff:127.")
    }

    /// When `address` may try again; nil when it may now.
    public func retryAt(for address: String, now: Date = Date()) -> Date? {
        windows.withLock { all in
            guard let w = all[address], w.failures >= Self.maxFailures else { return nil }
            let end = w.start.addingTimeInterval(Self.window)
            return end > now ? end : nil
        }
    }

    /// Counts a failed try from `address`.
    public func failed(from address: String, now: Date = Date()) {
        windows.withLock { all in
            if var w = all[address], w.start.addingTimeInterval(Self.window) > now {
                w.failures += 1
                all[address] = w
                return
            }
            if all.count >= Self.capacity {
                all = all.filter { $0.value.start.addingTimeInterval(Self.window) > now }
                if all.count >= Self.capacity, let oldest = all.min(by: { $0.value.start < $1.value.start })?.key { all[oldest] = nil }
            }
            all[address] = Window(start: now, failures: 1)
        }
    }
}

import FoundationEssentials
import Synchronization
import AlertdDelivery
import AlertdHTTP

/// Wrong tokens counted per client address, whether sent to sign in to the
/// console or as a bearer token: past ``maxFailures`` in a ``window`` that
/// address may present no token until the window ends, a right one
/// included. Without it a client could try thousands of tokens a second; a
/// random token is out of reach of that, a weak one is not. Loopback
/// addresses are not counted: a TLS proxy in front puts every browser
/// behind one of them, and ten wrong tokens from anyone would then lock
/// everyone out.
public final class FailedTokenThrottle: Sendable {
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

    /// What `request`'s wrong tokens are counted under: its TCP client's
    /// address, an IPv6 one by its /64 (a host is commonly given a whole
    /// /64, and could try each token from a new address of it); nil for a
    /// loopback client and the Unix socket, which are not counted.
    public static func key(for request: HTTPRequest) -> String? {
        guard case .tcp(let text) = request.peer else { return nil }
        guard let address = IPAddress(text) else { return text }
        guard address.scope != .loopback else { return nil }
        return address.client
    }

    /// Runs `attempt`, a judgement of the token `key` presented, unless
    /// `key` must wait: then it refuses with 429 `code` and `Retry-After`,
    /// `message` told the seconds left. An attempt that throws is counted
    /// before any other try from `key` is judged: checked and counted as two
    /// steps, guesses sent in parallel on many connections each passed the
    /// check before any was counted.
    public func admit<T: Sendable>(_ key: String?, code: String, message: (Int) -> String,
                                   _ attempt: () throws(APIError) -> T) throws(APIError) -> T {
        guard let key else { return try attempt() }
        let outcome: Result<T, APIError> = windows.withLock { all in
            let now = Date()
            if let end = Self.retryAt(all[key], now: now) {
                let seconds = max(1, Int(end.timeIntervalSince(now).rounded(.up)))
                var error = APIError(status: 429, code: code, message: message(seconds))
                error.headers.set("Retry-After", String(seconds))
                return .failure(error)
            }
            do throws(APIError) {
                return .success(try attempt())
            } catch {
                Self.count(key, in: &all, now: now)
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// When `address` (a ``key(for:)``) may try again; nil when it may now.
    public func retryAt(for address: String, now: Date = Date()) -> Date? {
        windows.withLock { Self.retryAt($0[address], now: now) }
    }

    private static func retryAt(_ w: Window?, now: Date) -> Date? {
        guard let w, w.failures >= maxFailures else { return nil }
        let end = w.start.addingTimeInterval(window)
        return end > now ? end : nil
    }

    /// Counts a failed try from `address`.
    public func failed(from address: String, now: Date = Date()) {
        windows.withLock { Self.count(address, in: &$0, now: now) }
    }

    private static func count(_ address: String, in all: inout [String: Window], now: Date) {
        if var w = all[address], w.start.addingTimeInterval(window) > now {
            w.failures += 1
            all[address] = w
            return
        }
        if all.count >= capacity {
            all = all.filter { $0.value.start.addingTimeInterval(window) > now }
            if all.count >= capacity, let oldest = all.min(by: { $0.value.start < $1.value.start })?.key { all[oldest] = nil }
        }
        all[address] = Window(start: now, failures: 1)
    }
}

import FoundationEssentials
import AlertModel
import AlertdLogging
import AlertdServices
import AlertdStore

/// Wakes when the soonest group's time comes (or a new member joins) and
/// has the store flush the groups that are due: each flush queues the
/// group notifications it decides on as durable deliveries, which the
/// dispatcher then sends like any other. The timers live in the store, so
/// after a restart a notification due meanwhile goes out once, at start.
public actor GroupTimer: Service {
    public nonisolated let name = "groups"
    private let store: any AlertStore
    private var inhibitRules: [InhibitRule]
    private let log: Logger
    private let onNotices: @Sendable ([GroupNotice]) -> Void
    private let rounds = RoundLoop()
    private var flushFailures = RepeatedFailureLog()
    /// The longest the loop sleeps: a member closing moves a group's time
    /// closer without a wake-up, and this bounds how late that is seen.
    private let tick: Duration
    private static let batch = 200

    /// `onNotices` hears of every flush that queued notifications, so the
    /// dispatcher can be woken and the notifications counted.
    public init(store: any AlertStore, inhibitRules: [InhibitRule] = [], logger: Logger = Logger(label: "groups"),
                tick: Duration = .seconds(1), onNotices: @escaping @Sendable ([GroupNotice]) -> Void = { _ in }) {
        self.store = store
        self.inhibitRules = inhibitRules
        self.log = logger
        self.tick = tick
        self.onNotices = onNotices
    }

    /// A group may have formed, or its time moved closer.
    public nonisolated func wake() { rounds.wake() }

    public func reconfigure(inhibitRules: [InhibitRule]) {
        self.inhibitRules = inhibitRules
        rounds.wake()
    }

    public func run() async {
        // A full batch: more may be due at once.
        await rounds.run { await round() ? .zero : await nextWait() }
    }

    public func shutdownGracefully() { rounds.stop() }

    /// Flushes what is due; true when the batch was full (more may be due).
    private func round() async -> Bool {
        do {
            guard let next = try await store.nextGroupDueTime(), next <= Date() else {
                flushFailures.succeeded(log, "groups are flushed again")
                return false
            }
            let notices = try await store.flushDueGroups(now: Date(), inhibitRules: inhibitRules, limit: Self.batch)
            if !notices.isEmpty { onNotices(notices) }
            for n in notices {
                log.info("group notification queued", ["group.id": n.group.rawValue, "presenter": n.presenter, "reason": n.reason.rawValue,
                                                        "delivery.id": n.delivery.rawValue, "alerts": "\(n.listed)"])
            }
            flushFailures.succeeded(log, "groups are flushed again")
            return Set(notices.map(\.group)).count >= Self.batch
        } catch {
            flushFailures.failed(log, "could not flush groups", ["error": "\(error)"])
            return false
        }
    }

    /// Until the soonest group is due, at most a tick; nothing open, a tick.
    private func nextWait() async -> Duration {
        guard let next = try? await store.nextGroupDueTime() else { return tick }
        // Due yet not flushed (another node holds the lock): soon again, not at once.
        return max(Duration.until(next, atMost: tick), .milliseconds(100))
    }
}
